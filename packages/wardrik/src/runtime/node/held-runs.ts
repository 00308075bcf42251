import { describeReason } from '@wardrik/core';
import { StoreError } from '../../errors.js';
import type { Lease, Store } from '../../store/store.js';
import type { Hooks } from '../hooks.js';
import type { DriveOutcome, RunDriver } from '../run/run-driver.js';
import type { RunResult } from '../run-result.js';
import type { NodeHealth } from './node-health.js';
import type { Ownership } from './ownership.js';
import { RestingRuns } from './resting-runs.js';
import { tellDriven, tellEnded, tellSuspended } from './run-hooks.js';
import { RunLocks } from './run-locks.js';
import { stateResult } from './run-results.js';
import { RunWaiters } from './run-waiters.js';

/** How many parked runs stay in memory after parking, for quick answers (the store stays the truth). */
const RESTING_RUNS = 64;

/** What the table of held runs needs from the node. */
export interface HeldRunsDeps {
  readonly store: Store;
  readonly ownership: Ownership;
  readonly hooks: Hooks;
  readonly health: NodeHealth;
  /** The run brought up for a take-up: loaded (its lease claimed unless held here), other nodes' requests acted on. */
  readonly bringUp: (runId: string) => Promise<RunDriver>;
  /** A run ended here: the runs linked to it (a parent waiting, children still going) hear of it. */
  readonly ended: (driver: RunDriver) => void;
}

/**
 * The runs this node holds: those it drives, those resting since they parked, the lock of each,
 * and who waits for each. Every change of who drives a run is decided here, synchronously, so
 * that a run is driven exactly once.
 */
export class HeldRuns {
  /** Runs in memory: being driven, or briefly while answered or cancelled. */
  readonly drivers = new Map<string, RunDriver>();
  /** The drive of each run being driven (settles once it stops, parks or ends). */
  readonly driving = new Map<string, Promise<void>>();
  readonly locks = new RunLocks();
  readonly waiters = new RunWaiters<RunResult>();
  readonly resting = new RestingRuns<RunDriver>(RESTING_RUNS);
  readonly #deps: HeldRunsDeps;

  constructor(deps: HeldRunsDeps) {
    this.#deps = deps;
  }

  /** The run's driver if this node drives it now. */
  active(runId: string): RunDriver | undefined {
    return this.driving.has(runId) ? this.drivers.get(runId) : undefined;
  }

  /** Drives `driver` from now on (`fresh`: a new run, not one driven again). */
  drive(driver: RunDriver, { fresh = false }: { readonly fresh?: boolean } = {}): void {
    const runId = driver.runId;
    tellDriven(this.#deps.hooks, driver.state, { fresh });
    this.resting.delete(runId);
    this.drivers.set(runId, driver);
    this.driving.set(runId, this.#driveUntilSettled(driver));
  }

  /**
   * Drives a run until it parks for good, ends, or the process stops it. When `drive()` returns
   * `parked`, whether to go on is decided synchronously, against the same state an answer or a
   * cancel changes: if every park was answered (or a cancel came) while the run was parking, go
   * on; else settle, and the next answer drives it. Either way exactly one of them drives it.
   */
  async #driveUntilSettled(driver: RunDriver): Promise<void> {
    const runId = driver.runId;
    for (;;) {
      let outcome: DriveOutcome;
      try {
        outcome = await driver.drive();
      } catch (thrown) {
        this.driving.delete(runId);
        this.drivers.delete(runId);
        this.#deps.health.fail(
          StoreError.isInstance(thrown)
            ? thrown
            : new StoreError(`driving run ${runId} failed: ${describeReason(thrown)}`, { cause: thrown }),
        );
        return;
      }
      if (outcome === 'parked' && driver.mustGoOn) continue;
      this.driving.delete(runId);
      if (outcome === 'stopped' || outcome === 'lost') {
        // Stopped (the process stops, or another node took the run over): nothing settles here.
        this.drivers.delete(runId);
        if (outcome === 'lost' && driver.lease) this.#deps.ownership.forget(driver.lease);
        tellSuspended(this.#deps.hooks, driver.state, outcome);
      } else this.settle(driver);
      return;
    }
  }

  /**
   * After an answer or a release under the run's lock: settle a run that ended, and drive one
   * that can go on and that nobody drives (decided at once, with no await between the check and
   * the drive, so that it is driven exactly once).
   */
  afterLockedWrite(driver: RunDriver): void {
    const ownership = this.#deps.ownership;
    if (driver.ended) this.settle(driver);
    else if (this.driving.has(driver.runId)) return;
    else if (driver.state.openParks === 0 && driver.lease && ownership.holds(driver.lease)) this.drive(driver);
    else if (driver.state.openParks === 0) {
      // It parked and gave its lease up while this write was made (under the lease still held then):
      // it goes on once its lease is claimed anew.
      this.resting.put(driver);
      this.takeUp(driver.runId);
    } else this.#rest(driver); // still parked: keep it at hand for the next answer
  }

  /** The run parked or ended: free its memory (a parked run may rest a while) and tell whoever waits. */
  settle(driver: RunDriver): void {
    const runId = driver.runId;
    this.drivers.delete(runId);
    if (!driver.ended) {
      tellSuspended(this.#deps.hooks, driver.state, 'parked');
      this.#rest(driver);
    } else {
      this.resting.delete(runId);
      this.#releaseLease(driver);
      tellEnded(this.#deps.hooks, driver.state);
      this.#deps.ended(driver);
    }
    if (!this.waiters.has(runId)) return;
    if (driver.ended) {
      this.waiters.settle(runId, stateResult(driver.state));
      return;
    }
    // Parked: unless another node recorded an answer meanwhile, which resumes it soon (here or
    // there), or one was journaled meanwhile (its park closed: the run goes on).
    this.#deps.store
      .requests(runId)
      .then((requests) => {
        if (requests.answers.length > 0 || requests.cancel || this.drivers.has(runId)) return;
        if (driver.state.openParks === 0 && !driver.ended) return;
        this.waiters.settle(runId, stateResult(driver.state));
      })
      .catch(() => {});
  }

  /** A parked run nobody drives: kept at hand for a while, its lease given up for any node to take. */
  #rest(driver: RunDriver): void {
    this.resting.put(driver);
    this.#releaseLease(driver);
  }

  /**
   * Gives the run's lease up (it parked or ended): any node may take the run when it needs driving.
   * Done under the run's lock, so that an answer being journaled meanwhile (under this lease) may
   * drive the run on under it: then it is kept. The driver keeps naming the lease it had, so that a
   * write it might still make is refused (fenced) rather than applied unfenced; a driver taken up
   * again gets the lease newly claimed for it.
   */
  #releaseLease(driver: RunDriver): void {
    const lease = driver.lease;
    if (!lease) return;
    this.locks
      .hold(lease.runId, async () => {
        if (this.drivers.get(lease.runId)?.lease?.epoch === lease.epoch) return; // driven on under it
        await this.#deps.ownership.release(lease);
      })
      .catch((thrown: unknown) => this.#deps.health.failIfStore(thrown));
  }

  /**
   * Gives back the lease of a run whose driver stopped while draining, so that another node takes
   * it over at once (a run that parked or ended gave its lease up already).
   */
  async handOver(driver: RunDriver): Promise<void> {
    const lease = driver.lease;
    if (!lease || this.drivers.get(driver.runId) === driver || driver.ended) return;
    if (this.#deps.ownership.holds(lease)) await this.#deps.ownership.release(lease);
  }

  /**
   * This node lost the run's lease (it expired, or another node took the run over): stop driving
   * it at once, writing nothing. Whoever waits for it hears of its end through the store.
   */
  lose(runId: string, lease?: Lease): void {
    if (lease) this.#deps.ownership.forget(lease);
    this.resting.delete(runId);
    // Not a driver under a newer lease (this node took the run up again). The one stopped keeps
    // naming its lost lease: anything it still writes is refused, never applied unfenced.
    const driver = this.drivers.get(runId);
    if (driver && (!lease || driver.lease?.epoch === lease.epoch)) driver.stop();
  }

  /**
   * Under the run's lock, once its holder is done: loads it (claiming its lease unless held here),
   * acts on the requests other nodes left for it, and drives it if it can go on.
   */
  takeUp(runId: string): void {
    this.locks
      .hold(runId, async () => {
        const driver = await this.#deps.bringUp(runId);
        this.afterLockedWrite(driver);
      })
      .catch(() => {
        // Another node took it, a store failure failed the runtime, or a lost lease stopped the driver.
      });
  }

  /** Stops a driver whose lease was lost and, once it has stopped, takes its run up again from the journal. */
  takeUpAfter(stale: RunDriver): void {
    const runId = stale.runId;
    stale.stop();
    const stopped = this.driving.get(runId) ?? Promise.resolve();
    void stopped.then(() => {
      if (this.drivers.get(runId) === stale) this.drivers.delete(runId);
      this.resting.delete(runId); // rebuilt from the journal, not from what it held
      this.takeUp(runId);
    });
  }

  /** Stops driving every run, writing nothing more (the process stops, or the store failed). */
  stopAll(): void {
    for (const driver of this.drivers.values()) driver.stop();
  }
}
