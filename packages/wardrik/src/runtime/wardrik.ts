import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  addMeasures,
  describeReason,
  type InputQuestion,
  type InputReply,
  type Label,
  mergeLabels,
} from '@wardrik/core';
import { type Agent, checkBudget } from '../agent.js';
import { AgentDirectory } from '../agents/agent-directory.js';
import { type ChildRunRequest, childHandle, childOfHandle, childOutcome, runChild } from '../agents/child-runs.js';
import type { RuntimeArtifacts } from '../artifacts/runtime-artifacts.js';
import {
  AgentDefinitionError,
  AgentNotFoundError,
  InvalidInputError,
  InvalidParkAnswerError,
  LeaseLostError,
  ParkAlreadyAnsweredError,
  ParkNotFoundError,
  RunEndedError,
  RunHeldElsewhereError,
  RunNeedsAttentionError,
  RunNotFoundError,
  StaleParkAnswerError,
  StoreError,
} from '../errors.js';
import {
  type Budget,
  type CallHolder,
  type EndStatus,
  JOURNAL_VERSION,
  type ParentLink,
  type Park,
  type ParkDecision,
  type ParkKind,
  type RunEndedRecord,
  type RunStartedRecord,
  type StateWrite,
  type StoredRecord,
} from '../journal/records.js';
import { applyRecord, emptyState, type RunState, rebuildState } from '../journal/state.js';
import { checkJournal } from '../journal/versions.js';
import type { RuntimeMemory } from '../memory/runtime-memory.js';
import type { SessionFilter, SessionRow } from '../store/session-store.js';
import {
  isEnded,
  type Lease,
  type ParkFilter,
  type ParkRow,
  type RunFilter,
  type RunRow,
  type RunSignal,
  type Store,
} from '../store/store.js';
import { type HubOptions, WorkerHub } from '../workers/worker-hub.js';
import { defaultModelRetry, defaultToolRetry, type RetryPolicy } from './backoff.js';
import { type DrainReport, drainRuns, NodeStoppingError } from './drain.js';
import { checkEditedArguments, type EditCheckDeps } from './edited-arguments.js';
import { EventHub, isJournaled, type RunEvent, type RunEventListener, recordEvent } from './events.js';
import { type ExternalOutcome, ExternalWorkDesk } from './external-work.js';
import { type FollowOptions, followRun } from './follow-run.js';
import { Hooks } from './hooks.js';
import { timeOrderedId } from './ids.js';
import { checkInputAnswer } from './input-parks.js';
import { Ownership } from './ownership.js';
import { checkDecision } from './park-decision.js';
import { checkPolicy, type Policy } from './policy.js';
import { RestingRuns } from './resting-runs.js';
import { checkRetention, type RetentionOptions } from './retention-rules.js';
import { Retention } from './retention-sweep.js';
import { type DriveOutcome, type DriverDeps, RunDriver } from './run-driver.js';
import { RunLocks } from './run-locks.js';
import type { RunResult } from './run-result.js';
import { RunWaiters } from './run-waiters.js';
import { type ArtifactOptions, type MemoryOptions, Services } from './services.js';
import { type SessionDetails, Sessions, type StateChanges } from './sessions.js';
import { completeSignIn, type SignInCallback } from './sign-ins.js';
import { WorkQuestions } from './work-questions.js';

/** How many interrupted runs recovery loads before it starts driving them. */
const RECOVERY_BATCH = 1_000;

/** How many parked runs stay in memory after parking, for quick answers (the store stays the truth). */
const RESTING_RUNS = 64;

const DEFAULT_LEASE_MS = 5_000;
const DEFAULT_MAX_RUNS = 10_000;
const DEFAULT_CLAIM_INTERVAL_MS = 500;

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
  /**
   * This node's name, in the leases it holds (unique among the nodes sharing a store). Default:
   * host, pid and a random part.
   */
  readonly node?: string;
  /**
   * How long a lease on a run lasts unless renewed (ms; renewed every third of it). On a store
   * shared by many nodes this is how long a dead node's runs wait before another takes them
   * over. Default 5 s.
   */
  readonly leaseMs?: number;
  /** The most runs this node drives at once; the rest wait for it, or for another node. Default 10,000. */
  readonly maxRuns?: number;
  /**
   * How often this node looks for runs to take over (a dead node's, or a request's). Default 500 ms:
   * a dead node's runs advance again within a lease and this.
   */
  readonly claimIntervalMs?: number;
  /** How long a toolset may take to say which tools it offers before a step goes on without it (ms). Default 10 s. */
  readonly toolsetTimeoutMs?: number;
  /** Long-term memory across sessions: where it is kept, semantic search, adding sessions after each run. */
  readonly memory?: MemoryOptions;
  /** Artifacts (named, versioned files of sessions and principals): where they are kept, the largest. */
  readonly artifacts?: ArtifactOptions;
  /**
   * What is deleted, and when: ended runs after N days, idle sessions, old memories and artifact
   * versions, for every agent or per agent; swept in the background by one node at a time (see
   * `Retention`). Without it (the default) nothing is ever deleted.
   */
  readonly retention?: RetentionOptions;
}

/** How to start a run. */
export interface StartOptions {
  /** Whom the run acts for. Default `local`. */
  readonly principal?: string;
  /** Limits for this run, replacing the agent's where given. */
  readonly budget?: Budget;
  /**
   * The session the run continues (see `createSession`): the model sees the session's earlier
   * conversation, and the run reads and writes its state. Runs of a session take turns: starting
   * one while the run before is going throws `SessionBusyError`.
   */
  readonly session?: string;
  /**
   * Whether `start` resolves only once the run's start is on disk (a durability barrier), so that
   * the id it returns names a run a crash can't lose. Default `true`. `false` is for a caller that
   * tells nobody the id before the run parks or ends (as `run` does, which is never durable at its
   * start): the start then rides to disk with the run's first barrier (a call's intent, a park, its
   * end), one commit and fsync fewer; a crash before that leaves no run at all. A run that
   * continues a `session` always starts durably. `run` ignores this option.
   *
   * @example
   * ```ts
   * // The caller waits for the end and hands out nothing before it: no barrier at the start.
   * const { runId } = await wardrik.start('support', 'Where is order A1?', { durable: false })
   * const result = await wardrik.wait(runId)
   * ```
   */
  readonly durable?: boolean;
}

export type { RunResult } from './run-result.js';

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
  try {
    await options.store.lockForRuntime();
    await options.store.migrate();
    await wardrik.loadAllowances();
    if (options.recover !== false) await wardrik.recover();
    await wardrik.watchExternalWork();
    wardrik.retention.start();
  } catch (thrown) {
    await wardrik.close().catch(() => {});
    throw thrown;
  }
  return wardrik;
}

/** The runtime: starts, drives, parks, resumes, cancels and recovers runs. Make it with `createWardrik`. */
export class Wardrik {
  readonly store: Store;
  /** The workers connected to this node and the tools they offer. */
  readonly workers: WorkerHub;
  readonly #agents: AgentDirectory;
  /**
   * What happens between journal records (model calls, call attempts, parks, commits, workers), for
   * telemetry and other listeners: see `Hooks`.
   */
  readonly hooks = new Hooks((name) =>
    name === 'store-committed'
      ? this.store.onCommit?.((commit) => this.hooks.emit('store-committed', commit))
      : undefined,
  );
  /** The names of the agents this node defines: the runs it may take over. */
  readonly #agentNames: readonly string[];
  readonly #hub = new EventHub();
  readonly #deps: DriverDeps;
  /** Runs in memory: being driven, or briefly while answered or cancelled. */
  readonly #drivers = new Map<string, RunDriver>();
  readonly #driving = new Map<string, Promise<void>>();
  readonly #locks = new RunLocks();
  readonly #waiters = new RunWaiters<RunResult>();
  readonly #resting = new RestingRuns<RunDriver>(RESTING_RUNS);
  /** Standing decisions: tools a person allowed for an agent. */
  readonly #allowed = new Map<string, Set<string>>();
  readonly #failureListeners = new Set<(error: StoreError) => void>();
  #failure: StoreError | undefined;
  readonly #stopListening: () => void;
  readonly #stopSignals: () => void;
  readonly #ownership: Ownership;
  /** What checking a person's edited arguments needs (see `checkEditedArguments`). */
  readonly #editCheck: EditCheckDeps;
  readonly #maxRuns: number;
  readonly #claimIntervalMs: number;
  #claimTimer: NodeJS.Timeout | undefined;
  /** The claim pass under way, if any (passes never overlap). */
  #claiming: Promise<{ resumed: number; needAttention: number }> | undefined;
  #claimAgain = false;
  /** Followers of runs' events, told when a run's journal grows on another node. */
  readonly #appendListeners = new Map<string, Set<(seq: number) => void>>();
  #closed = false;
  readonly #sessions: Sessions;
  readonly #external: ExternalWorkDesk;
  /** Questions a person is asked for long-running work (`requestInputFor`). */
  readonly #workQuestions: WorkQuestions;
  readonly #services: Services;
  /** Set once `drain` began: this node takes no new runs or answers. */
  #draining: Promise<DrainReport> | undefined;
  /** Deletes what retention no longer keeps: the background sweep, and purges on request. */
  readonly retention: Retention;

  constructor(options: WardrikOptions) {
    this.store = options.store;
    this.workers = new WorkerHub(options.workers);
    if (!Array.isArray(options.agents)) throw new AgentDefinitionError('agents: expected an array of agents');
    this.#agents = new AgentDirectory(options.agents);
    this.#agentNames = this.#agents.all().map((agent) => agent.name);
    this.#services = new Services({
      store: options.store,
      memory: options.memory,
      artifacts: options.artifacts,
      now: options.now ?? Date.now,
      agent: (name) => this.#agent(name),
    });
    // Only then: a listener to every run's events would make every run build events nobody reads.
    if (this.#services.remembersRuns) this.hooks.on('run-ended', (event) => this.#services.runEnded(event.runId));
    // This process's life as its node: leases and the calls that may end in doubt name it.
    const incarnation = randomUUID();
    this.#deps = {
      store: options.store,
      hub: this.#hub,
      incarnation,
      toolRetry: { ...defaultToolRetry, ...options.toolRetry },
      modelRetry: { ...defaultModelRetry, ...options.modelRetry },
      now: options.now ?? Date.now,
      durableAnswers: options.durableAnswers ?? true,
      workers: this.workers,
      ...(options.policy ? { policy: checkPolicy(options.policy, 'policy') } : {}),
      isAllowedForAgent: (agent, tool) => this.#allowed.get(agent)?.has(tool) === true,
      toolsetTimeoutMs: checkedMs(options.toolsetTimeoutMs ?? 10_000, 'toolsetTimeoutMs'),
      onExternalPark: (park) => this.#external.parked(park),
      completeExternal: async (handle, outcome) => {
        await this.completeExternal(handle, outcome);
      },
      requestInputFor: (handle, question, options) => this.requestInputFor(handle, question, options),
      agents: this.#agents,
      hooks: this.hooks,
      callServices: this.#services,
      runChild: (request) =>
        runChild(
          {
            exists: async (runId) => (await this.store.getRun(runId)) !== undefined,
            start: (child) => this.#startChild(child),
            wait: (runId) => this.wait(runId),
            cancel: (runId, reason) => this.cancel(runId, reason),
          },
          request,
        ),
      childStateWrites: (childRunId) => this.#childStateWrites(childRunId),
    };
    this.#external = new ExternalWorkDesk({
      store: options.store,
      now: this.#deps.now,
      answer: (park, decision, by) => this.#answerPark(park.id, decision, { callHash: park.callHash, by }),
      onWaiting: (parks) => this.#settleChildren(parks),
      onError: (error) => {
        if (StoreError.isInstance(error)) this.#fail(error);
      },
    });
    this.#workQuestions = new WorkQuestions({
      findWork: (handle) => this.#external.openPark(handle),
      open: (work, question) => this.#askForWork(work, question),
      getPark: (parkId) => this.store.getPark(parkId),
      withdraw: (park, reason) => this.#withdrawQuestion(park, reason),
      onAppended: (runId, listener) => this.#onAppended(runId, listener),
    });
    this.#editCheck = {
      agents: this.#agents,
      workers: this.workers,
      store: options.store,
      toolsetTimeoutMs: this.#deps.toolsetTimeoutMs,
    };
    this.#sessions = new Sessions({
      store: options.store,
      now: this.#deps.now,
      agent: (name) => this.#agent(name),
      runState: (runId) => this.#runState(runId),
    });
    this.#stopListening = options.store.onFailure((error) => this.#fail(error));
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isFinite(leaseMs) || leaseMs < 10) {
      throw new InvalidInputError(`leaseMs: expected a number of ms of at least 10, got ${String(leaseMs)}`);
    }
    const node = options.node ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.#ownership = new Ownership(
      options.store,
      { node, incarnation, leaseMs },
      {
        lost: (runIds) => {
          for (const runId of runIds) this.#lose(runId);
        },
      },
    );
    this.retention = new Retention({
      store: options.store,
      node,
      now: this.#deps.now,
      agents: this.#agents.all().map((agent) => ({ name: agent.name, app: agent.app })),
      options: checkRetention(options.retention, 'retention'),
    });
    this.#maxRuns = options.maxRuns ?? DEFAULT_MAX_RUNS;
    this.#claimIntervalMs = options.claimIntervalMs ?? DEFAULT_CLAIM_INTERVAL_MS;
    this.#stopSignals = options.store.onRunSignal((signal) => this.#onSignal(signal));
    this.#ownership.start();
    this.workers.onConnection((event) => {
      if (event.type === 'connected' && this.hooks.has('worker-connected')) {
        this.hooks.emit('worker-connected', { worker: event.worker, principal: event.principal });
      } else if (event.type === 'disconnected' && this.hooks.has('worker-disconnected')) {
        this.hooks.emit('worker-disconnected', {
          worker: event.worker,
          principal: event.principal,
          reason: event.reason,
        });
      }
    });
    // Workers across nodes: this node's workers serve runs driven on the others, theirs runs driven here.
    this.workers.join({ store: options.store, node, leaseMs });
  }

  /**
   * Long-term memory across sessions (ADK's memory service): add a session's messages, search a
   * principal's memories in an agent's app. Tools search it through `context.memory` (or the
   * `loadMemory` tool).
   *
   * @example
   * ```ts
   * await wardrik.memory.addSession(session.id)
   * const found = await wardrik.memory.search({ agent: 'support', principal: 'customer-7', query: 'refund A1' })
   * ```
   */
  get memory(): RuntimeMemory {
    return this.#services.memory;
  }

  /**
   * Artifacts (ADK's artifact service): named files of a session (or of its principal, `user:`
   * names), each save a new version. Tools use them through `context.artifacts` (or the
   * `loadArtifacts` tool).
   *
   * @example
   * ```ts
   * await wardrik.artifacts.save(session.id, 'notes.txt', new TextEncoder().encode('hello'), { mediaType: 'text/plain', by: 'olga' })
   * const latest = await wardrik.artifacts.load(session.id, 'notes.txt')
   * ```
   */
  get artifacts(): RuntimeArtifacts {
    return this.#services.artifacts;
  }

  /** This node's name, as its leases name it. */
  get node(): string {
    return this.#ownership.terms.node;
  }

  /**
   * Set once the store failed (a disk full, an I/O error): from then on this Wardrik takes no work —
   * `start`, `answerPark`, `cancel` and `releaseLabels` throw it, pending `wait`s reject with it —
   * and the process should exit so that a supervisor restarts it; recovery then resumes every run
   * from what is on disk. (`wardrik serve` does exactly that, and `/v1/health` answers 503.)
   */
  get failure(): StoreError | undefined {
    return this.#failure;
  }

  /**
   * Calls `listener` once if the store fails (see `failure`). Returns the function that stops listening.
   *
   * @example
   * ```ts
   * wardrik.onFailure((error) => {
   *   console.error(`the store failed: ${error.message}; exiting so that recovery resumes the runs`)
   *   process.exit(1)
   * })
   * ```
   */
  onFailure(listener: (error: StoreError) => void): () => void {
    if (this.#failure) {
      const failure = this.#failure;
      queueMicrotask(() => listener(failure));
      return () => {};
    }
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  /** The agents this runtime runs: those it was given, their sub-agents and the agents their tools call. */
  agents(): Agent[] {
    return this.#agents.all();
  }

  /**
   * Starts a run and returns its id once the run is on disk (it can't be lost after that) — or,
   * with `durable: false`, at once, its start riding to disk with the run's first barrier.
   *
   * @example
   * ```ts
   * const { runId } = await wardrik.start('support', 'Refund order A1', { principal: 'user-7' })
   * ```
   */
  async start(agentName: string, input: string, options: StartOptions = {}): Promise<{ runId: string }> {
    if (options.durable !== undefined && typeof options.durable !== 'boolean')
      throw new InvalidInputError('durable: expected true or false');
    return this.#start(agentName, input, options, { durable: options.durable ?? true });
  }

  /**
   * Starts a run. `durable`: its start is on disk before this resolves (a barrier: `start` returns
   * an id someone may keep). `run` needs none: its caller learns nothing until the run parks or
   * ends, so the start rides to disk with the run's first real barrier (a call's intent, a park,
   * its end); a crash before that loses a run nobody was told of.
   */
  async #start(
    agentName: string,
    input: string,
    options: StartOptions,
    { durable }: { durable: boolean },
  ): Promise<{ runId: string }> {
    this.#checkTakingWork();
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
    const runId = timeOrderedId('run');
    const session =
      options.session === undefined
        ? undefined
        : await this.#sessions.takeTurn(options.session, agent, principal, runId);
    await this.#begin(agent, runId, {
      input,
      principal,
      budget,
      ...(options.session === undefined ? {} : { session: options.session }),
      ...(session?.history.length ? { history: session.history } : {}),
      ...(session?.labels.length ? { labels: [...session.labels] } : {}),
      // A session names its turn's run as soon as it is taken: that run is on disk at once.
      durable: durable || options.session !== undefined,
    });
    return { runId };
  }

  /** Starts the child run of a call of an agent tool (see `agentTool`), with the parent's labels and what is left of its budget. */
  async #startChild(request: ChildRunRequest): Promise<void> {
    this.#checkOpen();
    const agent = this.#agent(request.agent);
    const budget: { -readonly [K in keyof Budget]: Budget[K] } = { ...agent.budget };
    for (const key of ['usd', 'tokens'] as const) {
      const left = request.budget[key];
      if (left !== undefined) budget[key] = Math.min(left, budget[key] ?? left);
    }
    await this.#begin(agent, request.childRunId, {
      input: request.input,
      principal: request.principal,
      budget,
      ...(request.labels.length ? { labels: [...request.labels] } : {}),
      parent: request.parent,
      // The child shares its parent's invocation: session, app and run-only state.
      ...(request.session === undefined ? {} : { session: request.session }),
      app: request.app,
      ...(request.state.length ? { state: request.state } : {}),
      // The parent journaled the child's id durably, and a repeated call starts it again if lost.
      durable: false,
    });
  }

  /** Journals a run's start (durably, or with the run's next barrier) and drives it. */
  async #begin(
    agent: Agent,
    runId: string,
    start: {
      readonly input: string;
      readonly principal: string;
      readonly budget: Budget;
      readonly session?: string;
      readonly history?: RunStartedRecord['history'];
      readonly labels?: readonly Label[];
      readonly parent?: ParentLink;
      /** Whose `user:` and `app:` state the run reads, when not its agent's (a child run: its parent's). */
      readonly app?: string;
      /** The run-only state it starts with (a child run: its parent's). */
      readonly state?: readonly StateWrite[];
      readonly durable: boolean;
    },
  ): Promise<void> {
    const driver = new RunDriver(agent, emptyState(runId), this.#deps);
    const trace = this.hooks.runTrace({ runId, agent: agent.name, ...(start.parent ? { parent: start.parent } : {}) });
    this.#drivers.set(runId, driver);
    // Held until it is driven: a cancel sent as soon as run-started is seen waits, then finds it driven.
    const release = await this.#locks.acquire(runId);
    try {
      driver.lease = await this.#ownership.claim(runId);
      if (!driver.lease) throw new StoreError(`run ${runId} is new, yet another node holds its lease`);
      await driver.begin(
        {
          v: JOURNAL_VERSION,
          at: this.#deps.now(),
          type: 'run-started',
          agent: agent.name,
          principal: start.principal,
          input: start.input,
          budget: start.budget,
          maxSteps: agent.maxSteps,
          app: start.app ?? agent.app,
          ...(start.session === undefined ? {} : { session: start.session }),
          ...(start.history ? { history: start.history } : {}),
          ...(start.labels ? { labels: start.labels } : {}),
          ...(start.parent ? { parent: start.parent } : {}),
          ...(start.state ? { state: start.state } : {}),
          ...(trace ? { trace } : {}),
        },
        { durable: start.durable },
      );
    } catch (cause) {
      this.#drivers.delete(runId);
      release();
      if (this.hooks.has('run-start-failed')) {
        // Telemetry ends what it began for the run (its span), and logs why.
        this.hooks.emit('run-start-failed', {
          runId,
          agent: agent.name,
          ...(trace ? { trace } : {}),
          error: describeReason(cause),
        });
      }
      if (StoreError.isInstance(cause)) this.#fail(cause);
      throw cause;
    }
    this.#drive(driver, { fresh: true });
    release();
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
    const { runId } = await this.#start(agentName, input, options, { durable: false });
    return this.wait(runId);
  }

  /**
   * Waits until the run ends or parks (at once if it has). Rejects with `StoreError` if the store
   * fails meanwhile, and with `RunNeedsAttentionError` for a run whose journal can't be loaded.
   */
  async wait(runId: string): Promise<RunResult> {
    this.#checkUsable();
    if (this.#drivers.has(runId)) return this.#waiters.wait(runId);
    // Waiting first, then reading: a run that parks or ends on another node in between is not missed.
    const waited = this.#waiters.wait(runId);
    const row = await this.store.getRun(runId);
    if (!row) {
      this.#waiters.reject(runId, new RunNotFoundError(`no run ${JSON.stringify(runId)}`));
      return waited;
    }
    if (row.status === 'running' && row.attention !== undefined) {
      this.#waiters.reject(runId, new RunNeedsAttentionError(`run ${runId} needs attention: ${row.attention}`));
      return waited;
    }
    if (row.status !== 'running' && !this.#drivers.has(runId)) {
      const settled = await this.#settledRow(runId, row);
      if (settled) this.#waiters.settle(runId, await this.#result(settled));
    }
    // Else it is driven here now, or elsewhere (its end reaches us as a signal), or waits for a node
    // to take it over (recovery), or for its holder to act on an answer another node recorded.
    return waited;
  }

  /**
   * Cancels a run. An active run stops its model step or calls (their signals abort); a parked
   * run ends at once and its parks close. Throws `RunEndedError` if it has ended.
   */
  async cancel(runId: string, reason = 'cancelled by request'): Promise<RunResult> {
    this.#checkOpen();
    const cancelled = await this.#locks.hold(runId, async (): Promise<RunResult | undefined> => {
      // Decided under the run's lock, on what is true now: nobody else starts driving it meanwhile.
      const active = this.#driving.has(runId) ? this.#drivers.get(runId) : undefined;
      if (active) {
        active.cancel(reason);
        return undefined; // the driver ends it; wait below, outside the lock
      }
      let driver: RunDriver;
      try {
        driver = await this.#load(runId);
      } catch (thrown) {
        if (RunNeedsAttentionError.isInstance(thrown)) return this.#cancelUnloadable(runId, reason);
        if (!RunHeldElsewhereError.isInstance(thrown)) throw thrown;
        // Another node drives it: it acts on the request (and the end reaches our wait as a signal).
        await this.#guard(this.store.requestCancel(runId, reason, this.#deps.now()));
        return undefined;
      }
      if (driver.ended) {
        this.#afterLockedWrite(driver);
        throw new RunEndedError(`run ${runId} has ended (${driver.state.status})`);
      }
      await this.#guard(driver.cancelParked(reason));
      this.#settle(driver);
      return this.#stateResult(driver);
    });
    return cancelled ?? this.wait(runId);
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
    await this.#answerPark(parkId, decision, options, { carried: false });
  }

  /**
   * `answerPark`; `carried`: the decision delivers a result of external work, whose labels and
   * cost (`CarriedByResult`) it keeps (a person's answer can't set them).
   */
  async #answerPark(
    parkId: string,
    decision: ParkDecision,
    options: AnswerOptions,
    { carried = true }: { carried?: boolean } = {},
  ): Promise<void> {
    this.#checkTakingWork();
    const park = await this.store.getPark(parkId);
    if (!park) throw new ParkNotFoundError(`no park ${JSON.stringify(parkId)}`);
    let checked = carried
      ? withCarried(checkDecision(park.kind, decision), decision)
      : checkDecision(park.kind, decision);
    if (typeof options?.callHash !== 'string') {
      throw new StaleParkAnswerError('callHash: required; pass the park.callHash of the park you were shown');
    }
    if (checked.type === 'retry' && park.kind === 'in_doubt' && park.holder && !checked.previousHolderStopped) {
      await this.#checkHolderStopped(park, park.holder);
    }
    // Accepting a question: what the person filled in must fit its schema (its defaults filled in).
    if (park.kind === 'input') checked = checkInputAnswer(park, checked);
    // An edit the tool would refuse is refused now, naming the fields, and the park stays open.
    if (checked.type === 'edit' && park.call) {
      const run = this.#drivers.get(park.runId)?.state ?? (await this.#runState(park.runId));
      await checkEditedArguments(this.#editCheck, run, park.call.name, checked.arguments);
    }
    const by = options.by ?? 'local';
    await this.#locks.hold(park.runId, async () => {
      this.#checkOpen();
      let driver: RunDriver;
      try {
        driver = await this.#loadOrMark(park.runId);
      } catch (thrown) {
        if (!RunHeldElsewhereError.isInstance(thrown)) throw thrown;
        // Another node drives the run: the answer is recorded now, and that node journals it.
        await this.#guard(
          this.store.requestAnswer({ parkId, decision: checked, by, at: this.#deps.now(), callHash: options.callHash }),
        );
        if (checked.type === 'approve' && checked.remember === 'agent' && park.call) {
          await this.#rememberForAgent(park, by);
        }
        return;
      }
      // Settled however the answer goes: a driver loaded for it is driven on, or rested again.
      try {
        const current = driver.state.parks.get(parkId);
        if (current?.status !== 'open') {
          throw new ParkAlreadyAnsweredError(
            `park ${parkId} is ${current?.status ?? 'unknown'}: it takes one answer only`,
          );
        }
        if (current.callHash !== options.callHash) {
          throw new StaleParkAnswerError(
            `park ${parkId} now holds another call than the one answered; look at it again`,
          );
        }
        await this.#guardDriver(driver, driver.answer(park, checked, by));
        if (park.kind === 'input') this.#workQuestions.answered(park.id, checked);
        if (checked.type === 'approve' && checked.remember === 'agent' && current.call) {
          await this.#rememberForAgent(current, by);
        }
      } finally {
        if (!driver.lease || this.#ownership.holds(driver.lease)) this.#afterLockedWrite(driver);
      }
    });
    // A person answered a wait on a child run in its stead: the child is no longer waited for.
    if (!carried) this.#cancelChild(park.handle, `a person (${by}) answered its parent's wait instead`);
  }

  /**
   * Refuses a `retry` of a call another process started and may still finish (paused past its
   * lease, not stopped): running it again now could run it twice. Fine when that process can't
   * be running (see `RunStore.leaseHolderState`).
   */
  async #checkHolderStopped(park: ParkRow, holder: CallHolder): Promise<void> {
    const state = await this.#guard(this.store.leaseHolderState(holder.node, holder.incarnation));
    if (state === 'stopped') return;
    const now =
      state === 'alive'
        ? 'it is running now (it holds live leases): it may still finish the call'
        : 'it holds no live lease now, yet it may be paused rather than stopped and finish the call when it wakes';
    throw new InvalidParkAnswerError(
      `decision: park ${park.id} holds a call node ${holder.node} (lease epoch ${holder.epoch}) started` +
        `${holder.startedAt === undefined ? '' : ` at ${new Date(holder.startedAt).toISOString()}`} before it lost the run; ${now}. ` +
        'Retrying could run the call twice. Check that it had no effect and that the node has stopped, then answer ' +
        "{ type: 'retry', previousHolderStopped: true } (CLI: wardrik answer PARK retry --previous-holder-stopped)",
    );
  }

  /** Records a person's standing decision for the park's tool and agent (`remember: 'agent'`). */
  async #rememberForAgent(park: ParkRow | (ParkRow & { readonly status: string }), by: string): Promise<void> {
    if (!park.call) return;
    const agent = (await this.getRunSummary(park.runId)).agent;
    await this.#guard(this.store.putAllowance({ agent, tool: park.call.name, by, at: Date.now(), parkId: park.id }));
    this.#remember(agent, park.call.name);
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
    this.#checkTakingWork();
    return this.#locks.hold(runId, async () => {
      const driver = await this.#loadOrMark(runId);
      try {
        if (driver.ended) throw new RunEndedError(`run ${runId} has ended (${driver.state.status})`);
        const missing = labels.filter((label) => !driver.state.labels.includes(label));
        if (missing.length) throw new InvalidInputError(`labels: the run does not carry ${missing.join(', ')}`);
        await this.#guardDriver(driver, driver.releaseLabels(labels, options.by, options.reason));
        return this.#stateResult(driver);
      } finally {
        this.#afterLockedWrite(driver);
      }
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

  /**
   * How many parks are open in the store (every node's), by kind; kinds with none are left out.
   * Counted by the store (an index), not by listing them: `wardrik_parks_open` reads it at each scrape.
   *
   * @example
   * ```ts
   * const open = await wardrik.countOpenParks() // { approval: 3, in_doubt: 1 }
   * ```
   */
  countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    return this.store.countOpenParks();
  }

  async getPark(parkId: string): Promise<ParkRow> {
    const park = await this.store.getPark(parkId);
    if (!park) throw new ParkNotFoundError(`no park ${JSON.stringify(parkId)}`);
    return park;
  }

  /**
   * Calls `listener` with a run's id each time its journal grows on another node (a store shared by
   * many nodes tells): for a surface that follows many runs (the console's inbox) beside
   * `subscribe`, which hears this node's own. Signals are hints: look at the run to see what changed.
   * Returns the function that stops listening.
   *
   * @example
   * ```ts
   * const stop = wardrik.onRunChangedElsewhere((runId) => console.log(`run ${runId} moved on another node`))
   * ```
   */
  onRunChangedElsewhere(listener: (runId: string) => void): () => void {
    return this.store.onRunSignal((signal) => {
      if (signal.type === 'appended') listener(signal.runId);
    });
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
  follow(runId: string, options: FollowOptions = {}): AsyncGenerator<RunEvent> {
    return followRun(
      {
        store: this.store,
        subscribe: (listener) => this.#hub.subscribe(runId, listener),
        onAppended: (listener) => this.#onAppended(runId, listener),
        drivenHere: () => this.#drivers.has(runId),
      },
      runId,
      options,
    );
  }

  /**
   * Re-drives the runs that were running when the process stopped — or, on a store shared by many
   * nodes, that a node lost: a call with an intent but no answer is repeated if repeatable and
   * otherwise parked `in_doubt`; a lost model step is made again. From then on this node keeps
   * looking for runs to take over (`claimIntervalMs`), up to `maxRuns` driven at once.
   */
  async recover(): Promise<{ resumed: number; needAttention: number }> {
    this.#checkOpen();
    const counts = await this.#claimPass();
    if (!this.#claimTimer && !this.#closed) {
      this.#claimTimer = setInterval(() => this.#claimSoon(), this.#claimIntervalMs);
      this.#claimTimer.unref();
    }
    return counts;
  }

  /** Starts a claim pass, or asks the one under way to go round once more. */
  #claimSoon(): void {
    if (this.#closed || this.#failure || this.#draining) return;
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    // A failed pass is tried again at the next tick (a store that failed says so through onFailure).
    this.#claimPass().catch(() => {});
  }

  /**
   * Takes over the runs that need driving and nobody holds, a batch at a time, until none is left
   * or `maxRuns` are driven. A batch is loaded before it is driven: reads flush pending writes, so
   * loading while the runs already taken are writing would cost a commit per run. Each run's lock
   * is held from its load to its drive, so an answer or a cancel meanwhile waits, then finds it driven.
   */
  #claimPass(): Promise<{ resumed: number; needAttention: number }> {
    if (this.#claiming) return this.#claiming;
    const pass = (async () => {
      let resumed = 0;
      let needAttention = 0;
      do {
        this.#claimAgain = false;
        for (;;) {
          const room = Math.min(RECOVERY_BATCH, this.#maxRuns - this.#drivers.size);
          // Only runs of agents this node defines: a node takes what it can drive.
          const leases = await this.#ownership.claimMany(room, this.#agentNames);
          const counts = await this.#takeOver(leases);
          resumed += counts.resumed;
          needAttention += counts.needAttention;
          if (leases.length < room || room <= 0) break;
        }
        await this.loadAllowances();
        // Waited for here but driven elsewhere: in case a signal of its end was missed.
        for (const runId of this.#waiters.runIds()) if (!this.#drivers.has(runId)) this.#settleFromStore(runId);
      } while (this.#claimAgain && !this.#closed);
      return { resumed, needAttention };
    })();
    this.#claiming = pass;
    return pass.finally(() => {
      this.#claiming = undefined;
    });
  }

  /** Loads the runs just claimed, acts on their requests, and drives those that can go on. */
  async #takeOver(leases: readonly Lease[]): Promise<{ resumed: number; needAttention: number }> {
    let resumed = 0;
    let needAttention = 0;
    const loaded: RunDriver[] = [];
    const releases: Array<() => void> = [];
    let failure: unknown;
    try {
      for (const lease of leases) {
        releases.push(await this.#locks.acquire(lease.runId));
        const current = this.#drivers.get(lease.runId);
        // Taken up here meanwhile (an answer this node journaled): driven under this very lease.
        if (current?.lease?.epoch === lease.epoch) continue;
        if (current) {
          // Still stopping, a driver under a lease that was lost (the store had none live for the
          // run; a write of it may hang): the run goes on under the new lease once it has stopped.
          this.#takeUpAfter(current);
          continue;
        }
        try {
          const driver = await this.#broughtUp(lease.runId, { lease });
          if (!driver.ended && driver.state.openParks === 0) loaded.push(driver);
          else this.#afterLockedWrite(driver);
        } catch (thrown) {
          if (RunNeedsAttentionError.isInstance(thrown)) {
            // One run that can't be loaded must not keep the others from being recovered. Its lease
            // stays with this node, so that nodes don't take turns failing to load it.
            const row = await this.store.getRun(lease.runId);
            if (row && row.attention === undefined) await this.#markAttention(row, thrown.message, lease);
            needAttention += 1;
            continue;
          }
          // Anything else (a store that failed, a lease lost meanwhile): this run's lease was given
          // back (see #broughtUp), and the runs loaded before it are driven all the same; the
          // failure is told once they are.
          failure ??= thrown;
          if (StoreError.isInstance(thrown)) this.#fail(thrown);
        }
      }
      for (const driver of loaded) {
        if (this.#failure) break; // the store failed: nothing can be driven here any more
        if (this.#drivers.has(driver.runId)) continue;
        this.#drive(driver);
        resumed += 1;
      }
    } finally {
      for (const release of releases) release();
    }
    if (failure !== undefined) throw failure;
    return { resumed, needAttention };
  }

  /** How many runs are in memory (being driven). Parked runs are not. */
  get activeRuns(): number {
    return this.#drivers.size;
  }

  /** Resolves once the store answers a trivial read (a readiness probe); rejects with `StoreError` if it does not. */
  ping(): Promise<void> {
    return this.store.ping();
  }

  /** Whether the node drains (see `drain`): it takes no new runs or answers. */
  get draining(): boolean {
    return this.#draining !== undefined;
  }

  /**
   * Drains this node before it stops: from now on it takes no new runs, answers or take-overs
   * (`start`, `answerPark`, `releaseLabels`, `completeExternal` throw `NodeStoppingError`), and
   * each run it drives stops at its next safe point within `graceMs` — its next journal record
   * with no call in flight, or before its next model call — so that calls under way finish and
   * are journaled rather than left in doubt. Each run's lease is given back as soon as it stops, so
   * that another node sharing the store takes it over at once. Past `graceMs`, what still goes
   * stops where it is (the journal decides how it goes on, as after a crash). Call `close()` after.
   *
   * @example
   * ```ts
   * process.once('SIGTERM', async () => {
   *   await wardrik.drain({ graceMs: 20_000 })
   *   await wardrik.close()
   * })
   * ```
   */
  drain(options: { readonly graceMs: number }): Promise<DrainReport> {
    if (this.#draining) return this.#draining;
    const graceMs = options?.graceMs;
    if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
      throw new InvalidInputError(`graceMs: expected a number of ms of at least 0, got ${String(graceMs)}`);
    }
    if (this.#claimTimer) clearInterval(this.#claimTimer);
    this.#claimTimer = undefined;
    const driven = (driver: RunDriver) => ({
      runId: driver.runId,
      calls: () => driver.state.calls,
      stop: () => driver.stop(),
      done: this.#driving.get(driver.runId) ?? Promise.resolve(),
      handOver: () => this.#handOver(driver),
    });
    this.#draining = drainRuns(
      {
        driven: () => [...this.#drivers.values()].filter((driver) => this.#driving.has(driver.runId)).map(driven),
        find: (runId) => {
          const driver = this.#drivers.get(runId);
          return driver && this.#driving.has(runId) ? driven(driver) : undefined;
        },
        onRecord: (listener) =>
          this.#hub.subscribe('*', (event) => {
            if (isJournaled(event)) listener(event.runId, event.type);
          }),
        onModelCall: (listener) => this.hooks.on('model-call-started', (event) => listener(event.runId)),
      },
      { graceMs },
    ).then((report) => {
      // Whoever waits for a run that goes on elsewhere hears so now (the run is on disk).
      this.#waiters.rejectAll(
        (runId) =>
          new NodeStoppingError(
            `this node stopped before run ${runId} ended or parked; it goes on on another node (or when this one restarts)`,
          ),
      );
      return report;
    });
    return this.#draining;
  }

  /**
   * Gives back the lease of a run whose driver stopped while draining, so that another node takes
   * it over at once (a run that parked or ended gave its lease up already).
   */
  async #handOver(driver: RunDriver): Promise<void> {
    const lease = driver.lease;
    if (!lease || this.#drivers.get(driver.runId) === driver || driver.ended) return;
    if (this.#ownership.holds(lease)) await this.#ownership.release(lease);
  }

  /**
   * Stops driving (runs stay `running` on disk and are recovered by the next start), then closes
   * the store.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.retention.stop();
    if (this.#claimTimer) clearInterval(this.#claimTimer);
    this.#external.close();
    this.#workQuestions.close();
    this.#ownership.stop();
    for (const driver of this.#drivers.values()) driver.stop();
    this.workers.close();
    await Promise.allSettled([...this.#driving.values(), this.#locks.idle(), this.#claiming]);
    await Promise.allSettled(
      this.#agents
        .all()
        .flatMap((agent) => agent.toolsets)
        .map(async (toolset) => toolset.close?.()),
    );
    // Other nodes may take over at once what this one drove (on one node: recovery, next start).
    if (!this.#failure) await this.#ownership.releaseAll();
    this.#resting.clear();
    this.#stopListening();
    this.#stopSignals();
    this.#waiters.rejectAll(
      (runId) => new InvalidInputError(`this Wardrik closed before run ${runId} ended or parked`),
    );
    await this.workers.leave();
    await this.#services.settled();
    await this.store.close();
  }

  /**
   * Delivers the result of work a long-running tool started (`started` from @wardrik/core) to the
   * run waiting for it, on any node, after any restart: `{ value }` becomes the tool's answer,
   * `{ error }` tells the model the work failed. If the tool is still returning (the work finished
   * at once), the result waits up to `waitMs` (default 10 s) for the run to park. Throws
   * `ParkNotFoundError` if no run waits for `handle`.
   *
   * @example
   * ```ts
   * // the translator's webhook:
   * app.post('/hooks/translated', async (c) => {
   *   const { jobId, url } = await c.req.json()
   *   await wardrik.completeExternal(jobId, { value: { url } })
   *   return c.body(null, 204)
   * })
   * ```
   */
  async completeExternal(
    handle: string,
    outcome: ExternalOutcome,
    options: { by?: string; waitMs?: number } = {},
  ): Promise<{ parkId: string; runId: string }> {
    this.#checkTakingWork();
    return this.#external.complete(handle, outcome, options);
  }

  /**
   * Asks a person on behalf of long-running work: work a tool started (its call answered
   * `started` with `handle`) that needs input before it can finish, as an MCP task that turns
   * `input_required`. The run waiting for the work shows a park of kind `input` (its call the one
   * that started the work), answered like any park, on any node; resolves with the reply. Rejects
   * with `ParkNotFoundError` when no run waits for `handle`, and when the work's result comes, the
   * run ends or `signal` aborts first (the question is then withdrawn). Tools get it on their
   * context (`context.requestInputFor`); a toolset that follows its work after a restart gets it
   * in `resume`.
   *
   * @example
   * ```ts
   * const reply = await wardrik.requestInputFor('job-42', {
   *   mode: 'form',
   *   message: 'The translator asks: formal or informal?',
   *   schema: { type: 'object', properties: { register: { type: 'string', enum: ['formal', 'informal'] } } },
   * })
   * ```
   */
  async requestInputFor(
    handle: string,
    question: InputQuestion,
    options: { signal?: AbortSignal } = {},
  ): Promise<InputReply> {
    this.#checkTakingWork();
    return this.#workQuestions.ask(handle, question, options.signal);
  }

  /** Journals a question for the work `work` waits for, in its run (claimed for the write, then rested again). */
  async #askForWork(work: ParkRow, question: InputQuestion): Promise<Park> {
    const callId = work.call?.callId ?? '';
    for (let tries = 1; ; tries++) {
      try {
        return await this.#locks.hold(work.runId, async () => {
          this.#checkOpen();
          const driver = await this.#loadOrMark(work.runId);
          try {
            return await this.#guardDriver(driver, driver.askForWork(callId, question));
          } finally {
            this.#afterLockedWrite(driver);
          }
        });
      } catch (thrown) {
        // Another node holds the run a moment (answering one of its parks): ask again shortly.
        if (!RunHeldElsewhereError.isInstance(thrown) || tries >= 50) throw thrown;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /**
   * Withdraws the questions asked for work (`requestInputFor`) by a process that has stopped: an
   * earlier incarnation of this node, or one the store knows is not running (a SQLite file's other
   * processes). Nobody waits for their answers; the work asks again if it still needs input.
   */
  async #withdrawOrphanedQuestions(): Promise<void> {
    const open = await this.store.listParks({ status: 'open', kind: 'input' });
    for (const park of open) {
      const holder = park.holder;
      if (!holder || holder.incarnation === this.#deps.incarnation) continue;
      const stopped =
        holder.node === this.node ||
        (await this.store.leaseHolderState(holder.node, holder.incarnation).catch(() => 'unknown')) === 'stopped';
      if (!stopped) continue;
      await this.#withdrawQuestion(
        park,
        'the node that asked for it restarted; the work asks again if it still needs it',
      ).catch(
        () => {}, // another node holds the run now: it goes on without this one
      );
    }
  }

  /** Withdraws a question asked for work whose asker stopped waiting, if this node can take its run. */
  async #withdrawQuestion(park: Park, reason: string): Promise<void> {
    await this.#locks.hold(park.runId, async () => {
      if (this.#closed) return;
      const driver = await this.#loadOrMark(park.runId);
      try {
        await this.#guardDriver(driver, driver.withdrawQuestion(park.id, reason));
      } finally {
        this.#afterLockedWrite(driver);
      }
    });
  }

  /**
   * Finishes a person's sign-in to a remote MCP server (the OAuth code flow) with what its callback
   * brought back, and lets the runs waiting for it go on: the runs parked as `authorize` for that
   * toolset (and principal). `wardrik serve` calls it from `GET /oauth/callback`; an app that takes
   * the callback itself calls it directly. Throws `ParkNotFoundError` when no run waits for `state`.
   *
   * @example
   * ```ts
   * // the app's redirect URL (the toolset's auth.redirectUrl):
   * app.get('/oauth/callback', async (c) => {
   *   await wardrik.completeAuthorization({ code: c.req.query('code') ?? '', state: c.req.query('state') ?? '' })
   *   return c.text('Signed in: you can close this page.')
   * })
   * ```
   */
  async completeAuthorization(callback: SignInCallback): Promise<{ runs: string[] }> {
    this.#checkTakingWork();
    return completeSignIn(
      {
        listParks: (filter) => this.store.listParks(filter),
        toolsets: () => [...new Set(this.#agents.all().flatMap((agent) => agent.toolsets))],
        answerPark: (parkId, decision, options) => this.answerPark(parkId, decision, options),
      },
      callback,
    );
  }

  /**
   * Watches the deadlines of runs waiting for external work, and hands toolsets that watch their
   * own work (`Toolset.resume`) the handles (`NAME:…`) runs still wait for (`createWardrik` does it).
   */
  async watchExternalWork(): Promise<void> {
    await this.#withdrawOrphanedQuestions();
    const handles = await this.#external.scan();
    const toolsets = new Set(this.#agents.all().flatMap((agent) => agent.toolsets));
    const completeExternal = this.#deps.completeExternal;
    for (const toolset of toolsets) {
      if (!toolset.resume || !completeExternal) continue;
      const mine = handles.filter((handle) => handle.startsWith(`${toolset.name}:`));
      if (mine.length > 0) {
        await toolset.resume({
          handles: mine,
          completeExternal,
          requestInputFor: (handle, question, options) => this.requestInputFor(handle, question, options),
        });
      }
    }
    // Worker tools' MCP tasks: followed again through their principal's workers as they connect.
    const workerTasks = handles.filter((handle) => handle.startsWith('workers/'));
    if (completeExternal && workerTasks.length > 0) {
      this.workers.resume({
        handles: workerTasks,
        completeExternal,
        requestInputFor: (handle, question, options) => this.requestInputFor(handle, question, options),
      });
    }
  }

  /**
   * Starts a session: a conversation with `agent` for `principal`, whose runs take turns, see the
   * conversation before them and share its state.
   *
   * @example
   * ```ts
   * const session = await wardrik.createSession('support', { principal: 'user-7' })
   * await wardrik.run('support', 'My order A1 is late', { principal: 'user-7', session: session.id })
   * const next = await wardrik.run('support', 'Can you refund it?', { principal: 'user-7', session: session.id })
   * ```
   */
  async createSession(agentName: string, options: { principal?: string; id?: string } = {}): Promise<SessionRow> {
    this.#checkOpen();
    return this.#sessions.create(agentName, options);
  }

  /** A session; `SessionNotFoundError` if none has this id. */
  async getSession(id: string): Promise<SessionRow> {
    this.#checkUsable();
    return this.#sessions.get(id);
  }

  /** Sessions, most recently used first. */
  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    this.#checkUsable();
    return this.#sessions.list(filter);
  }

  /** A session with its runs, its conversation and the state its next run reads. */
  async sessionDetails(id: string, options: { messages?: number } = {}): Promise<SessionDetails> {
    this.#checkUsable();
    return this.#sessions.details(id, options);
  }

  /** Deletes a session and its state (its runs stay). `SessionBusyError` while its run is going. */
  async deleteSession(id: string): Promise<void> {
    this.#checkOpen();
    await this.#sessions.delete(id);
  }

  /**
   * Changes a session's state as a person: the change is kept with who made it and why. Values
   * set this way carry no labels (a person wrote them).
   *
   * @example
   * ```ts
   * await wardrik.editSessionState(session.id, { set: { 'user:tier': 'gold' }, delete: ['cart'] }, { by: 'olga', reason: 'ticket 12' })
   * ```
   */
  async editSessionState(id: string, changes: StateChanges, edit: { by: string; reason: string }): Promise<void> {
    this.#checkOpen();
    await this.#sessions.editState(id, changes, edit);
  }

  /** A run's state rebuilt from its journal in the store. */
  /**
   * The run-only state writes a child run made, once it has ended (none before: a child still
   * going hands nothing back yet, nor does one whose journal is gone).
   */
  async #childStateWrites(childRunId: string): Promise<readonly StateWrite[]> {
    const driver = this.#drivers.get(childRunId);
    const state = driver ? driver.state : await this.#runState(childRunId).catch(() => undefined);
    if (!state || !isEnded(state.status)) return [];
    return [...state.runOnlyWrites.values()];
  }

  async #runState(runId: string): Promise<RunState> {
    const journal = await this.store.loadJournal(runId);
    try {
      return rebuildState(runId, checkJournal(runId, journal));
    } catch (thrown) {
      throw new RunNeedsAttentionError(`run ${runId} cannot be loaded: ${describeReason(thrown)}`, { cause: thrown });
    }
  }

  /** Throws if this Wardrik takes no more work: closed, or its store failed. */
  #checkOpen(): void {
    if (this.#closed) throw new InvalidInputError('this Wardrik is closed');
    this.#checkUsable();
  }

  /** `#checkOpen`, and refuses new runs and answers once the node drains (see `drain`). */
  #checkTakingWork(): void {
    this.#checkOpen();
    if (this.#draining) {
      throw new NodeStoppingError(
        'this node is stopping: it takes no new runs or answers; send them to another node, or again once it has restarted',
      );
    }
  }

  #checkUsable(): void {
    if (this.#failure) {
      throw new StoreError(
        `the store failed, so this Wardrik takes no more work; restart it to recover the runs: ${this.#failure.message}`,
        { cause: this.#failure },
      );
    }
  }

  /**
   * The store failed: what was acknowledged may not be on disk, so nothing in memory can be
   * trusted. Stop driving, reject every waiter, take no more work, tell the listeners (crash-only:
   * the process restarts and recovery resumes the runs from the store).
   */
  #fail(error: StoreError): void {
    if (this.#failure) return;
    this.#failure = error;
    if (this.#claimTimer) clearInterval(this.#claimTimer);
    this.#ownership.stop();
    for (const driver of this.#drivers.values()) driver.stop();
    this.#resting.clear();
    this.#waiters.rejectAll(() => error);
    for (const listener of [...this.#failureListeners]) {
      try {
        listener(error);
      } catch {
        // A listener's failure must not keep the others from hearing.
      }
    }
  }

  /** Awaits a write; a store failure fails the runtime (crash-only) before it is rethrown. */
  async #guard<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (thrown) {
      if (StoreError.isInstance(thrown)) this.#fail(thrown);
      throw thrown;
    }
  }

  #agent(name: string): Agent {
    const agent = this.#agents.get(name);
    if (!agent) {
      throw new AgentNotFoundError(
        `no agent ${JSON.stringify(name)}; agents: ${this.#agentNames.join(', ') || 'none'}`,
      );
    }
    return agent;
  }

  /**
   * The run's driver: the one driving it in memory, or one rebuilt from the journal (which is
   * kept in memory only if it is then driven).
   */
  async #load(runId: string, options: { known?: RunRow; lease?: Lease } = {}): Promise<RunDriver> {
    const active = this.#drivers.get(runId);
    if (active) return active;
    const lease = options.lease ?? (await this.#ownership.claim(runId));
    if (!lease) throw new RunHeldElsewhereError(`run ${runId} is driven by another node right now`);
    try {
      const driver = (await this.#rested(runId)) ?? (await this.#rebuilt(runId, options.known));
      driver.lease = lease;
      return driver;
    } catch (thrown) {
      // A run that can't be loaded keeps its lease here (see #takeOver); any other failure gives it back.
      if (!RunNeedsAttentionError.isInstance(thrown)) await this.#ownership.release(lease).catch(() => {});
      throw thrown;
    }
  }

  /** The run resting here since it parked, brought up to date with what its journal gained since. */
  async #rested(runId: string): Promise<RunDriver | undefined> {
    const rested = this.#resting.take(runId);
    if (!rested) return undefined;
    const newer = checkJournal(runId, await this.store.loadJournal(runId, rested.state.lastSeq));
    try {
      for (const stored of newer) applyRecord(rested.state, stored.seq, stored.record);
    } catch (thrown) {
      throw new RunNeedsAttentionError(`run ${runId} cannot be loaded: ${describeReason(thrown)}`, { cause: thrown });
    }
    return rested;
  }

  /** The run rebuilt from its journal. */
  async #rebuilt(runId: string, known?: RunRow): Promise<RunDriver> {
    const row = known ?? (await this.store.getRun(runId));
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    this.#agent(row.agent);
    const journal = await this.store.loadJournal(runId);
    let state: RunState;
    try {
      state = rebuildState(runId, checkJournal(runId, journal));
    } catch (thrown) {
      throw new RunNeedsAttentionError(`run ${runId} cannot be loaded: ${describeReason(thrown)}`, { cause: thrown });
    }
    // The agent of its latest step: the run was transferred there, or to one its calls run under.
    const agent = this.#agents.get(state.stepAgent);
    if (!agent) {
      throw new RunNeedsAttentionError(
        `run ${runId} cannot be loaded: it went on under agent ${state.stepAgent}, which this Wardrik does not run`,
      );
    }
    return new RunDriver(agent, state, this.#deps);
  }

  /**
   * `#load`, then the answers and a cancel other nodes left for the run (journaled in the order
   * given). A run that fails to come up here gives its lease back: kept, it would be renewed with
   * nobody driving it (`#load` does so for its own failures but a run that needs attention).
   */
  async #broughtUp(runId: string, options: { lease?: Lease } = {}): Promise<RunDriver> {
    const driver = await this.#load(runId, options);
    try {
      await this.#applyRequests(driver);
    } catch (thrown) {
      const lease = driver.lease;
      if (lease && this.#drivers.get(runId) !== driver) await this.#ownership.release(lease).catch(() => {});
      throw thrown;
    }
    return driver;
  }

  /** `#broughtUp`, marking the run as needing attention (with why) if its journal can't be loaded. */
  async #loadOrMark(runId: string): Promise<RunDriver> {
    try {
      return await this.#broughtUp(runId);
    } catch (thrown) {
      if (RunNeedsAttentionError.isInstance(thrown)) {
        const row = await this.store.getRun(runId);
        if (row && row.attention === undefined) await this.#markAttention(row, thrown.message);
      }
      throw thrown;
    }
  }

  /**
   * Notes on a run's row why its journal can't be loaded; the journal itself is never rewritten.
   * Written under the run's lease when this node holds it.
   */
  async #markAttention(row: RunRow, reason: string, lease?: Lease): Promise<void> {
    await this.#guard(
      this.store.write(
        { runId: row.id, records: [], run: { ...row, attention: reason }, ...(lease ? { lease } : {}) },
        { durable: true },
      ),
    );
  }

  /**
   * Cancels a run whose journal can't be loaded: appends its end after the last record (nothing
   * before it changes) and closes its parks.
   */
  async #cancelUnloadable(runId: string, reason: string): Promise<RunResult> {
    const row = await this.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    if (isEnded(row.status)) throw new RunEndedError(`run ${runId} has ended (${row.status})`);
    const seq = (await this.store.lastSeq(runId)) + 1;
    const at = this.#deps.now();
    const ended: RunEndedRecord = {
      v: JOURNAL_VERSION,
      at,
      type: 'run-ended',
      status: 'cancelled',
      error: reason,
      labels: [...row.labels],
      measures: { ...row.measures },
    };
    const open = await this.store.listParks({ runId, status: 'open' });
    const { attention: _attention, ...rest } = row;
    const run: RunRow = { ...rest, status: 'cancelled', error: reason, updatedAt: at };
    const lease = await this.#ownership.claim(runId);
    if (!lease) throw new RunHeldElsewhereError(`run ${runId} is held by another node right now`);
    await this.#guard(
      this.store.write(
        {
          runId,
          records: [{ runId, seq, record: ended }],
          run,
          lease,
          ...(open.length ? { closeParks: open.map((park) => park.id) } : {}),
        },
        { durable: true },
      ),
    );
    await this.#ownership.release(lease);
    this.#hub.emit(recordEvent({ runId, seq, record: ended }));
    return this.#result(run);
  }

  /**
   * After an answer or a release under the run's lock: settle a run that ended, and drive one
   * that can go on and that nobody drives (decided at once, with no await between the check and
   * the drive, so that it is driven exactly once).
   */
  #afterLockedWrite(driver: RunDriver): void {
    if (driver.ended) this.#settle(driver);
    else if (this.#driving.has(driver.runId)) return;
    else if (driver.state.openParks === 0 && driver.lease && this.#ownership.holds(driver.lease)) this.#drive(driver);
    else if (driver.state.openParks === 0) {
      // It parked and gave its lease up while this write was made (under the lease still held then):
      // it goes on once its lease is claimed anew.
      this.#resting.put(driver);
      this.#takeUp(driver.runId);
    } else this.#rest(driver); // still parked: keep it at hand for the next answer
  }

  /** A parked run nobody drives: kept at hand for a while, its lease given up for any node to take. */
  #rest(driver: RunDriver): void {
    this.#resting.put(driver);
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
    this.#locks
      .hold(lease.runId, async () => {
        if (this.#drivers.get(lease.runId)?.lease?.epoch === lease.epoch) return; // driven on under it
        await this.#ownership.release(lease);
      })
      .catch((thrown: unknown) => {
        if (StoreError.isInstance(thrown)) this.#fail(thrown);
      });
  }

  /**
   * This node lost the run's lease (it expired, or another node took the run over): stop driving
   * it at once, writing nothing. Whoever waits for it hears of its end through the store.
   */
  #lose(runId: string, lease?: Lease): void {
    if (lease) this.#ownership.forget(lease);
    this.#resting.delete(runId);
    // Not a driver under a newer lease (this node took the run up again). The one stopped keeps
    // naming its lost lease: anything it still writes is refused, never applied unfenced.
    const driver = this.#drivers.get(runId);
    if (driver && (!lease || driver.lease?.epoch === lease.epoch)) driver.stop();
  }

  /** What the store signals: requests for runs driven here, runs to take over, journals that grew. */
  #onSignal(signal: RunSignal): void {
    if (this.#closed || this.#failure) return;
    // Draining: runs are handed over, not taken (followers still hear of journals that grew).
    if (this.#draining && signal.type !== 'appended') return;
    if (signal.type === 'claimable') {
      this.#claimSoon();
      return;
    }
    if (signal.type === 'requested') {
      // Driven here, or resting here since it parked (its lease given up, or being given up as the
      // answer came): act on the request, taking the run again if no other node did.
      if (this.#drivers.has(signal.runId) || this.#resting.has(signal.runId)) this.#takeUp(signal.runId);
      return;
    }
    for (const listener of this.#appendListeners.get(signal.runId) ?? []) listener(signal.seq ?? 0);
    // Waited for here but driven elsewhere: its end (or park) reaches us this way.
    if (this.#waiters.has(signal.runId) && !this.#drivers.has(signal.runId)) this.#settleFromStore(signal.runId);
  }

  /**
   * Under the run's lock, once its holder is done: loads it (claiming its lease unless held here),
   * acts on the requests other nodes left for it, and drives it if it can go on.
   */
  #takeUp(runId: string): void {
    this.#locks
      .hold(runId, async () => {
        const driver = await this.#loadOrMark(runId);
        this.#afterLockedWrite(driver);
      })
      .catch(() => {
        // Another node took it, a store failure failed the runtime, or a lost lease stopped the driver.
      });
  }

  /** Stops a driver whose lease was lost and, once it has stopped, takes its run up again from the journal. */
  #takeUpAfter(stale: RunDriver): void {
    const runId = stale.runId;
    stale.stop();
    const stopped = this.#driving.get(runId) ?? Promise.resolve();
    void stopped.then(() => {
      if (this.#drivers.get(runId) === stale) this.#drivers.delete(runId);
      this.#resting.delete(runId); // rebuilt from the journal, not from what it held
      this.#takeUp(runId);
    });
  }

  /** Tells those waiting for a run driven elsewhere (or by nobody now) if it has settled. */
  #settleFromStore(runId: string): void {
    this.#settledRow(runId)
      .then(async (row) => {
        if (row && !this.#drivers.has(runId)) this.#waiters.settle(runId, await this.#result(row));
      })
      .catch(() => {});
  }

  /**
   * The run's row if the run has settled for those who wait: it ended, or it is parked with nothing
   * on its way to resume it (an answer or a cancel another node recorded is on its way).
   */
  async #settledRow(runId: string, known?: RunRow): Promise<RunRow | undefined> {
    const row = known ?? (await this.store.getRun(runId));
    if (row?.status !== 'parked') return row?.status === 'running' ? undefined : row;
    // Requests first, then the row again: an answer journaled meanwhile (which clears its request
    // and updates the row at once) shows in one of the two, never in neither.
    const requests = await this.store.requests(runId);
    if (requests.answers.length > 0 || requests.cancel) return undefined;
    const now = await this.store.getRun(runId);
    return now?.status === 'running' ? undefined : now;
  }

  /** Calls `listener` with the run's last seq each time its journal grows on another node. */
  #onAppended(runId: string, listener: (seq: number) => void): () => void {
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

  /**
   * Acts on what other nodes left for the run while this one held it: journals their answers (in
   * the order given) and a requested cancel. The caller holds the run's lock.
   */
  async #applyRequests(driver: RunDriver): Promise<void> {
    const requests = await this.store.requests(driver.runId);
    for (const answer of requests.answers) await this.#guardDriver(driver, driver.recordAnswer(answer));
    if (requests.cancel && !driver.ended) {
      if (this.#driving.has(driver.runId)) await driver.cancel(requests.cancel.reason, { requested: true });
      else await this.#guardDriver(driver, driver.cancelParked(requests.cancel.reason, { requested: true }));
    }
  }

  /** `#guard`, and a lost lease stops this node driving the run before the error goes on. */
  async #guardDriver<T>(driver: RunDriver, write: Promise<T>): Promise<T> {
    try {
      return await this.#guard(write);
    } catch (thrown) {
      if (LeaseLostError.isInstance(thrown)) {
        this.#lose(driver.runId, driver.lease);
        throw new RunHeldElsewhereError(`run ${driver.runId} was taken over by another node`, { cause: thrown });
      }
      throw thrown;
    }
  }

  #drive(driver: RunDriver, { fresh = false }: { fresh?: boolean } = {}): void {
    const runId = driver.runId;
    if (this.hooks.has(fresh ? 'run-started' : 'run-resumed')) this.#tellDriven(driver, fresh);
    this.#resting.delete(runId);
    this.#drivers.set(runId, driver);
    this.#driving.set(runId, this.#driveUntilSettled(driver));
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
        this.#driving.delete(runId);
        this.#drivers.delete(runId);
        this.#fail(
          StoreError.isInstance(thrown)
            ? thrown
            : new StoreError(`driving run ${runId} failed: ${describeReason(thrown)}`, { cause: thrown }),
        );
        return;
      }
      if (outcome === 'parked' && driver.mustGoOn) continue;
      this.#driving.delete(runId);
      if (outcome === 'stopped' || outcome === 'lost') {
        // Stopped (the process stops, or another node took the run over): nothing settles here.
        this.#drivers.delete(runId);
        if (outcome === 'lost' && driver.lease) this.#ownership.forget(driver.lease);
        if (this.hooks.has('run-suspended')) this.#tellSuspended(driver, outcome);
      } else this.#settle(driver);
      return;
    }
  }

  /** Tells hooks a run is driven: a new one, or one driven again. */
  #tellDriven(driver: RunDriver, fresh: boolean): void {
    const state = driver.state;
    const base = {
      runId: state.runId,
      agent: state.activeAgent,
      principal: state.principal,
      ...(state.trace ? { trace: state.trace } : {}),
    };
    if (fresh) {
      this.hooks.emit('run-started', {
        ...base,
        ...(state.parent ? { parent: state.parent } : {}),
        ...(state.sessionId === undefined ? {} : { session: state.sessionId }),
      });
    } else this.hooks.emit('run-resumed', { ...base, step: state.steps });
  }

  /** Tells hooks this node stopped driving a run that has not ended. */
  #tellSuspended(driver: RunDriver, reason: 'parked' | 'stopped' | 'lost'): void {
    const state = driver.state;
    this.hooks.emit('run-suspended', {
      runId: state.runId,
      agent: state.activeAgent,
      principal: state.principal,
      ...(state.trace ? { trace: state.trace } : {}),
      reason,
    });
  }

  /** Tells hooks a run ended. */
  #tellEnded(driver: RunDriver): void {
    const state = driver.state;
    this.hooks.emit('run-ended', {
      runId: state.runId,
      agent: state.activeAgent,
      principal: state.principal,
      ...(state.trace ? { trace: state.trace } : {}),
      status: state.status as EndStatus,
      durationMs: Math.max(0, state.updatedAt - state.createdAt),
      measures: state.measures,
      labels: state.labels,
      ...(state.error === undefined ? {} : { error: state.error }),
    });
  }

  /** The run parked or ended: free its memory (a parked run may rest a while) and tell whoever waits. */
  #settle(driver: RunDriver): void {
    const runId = driver.runId;
    this.#drivers.delete(runId);
    if (!driver.ended) {
      if (this.hooks.has('run-suspended')) this.#tellSuspended(driver, 'parked');
      this.#rest(driver);
    } else {
      this.#resting.delete(runId);
      this.#releaseLease(driver);
      if (this.hooks.has('run-ended')) this.#tellEnded(driver);
      // A child that parked may have parked its parent: its end answers the parent's wait.
      if (driver.state.parent && driver.state.parks.size > 0)
        this.#deliverToParent(this.#stateResult(driver), driver.state.agent);
      // A parent that ended while waiting on children (cancelled, stopped): they end with it.
      for (const park of driver.state.parks.values()) {
        if (park.status === 'closed') this.#cancelChild(park.handle, `its parent run ${runId} ended`);
      }
    }
    if (!this.#waiters.has(runId)) return;
    if (driver.ended) {
      this.#waiters.settle(runId, this.#stateResult(driver));
      return;
    }
    // Parked: unless another node recorded an answer meanwhile, which resumes it soon (here or
    // there), or one was journaled meanwhile (its park closed: the run goes on).
    this.store
      .requests(runId)
      .then((requests) => {
        if (requests.answers.length > 0 || requests.cancel || this.#drivers.has(runId)) return;
        if (driver.state.openParks === 0 && !driver.ended) return;
        this.#waiters.settle(runId, this.#stateResult(driver));
      })
      .catch(() => {});
  }

  /** Cancels the child run a wait's handle names, if it names one that is still going (nobody waits for it now). */
  #cancelChild(handle: string | undefined, reason: string): void {
    const child = childOfHandle(handle);
    if (child === undefined) return;
    this.cancel(child, reason).catch(() => {
      // Ended already, or its store failed (which fails the runtime by itself).
    });
  }

  /** Answers the wait of the parent parked on this ended child run, if one is parked on it. */
  #deliverToParent(result: RunResult, agent: string): void {
    this.#external
      .complete(childHandle(result.runId), childOutcome(agent, result), { by: 'wardrik (child run)' })
      .catch((error) => {
        if (StoreError.isInstance(error)) this.#fail(error);
        // Else no parent waits (it had the answer at once, or was cancelled): nothing to deliver.
      });
  }

  /** Open waits on child runs whose child ended while no one listened (a crash in between): delivered now. */
  #settleChildren(parks: readonly ParkRow[]): void {
    for (const park of parks) {
      const child = childOfHandle(park.handle);
      if (child === undefined || this.#drivers.has(child)) continue;
      this.store
        .getRun(child)
        .then(async (row) => {
          if (!row || !isEnded(row.status)) return;
          this.#deliverToParent(await this.#result(row), row.agent);
        })
        .catch((error) => {
          if (StoreError.isInstance(error)) this.#fail(error);
        });
    }
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
}

/** A checked decision with the labels and cost a result of external work carries (checked), if it carries any. */
function withCarried(checked: ParkDecision, decision: ParkDecision): ParkDecision {
  if (
    (checked.type !== 'answer' && checked.type !== 'fail') ||
    (decision.type !== 'answer' && decision.type !== 'fail')
  ) {
    return checked;
  }
  return {
    ...checked,
    ...(decision.labels?.length ? { labels: mergeLabels(decision.labels) } : {}),
    ...(decision.measures && Object.keys(decision.measures).length
      ? { measures: addMeasures({}, decision.measures) }
      : {}),
  };
}

/** A positive number of ms, or an `InvalidInputError` naming the setting. */
function checkedMs(value: unknown, setting: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${setting}: expected a positive number of ms, got ${String(value)}`);
  }
  return value;
}
