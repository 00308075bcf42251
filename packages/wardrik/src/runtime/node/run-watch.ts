import { RunNeedsAttentionError, RunNotFoundError } from '../../errors.js';
import type { RunRow, RunSignal, Store } from '../../store/store.js';
import type { RunResult } from '../run-result.js';
import type { HeldRuns } from './held-runs.js';
import type { NodeHealth } from './node-health.js';
import { rowResult } from './run-results.js';

/** What watching runs needs from the node. */
export interface RunWatchDeps {
  readonly store: Store;
  readonly held: HeldRuns;
  readonly health: NodeHealth;
  /** A run needs driving and nobody holds it: look for runs to take over soon. */
  readonly claimSoon: () => void;
}

/**
 * Waits for runs to settle (end or park), here or on another node, and hears what the store
 * signals: requests for runs held here, runs to take over, journals that grew elsewhere.
 */
export class RunWatch {
  readonly #deps: RunWatchDeps;
  /** Followers of runs' events, told when a run's journal grows on another node. */
  readonly #appendListeners = new Map<string, Set<(seq: number) => void>>();

  constructor(deps: RunWatchDeps) {
    this.#deps = deps;
  }

  /**
   * Waits until the run ends or parks (at once if it has). Rejects with `RunNotFoundError`, and with
   * `RunNeedsAttentionError` for a run whose journal can't be loaded.
   */
  async wait(runId: string): Promise<RunResult> {
    const { held, store } = this.#deps;
    if (held.drivers.has(runId)) return held.waiters.wait(runId);
    // Waiting first, then reading: a run that parks or ends on another node in between is not missed.
    const waited = held.waiters.wait(runId);
    const row = await store.getRun(runId);
    if (!row) {
      held.waiters.reject(runId, new RunNotFoundError(`no run ${JSON.stringify(runId)}`));
      return waited;
    }
    if (row.status === 'running' && row.attention !== undefined) {
      held.waiters.reject(runId, new RunNeedsAttentionError(`run ${runId} needs attention: ${row.attention}`));
      return waited;
    }
    if (row.status !== 'running' && !held.drivers.has(runId)) {
      const settled = await this.#settledRow(runId, row);
      if (settled) held.waiters.settle(runId, await rowResult(store, settled));
    }
    // Else it is driven here now, or elsewhere (its end reaches us as a signal), or waits for a node
    // to take it over (recovery), or for its holder to act on an answer another node recorded.
    return waited;
  }

  /** What the store signals: requests for runs driven here, runs to take over, journals that grew. */
  onSignal(signal: RunSignal): void {
    const { health, held } = this.#deps;
    if (health.closed || health.failure) return;
    // Draining: runs are handed over, not taken (followers still hear of journals that grew).
    if (health.draining && signal.type !== 'appended') return;
    if (signal.type === 'claimable') {
      this.#deps.claimSoon();
      return;
    }
    if (signal.type === 'requested') {
      // Driven here, or resting here since it parked (its lease given up, or being given up as the
      // answer came): act on the request, taking the run again if no other node did.
      if (held.drivers.has(signal.runId) || held.resting.has(signal.runId)) held.takeUp(signal.runId);
      return;
    }
    for (const listener of this.#appendListeners.get(signal.runId) ?? []) listener(signal.seq ?? 0);
    // Waited for here but driven elsewhere: its end (or park) reaches us this way.
    if (held.waiters.has(signal.runId) && !held.drivers.has(signal.runId)) this.settleFromStore(signal.runId);
  }

  /** Calls `listener` with the run's last seq each time its journal grows on another node. */
  onAppended(runId: string, listener: (seq: number) => void): () => void {
    let listeners = this.#appendListeners.get(runId);
    if (!listeners) {
      listeners = new Set();
      this.#appendListeners.set(runId, listeners);
    }
    const set = listeners;
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#appendListeners.get(runId) === set) this.#appendListeners.delete(runId);
    };
  }

  /** Tells those waiting for a run driven elsewhere (or by nobody now) if it has settled. */
  settleFromStore(runId: string): void {
    const { held, store } = this.#deps;
    this.#settledRow(runId)
      .then(async (row) => {
        if (row && !held.drivers.has(runId)) held.waiters.settle(runId, await rowResult(store, row));
      })
      .catch(() => {});
  }

  /**
   * The run's row if the run has settled for those who wait: it ended, or it is parked with nothing
   * on its way to resume it (an answer or a cancel another node recorded is on its way).
   */
  async #settledRow(runId: string, known?: RunRow): Promise<RunRow | undefined> {
    const store = this.#deps.store;
    const row = known ?? (await store.getRun(runId));
    if (row?.status !== 'parked') return row?.status === 'running' ? undefined : row;
    // Requests first, then the row again: an answer journaled meanwhile (which clears its request
    // and updates the row at once) shows in one of the two, never in neither.
    const requests = await store.requests(runId);
    if (requests.answers.length > 0 || requests.cancel) return undefined;
    const now = await store.getRun(runId);
    return now?.status === 'running' ? undefined : now;
  }
}
