import type { Agent } from '../agent.js';
import type { AgentDirectory } from '../agents/agent-directory.js';
import type { RuntimeArtifacts } from '../artifacts/runtime-artifacts.js';
import { ParkNotFoundError, RunNotFoundError, type StoreError } from '../errors.js';
import type { ParkKind } from '../journal/records.js';
import type { RuntimeMemory } from '../memory/runtime-memory.js';
import type { SessionFilter, SessionRow } from '../store/session-store.js';
import type { ParkFilter, ParkRow, RunFilter, RunRow, Store } from '../store/store.js';
import type { EventHub, RunEvent, RunEventListener } from './events.js';
import { type FollowOptions, followRun } from './follow-run.js';
import type { RunNode } from './node/run-node.js';
import type { Services } from './services.js';
import type { SessionDetails, Sessions } from './sessions.js';
import type { RunDetails } from './wardrik-options.js';

/** What the read side of the runtime reads from. */
export interface ReadSources {
  readonly hub: EventHub;
  readonly node: RunNode;
  readonly sessions: Sessions;
  readonly services: Services;
  readonly agents: AgentDirectory;
}

/**
 * The read side of `Wardrik` (which extends it): runs, parks, sessions and their events, memory
 * and artifacts, and how this node stands. Nothing here starts, answers or changes a run.
 *
 * @example
 * ```ts
 * const open = await wardrik.listParks({ status: 'open' })
 * for await (const event of wardrik.follow(runId)) console.log(event.seq, event.type)
 * ```
 */
export class WardrikReads {
  readonly store: Store;
  readonly #hub: EventHub;
  readonly #node: RunNode;
  readonly #sessions: Sessions;
  readonly #services: Services;
  readonly #agents: AgentDirectory;

  constructor(store: Store, sources: ReadSources) {
    this.store = store;
    this.#hub = sources.hub;
    this.#node = sources.node;
    this.#sessions = sources.sessions;
    this.#services = sources.services;
    this.#agents = sources.agents;
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
    return this.#node.ownership.terms.node;
  }

  /**
   * Set once the store failed (a disk full, an I/O error): from then on this Wardrik takes no work —
   * `start`, `answerPark`, `cancel` and `releaseLabels` throw it, pending `wait`s reject with it —
   * and the process should exit so that a supervisor restarts it; recovery then resumes every run
   * from what is on disk. (`wardrik serve` does exactly that, and `/v1/health` answers 503.)
   */
  get failure(): StoreError | undefined {
    return this.#node.health.failure;
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
    return this.#node.health.listen(listener);
  }

  /** The agents this runtime runs: those it was given, their sub-agents and the agents their tools call. */
  agents(): Agent[] {
    return this.#agents.all();
  }

  /** A run with its journal. */
  async getRun(runId: string): Promise<RunDetails> {
    const row = await this.getRunSummary(runId);
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
        onAppended: (listener) => this.#node.watch.onAppended(runId, listener),
        drivenHere: () => this.#node.held.drivers.has(runId),
      },
      runId,
      options,
    );
  }

  /** How many runs are in memory (being driven). Parked runs are not. */
  get activeRuns(): number {
    return this.#node.held.drivers.size;
  }

  /** Resolves once the store answers a trivial read (a readiness probe); rejects with `StoreError` if it does not. */
  ping(): Promise<void> {
    return this.store.ping();
  }

  /** Whether the node drains (see `drain`): it takes no new runs or answers. */
  get draining(): boolean {
    return this.#node.draining;
  }

  /** A session; `SessionNotFoundError` if none has this id. */
  async getSession(id: string): Promise<SessionRow> {
    this.#node.health.checkUsable();
    return this.#sessions.get(id);
  }

  /** Sessions, most recently used first. */
  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    this.#node.health.checkUsable();
    return this.#sessions.list(filter);
  }

  /** A session with its runs, its conversation and the state its next run reads. */
  async sessionDetails(id: string, options: { messages?: number } = {}): Promise<SessionDetails> {
    this.#node.health.checkUsable();
    return this.#sessions.details(id, options);
  }
}
