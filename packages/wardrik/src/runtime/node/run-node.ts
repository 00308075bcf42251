import type { AgentDirectory } from '../../agents/agent-directory.js';
import {
  InvalidInputError,
  RunEndedError,
  RunHeldElsewhereError,
  RunNeedsAttentionError,
  RunNotFoundError,
} from '../../errors.js';
import { JOURNAL_VERSION, type RunEndedRecord } from '../../journal/records.js';
import { isEnded, type RunRow, type Store } from '../../store/store.js';
import { type DrainReport, drainRuns, NodeStoppingError } from '../drain.js';
import { type EventHub, isJournaled, recordEvent } from '../events.js';
import type { ExternalOutcome } from '../external-work.js';
import type { Hooks } from '../hooks.js';
import type { DriverDeps } from '../run/driver-deps.js';
import type { RunDriver } from '../run/run-driver.js';
import type { RunResult } from '../run-result.js';
import type { Sessions } from '../sessions.js';
import { ChildLinks } from './child-links.js';
import { Claims } from './claims.js';
import { HeldRuns } from './held-runs.js';
import { NodeHealth } from './node-health.js';
import { Ownership } from './ownership.js';
import { RunLoader } from './run-loader.js';
import { rowResult, stateResult } from './run-results.js';
import { RunStarts } from './run-starts.js';
import { RunWatch } from './run-watch.js';

/** What a node needs from the runtime around it. */
export interface NodeDeps {
  readonly store: Store;
  readonly hooks: Hooks;
  readonly hub: EventHub;
  readonly agents: AgentDirectory;
  readonly sessions: Sessions;
  /** What each run's driver is given (its `completeExternal`, `runChild` … call back into the runtime). */
  readonly driverDeps: DriverDeps;
  /** This node's name, its life (`incarnation`), and how long its leases last. */
  readonly terms: { readonly node: string; readonly incarnation: string; readonly leaseMs: number };
  readonly maxRuns: number;
  readonly claimIntervalMs: number;
  /** Loads the standing decisions again (each claim pass does). */
  readonly loadAllowances: () => Promise<void>;
  /** Delivers a result of external work (a child's end to its parent's wait). */
  readonly complete: (handle: string, outcome: ExternalOutcome, options: { by: string }) => Promise<unknown>;
}

/**
 * The runs this node holds, and everything that decides who drives them: the run table, loading,
 * claims and take-over, waiting and store signals, starts, cancels, drain and crash-only failure.
 * The `Wardrik` facade asks it; nothing else holds a run's driver.
 */
export class RunNode {
  readonly health = new NodeHealth();
  readonly ownership: Ownership;
  readonly held: HeldRuns;
  readonly loader: RunLoader;
  readonly claims: Claims;
  readonly watch: RunWatch;
  readonly children: ChildLinks;
  readonly starts: RunStarts;
  readonly #deps: NodeDeps;
  #draining: Promise<DrainReport> | undefined;

  constructor(deps: NodeDeps) {
    this.#deps = deps;
    const { store, hooks, agents, driverDeps, terms } = deps;
    const health = this.health;
    this.ownership = new Ownership(store, terms, {
      lost: (runIds) => {
        for (const runId of runIds) this.held.lose(runId);
      },
    });
    const ownership = this.ownership;
    this.loader = new RunLoader({ store, ownership, agents, driverDeps, health, held: () => this.held });
    this.held = new HeldRuns({
      store,
      ownership,
      hooks,
      health,
      bringUp: (runId) => this.loader.bringUpOrMark(runId),
      ended: (driver) => this.children.runEnded(driver),
    });
    const held = this.held;
    this.claims = new Claims({
      store,
      ownership,
      held,
      loader: this.loader,
      health,
      agentNames: agents.all().map((agent) => agent.name),
      maxRuns: deps.maxRuns,
      intervalMs: deps.claimIntervalMs,
      loadAllowances: deps.loadAllowances,
      settleFromStore: (runId) => this.watch.settleFromStore(runId),
    });
    this.watch = new RunWatch({ store, held, health, claimSoon: () => this.claims.soon() });
    this.children = new ChildLinks({
      store,
      held: () => held,
      loader: this.loader,
      health,
      complete: deps.complete,
      cancel: (runId, reason) => this.cancel(runId, reason),
    });
    this.starts = new RunStarts({ agents, sessions: deps.sessions, held, ownership, hooks, health, driverDeps });
    health.onFail(() => {
      this.claims.stop();
      this.ownership.stop();
      held.stopAll();
      held.resting.clear();
    });
    health.onFail((error) => held.waiters.rejectAll(() => error));
  }

  /**
   * Runs `write` on the run's driver under its lock — the driver driving it, or the run brought up
   * here (its lease claimed) — then drives it on, rests it or settles it as the write leaves it.
   * Throws `RunHeldElsewhereError` when another node holds the run, and if the node closed or
   * failed while the lock was waited for.
   */
  withRun<T>(runId: string, write: (driver: RunDriver) => Promise<T>): Promise<T> {
    return this.held.locks.hold(runId, async () => {
      this.health.checkOpen();
      const driver = await this.loader.bringUpOrMark(runId);
      try {
        return await write(driver);
      } finally {
        this.held.afterLockedWrite(driver);
      }
    });
  }

  /** Releases labels from a run (see `Wardrik.releaseLabels`): journaled durably, with who and why. */
  async releaseLabels(
    runId: string,
    labels: readonly string[],
    options: { readonly by: string; readonly reason: string },
  ): Promise<RunResult> {
    if (!Array.isArray(labels) || labels.length === 0 || labels.some((label) => typeof label !== 'string' || !label)) {
      throw new InvalidInputError('labels: expected a non-empty list of label names');
    }
    if (typeof options?.reason !== 'string' || options.reason.trim() === '') {
      throw new InvalidInputError('reason: say why the labels may be released');
    }
    this.health.checkTakingWork();
    return this.withRun(runId, async (driver) => {
      if (driver.ended) throw new RunEndedError(`run ${runId} has ended (${driver.state.status})`);
      const missing = labels.filter((label) => !driver.state.labels.includes(label));
      if (missing.length) throw new InvalidInputError(`labels: the run does not carry ${missing.join(', ')}`);
      await this.loader.guardDriver(driver, driver.releaseLabels(labels, options.by, options.reason));
      return stateResult(driver.state);
    });
  }

  /**
   * Cancels a run. An active run stops its model step or calls (their signals abort); a parked
   * run ends at once and its parks close. Throws `RunEndedError` if it has ended.
   */
  async cancel(runId: string, reason: string): Promise<RunResult> {
    this.health.checkOpen();
    const held = this.held;
    const cancelled = await held.locks.hold(runId, async (): Promise<RunResult | undefined> => {
      // Decided under the run's lock, on what is true now: nobody else starts driving it meanwhile.
      const active = held.active(runId);
      if (active) {
        active.cancel(reason);
        return undefined; // the driver ends it; wait below, outside the lock
      }
      let driver: RunDriver;
      try {
        driver = await this.loader.load(runId);
      } catch (thrown) {
        if (RunNeedsAttentionError.isInstance(thrown)) return this.#cancelUnloadable(runId, reason);
        if (!RunHeldElsewhereError.isInstance(thrown)) throw thrown;
        // Another node drives it: it acts on the request (and the end reaches our wait as a signal).
        await this.health.guard(this.#deps.store.requestCancel(runId, reason, this.#deps.driverDeps.now()));
        return undefined;
      }
      if (driver.ended) {
        held.afterLockedWrite(driver);
        throw new RunEndedError(`run ${runId} has ended (${driver.state.status})`);
      }
      await this.health.guard(driver.cancelParked(reason));
      held.settle(driver);
      return stateResult(driver.state);
    });
    return cancelled ?? this.watch.wait(runId);
  }

  /**
   * Cancels a run whose journal can't be loaded: appends its end after the last record (nothing
   * before it changes) and closes its parks.
   */
  async #cancelUnloadable(runId: string, reason: string): Promise<RunResult> {
    const store = this.#deps.store;
    const row = await store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    if (isEnded(row.status)) throw new RunEndedError(`run ${runId} has ended (${row.status})`);
    const seq = (await store.lastSeq(runId)) + 1;
    const at = this.#deps.driverDeps.now();
    const ended: RunEndedRecord = {
      v: JOURNAL_VERSION,
      at,
      type: 'run-ended',
      status: 'cancelled',
      error: reason,
      labels: [...row.labels],
      measures: { ...row.measures },
    };
    const open = await store.listParks({ runId, status: 'open' });
    const { attention: _attention, ...rest } = row;
    const run: RunRow = { ...rest, status: 'cancelled', error: reason, updatedAt: at };
    const lease = await this.ownership.claim(runId);
    if (!lease) throw new RunHeldElsewhereError(`run ${runId} is held by another node right now`);
    const records = [{ runId, seq, record: ended }];
    const closeParks = open.length ? { closeParks: open.map((park) => park.id) } : {};
    await this.health.guard(store.write({ runId, records, run, lease, ...closeParks }, { durable: true }));
    await this.ownership.release(lease);
    this.#deps.hub.emit(recordEvent({ runId, seq, record: ended }));
    return rowResult(store, run);
  }

  /** Drains the node (see `Wardrik.drain`): runs stop at their next safe point and their leases are handed over. */
  drain(graceMs: number): Promise<DrainReport> {
    if (this.#draining) return this.#draining;
    if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
      throw new InvalidInputError(`graceMs: expected a number of ms of at least 0, got ${String(graceMs)}`);
    }
    this.health.drain();
    this.claims.stop();
    const held = this.held;
    const driven = (driver: RunDriver) => ({
      runId: driver.runId,
      calls: () => driver.state.calls,
      stop: () => driver.stop(),
      done: held.driving.get(driver.runId) ?? Promise.resolve(),
      handOver: () => held.handOver(driver),
    });
    const report = drainRuns(
      {
        driven: () => [...held.drivers.values()].filter((driver) => held.driving.has(driver.runId)).map(driven),
        find: (runId) => {
          const driver = held.active(runId);
          return driver ? driven(driver) : undefined;
        },
        onRecord: (listener) =>
          this.#deps.hub.subscribe('*', (event) => {
            if (isJournaled(event)) listener(event.runId, event.type);
          }),
        onModelCall: (listener) => this.#deps.hooks.on('model-call-started', (event) => listener(event.runId)),
      },
      { graceMs },
    );
    this.#draining = report.then((drained) => {
      // Whoever waits for a run that goes on elsewhere hears so now (the run is on disk).
      held.waiters.rejectAll(
        (runId) =>
          new NodeStoppingError(
            `this node stopped before run ${runId} ended or parked; it goes on on another node (or when this one restarts)`,
          ),
      );
      return drained;
    });
    return this.#draining;
  }

  /** Whether the node drains (see `drain`). */
  get draining(): boolean {
    return this.#draining !== undefined;
  }

  /** Stops taking runs over, renewing leases and driving (every driver stops, writing nothing more). */
  stop(): void {
    this.health.close();
    this.claims.stop();
    this.ownership.stop();
    this.held.stopAll();
  }

  /** Settles once every run stopped, no lock is held and no claim pass is under way (after `stop`). */
  async stopped(): Promise<void> {
    await Promise.allSettled([...this.held.driving.values(), this.held.locks.idle(), this.claims.underWay]);
  }

  /** After `stop`, once the toolsets closed: leases given back (other nodes may take over at once), waiters told. */
  async release(): Promise<void> {
    if (!this.health.failure) await this.ownership.releaseAll();
    this.held.resting.clear();
    this.held.waiters.rejectAll(
      (runId) => new InvalidInputError(`this Wardrik closed before run ${runId} ended or parked`),
    );
  }
}
