import { describeReason } from '@wardrik/core';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { LeaseLostError, RunHeldElsewhereError, RunNeedsAttentionError, RunNotFoundError } from '../../errors.js';
import { applyRecord, type RunState, rebuildState } from '../../journal/state.js';
import { checkJournal } from '../../journal/versions.js';
import type { Lease, RunRow, Store } from '../../store/store.js';
import type { DriverDeps } from '../run/driver-deps.js';
import { RunDriver } from '../run/run-driver.js';
import type { HeldRuns } from './held-runs.js';
import type { NodeHealth } from './node-health.js';
import type { Ownership } from './ownership.js';

/** What loading runs needs from the node. */
export interface RunLoaderDeps {
  readonly store: Store;
  readonly ownership: Ownership;
  readonly agents: AgentDirectory;
  readonly driverDeps: DriverDeps;
  readonly health: NodeHealth;
  /** Called back for the held runs (set once both exist: the table takes runs up through the loader). */
  readonly held: () => HeldRuns;
}

/**
 * Brings a run up on this node: the driver driving it, one resting here brought up to date, or one
 * rebuilt from its journal — under this node's lease on it, with what other nodes left for it (answers,
 * a cancel) journaled. A journal that can't be loaded marks the run as needing attention.
 */
export class RunLoader {
  readonly #deps: RunLoaderDeps;

  constructor(deps: RunLoaderDeps) {
    this.#deps = deps;
  }

  /**
   * The run's driver: the one driving it in memory, or one rebuilt from the journal (which is
   * kept in memory only if it is then driven).
   */
  async load(runId: string, options: { readonly lease?: Lease } = {}): Promise<RunDriver> {
    const active = this.#deps.held().drivers.get(runId);
    if (active) return active;
    const ownership = this.#deps.ownership;
    const lease = options.lease ?? (await ownership.claim(runId));
    if (!lease) throw new RunHeldElsewhereError(`run ${runId} is driven by another node right now`);
    try {
      const driver = (await this.#rested(runId)) ?? (await this.#rebuilt(runId));
      driver.lease = lease;
      return driver;
    } catch (thrown) {
      // A run that can't be loaded keeps its lease here (see Claims); any other failure gives it back.
      if (!RunNeedsAttentionError.isInstance(thrown)) await ownership.release(lease).catch(() => {});
      throw thrown;
    }
  }

  /** The run resting here since it parked, brought up to date with what its journal gained since. */
  async #rested(runId: string): Promise<RunDriver | undefined> {
    const rested = this.#deps.held().resting.take(runId);
    if (!rested) return undefined;
    const newer = checkJournal(runId, await this.#deps.store.loadJournal(runId, rested.state.lastSeq));
    try {
      for (const stored of newer) applyRecord(rested.state, stored.seq, stored.record);
    } catch (thrown) {
      throw new RunNeedsAttentionError(`run ${runId} cannot be loaded: ${describeReason(thrown)}`, { cause: thrown });
    }
    return rested;
  }

  /** The run rebuilt from its journal. */
  async #rebuilt(runId: string): Promise<RunDriver> {
    const row = await this.#deps.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    this.#deps.agents.require(row.agent);
    const state = await this.runState(runId);
    // The agent of its latest step: the run was transferred there, or to one its calls run under.
    const agent = this.#deps.agents.get(state.stepAgent);
    if (!agent) {
      throw new RunNeedsAttentionError(
        `run ${runId} cannot be loaded: it went on under agent ${state.stepAgent}, which this Wardrik does not run`,
      );
    }
    return new RunDriver(agent, state, this.#deps.driverDeps);
  }

  /** A run's state rebuilt from its journal in the store. */
  async runState(runId: string): Promise<RunState> {
    const journal = await this.#deps.store.loadJournal(runId);
    try {
      return rebuildState(runId, checkJournal(runId, journal));
    } catch (thrown) {
      throw new RunNeedsAttentionError(`run ${runId} cannot be loaded: ${describeReason(thrown)}`, { cause: thrown });
    }
  }

  /**
   * `load`, then the answers and a cancel other nodes left for the run (journaled in the order
   * given). A run that fails to come up here gives its lease back: kept, it would be renewed with
   * nobody driving it (`load` does so for its own failures but a run that needs attention).
   */
  async bringUp(runId: string, options: { readonly lease?: Lease } = {}): Promise<RunDriver> {
    const driver = await this.load(runId, options);
    try {
      await this.#applyRequests(driver);
    } catch (thrown) {
      const lease = driver.lease;
      if (lease && this.#deps.held().drivers.get(runId) !== driver) {
        await this.#deps.ownership.release(lease).catch(() => {});
      }
      throw thrown;
    }
    return driver;
  }

  /** `bringUp`, marking the run as needing attention (with why) if its journal can't be loaded. */
  async bringUpOrMark(runId: string): Promise<RunDriver> {
    try {
      return await this.bringUp(runId);
    } catch (thrown) {
      if (RunNeedsAttentionError.isInstance(thrown)) {
        const row = await this.#deps.store.getRun(runId);
        if (row && row.attention === undefined) await this.markAttention(row, thrown.message);
      }
      throw thrown;
    }
  }

  /**
   * Notes on a run's row why its journal can't be loaded; the journal itself is never rewritten.
   * Written under the run's lease when this node holds it.
   */
  async markAttention(row: RunRow, reason: string, lease?: Lease): Promise<void> {
    await this.#deps.health.guard(
      this.#deps.store.write(
        { runId: row.id, records: [], run: { ...row, attention: reason }, ...(lease ? { lease } : {}) },
        { durable: true },
      ),
    );
  }

  /**
   * Acts on what other nodes left for the run while this one held it: journals their answers (in
   * the order given) and a requested cancel. The caller holds the run's lock.
   */
  async #applyRequests(driver: RunDriver): Promise<void> {
    const requests = await this.#deps.store.requests(driver.runId);
    for (const answer of requests.answers) await this.guardDriver(driver, driver.recordAnswer(answer));
    if (requests.cancel && !driver.ended) {
      if (this.#deps.held().driving.has(driver.runId)) {
        await driver.cancel(requests.cancel.reason, { requested: true });
      } else {
        await this.guardDriver(driver, driver.cancelParked(requests.cancel.reason, { requested: true }));
      }
    }
  }

  /** `NodeHealth.guard`, and a lost lease stops this node driving the run before the error goes on. */
  async guardDriver<T>(driver: RunDriver, write: Promise<T>): Promise<T> {
    try {
      return await this.#deps.health.guard(write);
    } catch (thrown) {
      if (LeaseLostError.isInstance(thrown)) {
        this.#deps.held().lose(driver.runId, driver.lease);
        throw new RunHeldElsewhereError(`run ${driver.runId} was taken over by another node`, { cause: thrown });
      }
      throw thrown;
    }
  }
}
