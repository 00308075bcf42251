import { randomUUID } from 'node:crypto';
import type { Label, Measures } from '@wardrik/core';
import { type Agent, checkBudget } from '../agent.js';
import {
  AgentDefinitionError,
  AgentNotFoundError,
  InvalidInputError,
  ParkAlreadyAnsweredError,
  ParkNotFoundError,
  RunEndedError,
  RunNotFoundError,
  StaleParkAnswerError,
} from '../errors.js';
import { type Budget, JOURNAL_VERSION, type ParkDecision, type StoredRecord } from '../journal/records.js';
import { emptyState, rebuildState } from '../journal/state.js';
import { checkJournal } from '../journal/versions.js';
import type { ParkFilter, ParkRow, RunFilter, RunRow, RunStatus, Store } from '../store/store.js';
import { type HubOptions, WorkerHub } from '../workers/worker-hub.js';
import { defaultModelRetry, defaultToolRetry, type RetryPolicy } from './backoff.js';
import { EventHub, type RunEvent, type RunEventListener, recordEvent } from './events.js';
import { checkDecision } from './park-decision.js';
import { checkPolicy, type Policy } from './policy.js';
import { type DriverDeps, RunDriver } from './run-driver.js';

/** How many interrupted runs recovery loads before it starts driving them. */
const RECOVERY_BATCH = 1_000;

/** How to set up the runtime. */
export interface WardrikOptions {
  /** Where runs live. `sqliteStore('./.wardrik/wardrik.db')` for one node. */
  readonly store: Store;
  readonly agents: readonly Agent[];
  /** Retries of repeatable calls that throw or time out. Default 3 tries, 200 ms doubling to 5 s. */
  readonly toolRetry?: Partial<RetryPolicy>;
  /** Retries of model calls that fail. Default 4 tries, 500 ms doubling to 20 s. */
  readonly modelRetry?: Partial<RetryPolicy>;
  /** Re-drive runs that were running when the process stopped. Default true. */
  readonly recover?: boolean;
  /**
   * `true` (default): the answer of a call that is not repeatable is on disk before the model
   * sees it, so a crash after that never parks the call in doubt. `false` saves that fsync per
   * such call: the answer rides to disk with the next barrier, and a crash in between parks the
   * call `in_doubt` (still never repeated on its own).
   */
  readonly durableAnswers?: boolean;
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
  /** Workers: trust, waiting and timing settings (`trustedWorkers: true` stops labelling their answers `outside`). */
  readonly workers?: HubOptions;
  /** Server-wide policy: its rules are tried after each agent's own (see `Policy`). */
  readonly policy?: Policy;
}

/** How to start a run. */
export interface StartOptions {
  /** Whom the run acts for. Default `local`. */
  readonly principal?: string;
  /** Limits for this run, replacing the agent's where given. */
  readonly budget?: Budget;
}

/** Where a run stands when its caller hears of it: ended, or parked waiting for a person. */
export interface RunResult {
  readonly runId: string;
  readonly status: RunStatus;
  /** The final answer, when completed. It carries `labels`. */
  readonly output?: string;
  readonly error?: string;
  /** Every label the run has seen. */
  readonly labels: readonly Label[];
  readonly measures: Measures;
  /** The open parks, when parked. */
  readonly parks: readonly ParkRow[];
}

/** A run with its journal. */
export interface RunDetails extends RunRow {
  readonly journal: readonly StoredRecord[];
}

/** Who answers a park and which call they were shown. */
export interface AnswerOptions {
  /** The park's `callHash` as the person saw it: binds the answer to that exact call. */
  readonly callHash: string;
  /** Who answers. Default `local`. */
  readonly by?: string;
}

/**
 * Sets up the runtime on a store: migrates it and (unless `recover: false`) re-drives the runs
 * that were running when the process last stopped.
 *
 * @example
 * ```ts
 * const wardrik = await createWardrik({ store: sqliteStore('./.wardrik/wardrik.db'), agents: [support] })
 * const result = await wardrik.run('support', 'Where is order A1?')
 * console.log(result.status, result.output, result.measures)
 * ```
 */
export async function createWardrik(options: WardrikOptions): Promise<Wardrik> {
  const wardrik = new Wardrik(options);
  await options.store.migrate();
  await wardrik.loadAllowances();
  if (options.recover !== false) await wardrik.recover();
  return wardrik;
}

/** The runtime: starts, drives, parks, resumes, cancels and recovers runs. Make it with `createWardrik`. */
export class Wardrik {
  readonly store: Store;
  /** The workers connected to this node and the tools they offer. */
  readonly workers: WorkerHub;
  readonly #agents = new Map<string, Agent>();
  readonly #hub = new EventHub();
  readonly #deps: DriverDeps;
  /** Runs in memory: being driven, or briefly while answered or cancelled. */
  readonly #drivers = new Map<string, RunDriver>();
  readonly #driving = new Map<string, Promise<void>>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #waiters = new Map<string, Array<(result: RunResult) => void>>();
  /** Standing decisions: tools a person allowed for an agent. */
  readonly #allowed = new Map<string, Set<string>>();
  #closed = false;

  constructor(options: WardrikOptions) {
    this.store = options.store;
    this.workers = new WorkerHub(options.workers);
    for (const agent of options.agents) {
      if (this.#agents.has(agent.name))
        throw new AgentDefinitionError(`two agents are named ${JSON.stringify(agent.name)}`);
      this.#agents.set(agent.name, agent);
    }
    this.#deps = {
      store: options.store,
      hub: this.#hub,
      toolRetry: { ...defaultToolRetry, ...options.toolRetry },
      modelRetry: { ...defaultModelRetry, ...options.modelRetry },
      now: options.now ?? Date.now,
      durableAnswers: options.durableAnswers ?? true,
      workers: this.workers,
      ...(options.policy ? { policy: checkPolicy(options.policy, 'policy') } : {}),
      isAllowedForAgent: (agent, tool) => this.#allowed.get(agent)?.has(tool) === true,
    };
  }

  /** The agents this runtime runs. */
  agents(): Agent[] {
    return [...this.#agents.values()];
  }

  /**
   * Starts a run and returns its id once the run is on disk (it can't be lost after that).
   *
   * @example
   * ```ts
   * const { runId } = await wardrik.start('support', 'Refund order A1', { principal: 'user-7' })
   * ```
   */
  async start(agentName: string, input: string, options: StartOptions = {}): Promise<{ runId: string }> {
    this.#checkOpen();
    const agent = this.#agent(agentName);
    if (typeof input !== 'string' || input.trim() === '') {
      throw new InvalidInputError('input: expected a non-empty message for the agent');
    }
    const principal = options.principal ?? 'local';
    if (typeof principal !== 'string' || principal === '')
      throw new InvalidInputError('principal: expected a non-empty string');
    let budget = agent.budget;
    if (options.budget !== undefined) {
      try {
        budget = { ...agent.budget, ...checkBudget(options.budget, 'budget') };
      } catch (cause) {
        throw new InvalidInputError((cause as Error).message, { cause });
      }
    }
    const runId = `run_${randomUUID()}`;
    const driver = new RunDriver(agent, emptyState(runId), this.#deps);
    this.#drivers.set(runId, driver);
    try {
      await driver.begin({
        v: JOURNAL_VERSION,
        at: this.#deps.now(),
        type: 'run-started',
        agent: agent.name,
        principal,
        input,
        budget,
        maxSteps: agent.maxSteps,
      });
    } catch (cause) {
      this.#drivers.delete(runId);
      throw cause;
    }
    this.#drive(driver);
    return { runId };
  }

  /**
   * Starts a run and waits until it ends or parks.
   *
   * @example
   * ```ts
   * const result = await wardrik.run('support', 'Where is order A1?')
   * if (result.status === 'parked') console.log('waiting for', result.parks.map((park) => park.reason))
   * ```
   */
  async run(agentName: string, input: string, options: StartOptions = {}): Promise<RunResult> {
    const { runId } = await this.start(agentName, input, options);
    return this.wait(runId);
  }

  /** Waits until the run ends or parks (at once if it has). */
  async wait(runId: string): Promise<RunResult> {
    if (this.#drivers.has(runId)) return new Promise((resolve) => this.#addWaiter(runId, resolve));
    const row = await this.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    if (row.status !== 'running') return this.#result(row);
    // Being driven here now, or running but not driven yet (recovery will pick it up).
    return new Promise((resolve) => this.#addWaiter(runId, resolve));
  }

  /**
   * Cancels a run. An active run stops its model step or calls (their signals abort); a parked
   * run ends at once and its parks close. Throws `RunEndedError` if it has ended.
   */
  async cancel(runId: string, reason = 'cancelled by request'): Promise<RunResult> {
    const active = this.#drivers.get(runId);
    if (active && this.#driving.has(runId)) {
      await active.cancel(reason);
      return this.wait(runId);
    }
    return this.#locked(runId, async () => {
      const driver = await this.#load(runId);
      if (driver.ended) throw new RunEndedError(`run ${runId} has ended (${driver.state.status})`);
      await driver.cancelParked(reason);
      this.#settle(driver);
      return this.#stateResult(driver);
    });
  }

  /**
   * Answers a park with a person's decision, bound to the call they were shown (`callHash`),
   * and resumes the run once no park of it is open. A second answer, or one naming a call that
   * changed, fails closed.
   *
   * @example
   * ```ts
   * const [park] = await wardrik.listParks({ status: 'open' })
   * await wardrik.answerPark(park.id, { type: 'answer', value: { refunded: true } }, { callHash: park.callHash, by: 'alice' })
   * ```
   */
  async answerPark(parkId: string, decision: ParkDecision, options: AnswerOptions): Promise<void> {
    this.#checkOpen();
    const park = await this.store.getPark(parkId);
    if (!park) throw new ParkNotFoundError(`no park ${JSON.stringify(parkId)}`);
    const checked = checkDecision(park.kind, decision);
    if (typeof options?.callHash !== 'string') {
      throw new StaleParkAnswerError('callHash: required; pass the park.callHash of the park you were shown');
    }
    await this.#locked(park.runId, async () => {
      const driver = await this.#load(park.runId);
      const current = driver.state.parks.get(parkId);
      if (current?.status !== 'open') {
        throw new ParkAlreadyAnsweredError(
          `park ${parkId} is ${current?.status ?? 'unknown'}: it takes one answer only`,
        );
      }
      if (current.callHash !== options.callHash) {
        throw new StaleParkAnswerError(`park ${parkId} now holds another call than the one answered; look at it again`);
      }
      const by = options.by ?? 'local';
      await driver.answer(park, checked, by);
      if (checked.type === 'approve' && checked.remember === 'agent' && current.call) {
        await this.store.putAllowance({
          agent: driver.state.agent,
          tool: current.call.name,
          by,
          at: Date.now(),
          parkId,
        });
        this.#remember(driver.state.agent, current.call.name);
      }
      if (driver.ended) this.#settle(driver);
      else if (driver.state.openParks === 0 && !this.#driving.has(park.runId)) this.#drive(driver);
    });
  }

  /**
   * Releases labels from a run: the only way a run's labels weaken, journaled with who and why.
   * Later calls are then judged without them (answers seen later can bring them back).
   *
   * @example
   * ```ts
   * await wardrik.releaseLabels(runId, ['outside'], { by: 'alice', reason: 'the page was our own docs' })
   * ```
   */
  async releaseLabels(
    runId: string,
    labels: readonly string[],
    options: { by: string; reason: string },
  ): Promise<RunResult> {
    if (!Array.isArray(labels) || labels.length === 0 || labels.some((label) => typeof label !== 'string' || !label)) {
      throw new InvalidInputError('labels: expected a non-empty list of label names');
    }
    if (typeof options?.reason !== 'string' || options.reason.trim() === '') {
      throw new InvalidInputError('reason: say why the labels may be released');
    }
    return this.#locked(runId, async () => {
      const driver = await this.#load(runId);
      if (driver.ended) throw new RunEndedError(`run ${runId} has ended (${driver.state.status})`);
      const missing = labels.filter((label) => !driver.state.labels.includes(label));
      if (missing.length) throw new InvalidInputError(`labels: the run does not carry ${missing.join(', ')}`);
      await driver.releaseLabels(labels, options.by, options.reason);
      return this.#stateResult(driver);
    });
  }

  /** Loads the standing decisions from the store (done by `createWardrik`). */
  async loadAllowances(): Promise<void> {
    for (const allowance of await this.store.listAllowances()) this.#remember(allowance.agent, allowance.tool);
  }

  #remember(agent: string, tool: string): void {
    let tools = this.#allowed.get(agent);
    if (!tools) {
      tools = new Set();
      this.#allowed.set(agent, tools);
    }
    tools.add(tool);
  }

  /** A run with its journal. */
  async getRun(runId: string): Promise<RunDetails> {
    const row = await this.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    return { ...row, journal: await this.store.loadJournal(runId) };
  }

  /** A run's summary row, without its journal. */
  async getRunSummary(runId: string): Promise<RunRow> {
    const row = await this.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    return row;
  }

  listRuns(filter?: RunFilter): Promise<RunRow[]> {
    return this.store.listRuns(filter);
  }

  listParks(filter?: ParkFilter): Promise<ParkRow[]> {
    return this.store.listParks(filter);
  }

  async getPark(parkId: string): Promise<ParkRow> {
    const park = await this.store.getPark(parkId);
    if (!park) throw new ParkNotFoundError(`no park ${JSON.stringify(parkId)}`);
    return park;
  }

  /** Listens to one run's events (or every run's, with `'*'`). Returns the function that stops listening. */
  subscribe(runId: string, listener: RunEventListener): () => void {
    return this.#hub.subscribe(runId, listener);
  }

  /**
   * A run's events: those journaled after `afterSeq`, then live ones, until the run ends.
   *
   * @example
   * ```ts
   * for await (const event of wardrik.follow(runId)) console.log(event.seq, event.type)
   * ```
   */
  async *follow(runId: string, options: { afterSeq?: number; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    const queue: RunEvent[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = this.#hub.subscribe(runId, (event) => {
      queue.push(event);
      wake?.();
    });
    const onAbort = () => wake?.();
    options.signal?.addEventListener('abort', onAbort);
    try {
      if (!(await this.store.getRun(runId))) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
      let last = options.afterSeq ?? 0;
      for (const stored of await this.store.loadJournal(runId, last)) {
        last = stored.seq;
        yield recordEvent(stored);
        if (stored.record.type === 'run-ended') return;
      }
      for (;;) {
        while (queue.length) {
          const event = queue.shift() as RunEvent;
          if (event.type !== 'text-delta' && event.seq <= last) continue;
          if (event.type !== 'text-delta') last = event.seq;
          yield event;
          if (event.type === 'run-ended') return;
        }
        if (options.signal?.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Re-drives the runs that were running when the process stopped: a call with an intent but no
   * answer is repeated if repeatable and otherwise parked `in_doubt`; a lost model step is made again.
   */
  async recover(): Promise<{ resumed: number }> {
    const rows = await this.store.listRuns({ status: 'running' });
    let resumed = 0;
    // Load a batch before driving it: reads flush pending writes, so loading while the runs
    // already recovered are writing would cost a commit per run.
    for (let from = 0; from < rows.length; from += RECOVERY_BATCH) {
      const loaded: RunDriver[] = [];
      for (const row of rows.slice(from, from + RECOVERY_BATCH)) {
        if (this.#drivers.has(row.id) || this.#locks.has(row.id) || !this.#agents.has(row.agent)) continue;
        const driver = await this.#load(row.id, row);
        if (!driver.ended && driver.state.openParks === 0) loaded.push(driver);
      }
      for (const driver of loaded) {
        if (this.#drivers.has(driver.runId)) continue;
        this.#drive(driver);
        resumed += 1;
      }
    }
    return { resumed };
  }

  /** How many runs are in memory (being driven). Parked runs are not. */
  get activeRuns(): number {
    return this.#drivers.size;
  }

  /**
   * Stops driving (runs stay `running` on disk and are recovered by the next start), then closes
   * the store.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const driver of this.#drivers.values()) driver.stop();
    this.workers.close();
    await Promise.allSettled([...this.#driving.values(), ...this.#locks.values()]);
    await this.store.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new InvalidInputError('this Wardrik is closed');
  }

  #agent(name: string): Agent {
    const agent = this.#agents.get(name);
    if (!agent) {
      throw new AgentNotFoundError(
        `no agent ${JSON.stringify(name)}; agents: ${[...this.#agents.keys()].join(', ') || 'none'}`,
      );
    }
    return agent;
  }

  /**
   * The run's driver: the one driving it in memory, or one rebuilt from the journal (which is
   * kept in memory only if it is then driven).
   */
  async #load(runId: string, known?: RunRow): Promise<RunDriver> {
    const active = this.#drivers.get(runId);
    if (active) return active;
    const row = known ?? (await this.store.getRun(runId));
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    const journal = checkJournal(runId, await this.store.loadJournal(runId));
    return this.#drivers.get(runId) ?? new RunDriver(this.#agent(row.agent), rebuildState(runId, journal), this.#deps);
  }

  #drive(driver: RunDriver): void {
    const runId = driver.runId;
    this.#drivers.set(runId, driver);
    const driving = driver
      .drive()
      .then((outcome) => {
        if (outcome === 'stopped') return;
        this.#settle(driver);
      })
      .catch(() => {
        // The store failed: the run stays as it is on disk, for recovery.
        this.#drivers.delete(runId);
      })
      .finally(() => this.#driving.delete(runId));
    this.#driving.set(runId, driving);
  }

  /** The run parked or ended: free its memory and tell whoever waits. */
  #settle(driver: RunDriver): void {
    this.#drivers.delete(driver.runId);
    const waiters = this.#waiters.get(driver.runId);
    if (!waiters) return;
    this.#waiters.delete(driver.runId);
    const result = this.#stateResult(driver);
    for (const resolve of waiters) resolve(result);
  }

  #addWaiter(runId: string, resolve: (result: RunResult) => void): void {
    const list = this.#waiters.get(runId);
    if (list) list.push(resolve);
    else this.#waiters.set(runId, [resolve]);
  }

  #stateResult(driver: RunDriver): RunResult {
    const state = driver.state;
    const parks: ParkRow[] = [];
    for (const park of state.parks.values()) if (park.status === 'open') parks.push({ ...park, status: 'open' });
    return {
      runId: state.runId,
      status: state.status,
      ...(state.output === undefined ? {} : { output: state.output }),
      ...(state.error === undefined ? {} : { error: state.error }),
      labels: state.labels,
      measures: state.measures,
      parks,
    };
  }

  async #result(row: RunRow): Promise<RunResult> {
    const parks = row.status === 'parked' ? await this.store.listParks({ runId: row.id, status: 'open' }) : [];
    return {
      runId: row.id,
      status: row.status,
      ...(row.output === undefined ? {} : { output: row.output }),
      ...(row.error === undefined ? {} : { error: row.error }),
      labels: row.labels,
      measures: row.measures,
      parks,
    };
  }

  /** Runs `task` alone for this run (answers and cancels of one run never interleave). */
  async #locked<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(runId) ?? Promise.resolve();
    const next = before.catch(() => {}).then(task);
    this.#locks.set(runId, next);
    try {
      return await next;
    } finally {
      if (this.#locks.get(runId) === next) this.#locks.delete(runId);
    }
  }
}
