import { childHandle, childOfHandle, childOutcome } from '../../agents/child-runs.js';
import type { StateWrite } from '../../journal/records.js';
import { isEnded, type ParkRow, type Store } from '../../store/store.js';
import type { ExternalOutcome } from '../external-work.js';
import type { RunDriver } from '../run/run-driver.js';
import type { RunResult } from '../run-result.js';
import type { HeldRuns } from './held-runs.js';
import type { NodeHealth } from './node-health.js';
import type { RunLoader } from './run-loader.js';
import { rowResult, stateResult } from './run-results.js';

/** What the links between parent and child runs need from the node. */
export interface ChildLinksDeps {
  readonly store: Store;
  readonly held: () => HeldRuns;
  readonly loader: RunLoader;
  readonly health: NodeHealth;
  /** Delivers a child's end to the wait of its parent (see `ExternalWorkDesk.complete`). */
  readonly complete: (handle: string, outcome: ExternalOutcome, options: { by: string }) => Promise<unknown>;
  /** Cancels a run. */
  readonly cancel: (runId: string, reason: string) => Promise<unknown>;
}

/**
 * A child run (an agent tool's call) and its parent: the child's end answers the parent's wait,
 * a parent that ends takes its children with it, and the child's run-only state goes back.
 */
export class ChildLinks {
  readonly #deps: ChildLinksDeps;

  constructor(deps: ChildLinksDeps) {
    this.#deps = deps;
  }

  /** A run ended here: its parent's wait on it is answered; its children still going end with it. */
  runEnded(driver: RunDriver): void {
    const state = driver.state;
    // A child that parked may have parked its parent: its end answers the parent's wait.
    if (state.parent && state.parks.size > 0) this.#deliverToParent(stateResult(state), state.agent);
    // A parent that ended while waiting on children (cancelled, stopped): they end with it.
    for (const park of state.parks.values()) {
      if (park.status === 'closed') this.cancelChild(park.handle, `its parent run ${state.runId} ended`);
    }
  }

  /** Cancels the child run a wait's handle names, if it names one that is still going (nobody waits for it now). */
  cancelChild(handle: string | undefined, reason: string): void {
    const child = childOfHandle(handle);
    if (child === undefined) return;
    this.#deps.cancel(child, reason).catch(() => {
      // Ended already, or its store failed (which fails the runtime by itself).
    });
  }

  /** Open waits on child runs whose child ended while no one listened (a crash in between): delivered now. */
  settleChildren(parks: readonly ParkRow[]): void {
    for (const park of parks) {
      const child = childOfHandle(park.handle);
      if (child === undefined || this.#deps.held().drivers.has(child)) continue;
      this.#deps.store
        .getRun(child)
        .then(async (row) => {
          if (!row || !isEnded(row.status)) return;
          this.#deliverToParent(await rowResult(this.#deps.store, row), row.agent);
        })
        .catch((error) => this.#deps.health.failIfStore(error));
    }
  }

  /**
   * The run-only state writes a child run made, once it has ended (none before: a child still
   * going hands nothing back yet, nor does one whose journal is gone).
   */
  async childStateWrites(childRunId: string): Promise<readonly StateWrite[]> {
    const driver = this.#deps.held().drivers.get(childRunId);
    const state = driver ? driver.state : await this.#deps.loader.runState(childRunId).catch(() => undefined);
    if (!state || !isEnded(state.status)) return [];
    return [...state.runOnlyWrites.values()];
  }

  /** Answers the wait of the parent parked on this ended child run, if one is parked on it. */
  #deliverToParent(result: RunResult, agent: string): void {
    this.#deps
      .complete(childHandle(result.runId), childOutcome(agent, result), { by: 'wardrik (child run)' })
      .catch((error) => {
        // Else no parent waits (it had the answer at once, or was cancelled): nothing to deliver.
        this.#deps.health.failIfStore(error);
      });
  }
}
