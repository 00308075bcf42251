import type { InputQuestion, InputReply } from '@wardrik/core';
import type { AgentDirectory } from '../agents/agent-directory.js';
import { InvalidInputError } from '../errors.js';
import type { ParkDecision } from '../journal/records.js';
import type { SessionRow } from '../store/session-store.js';
import { WorkerHub } from '../workers/worker-hub.js';
import type { DrainReport } from './drain.js';
import { EventHub } from './events.js';
import type { ExternalOutcome, ExternalWorkDesk } from './external-work.js';
import { Hooks } from './hooks.js';
import type { Allowances } from './node/allowances.js';
import type { ParkAnswers } from './node/park-answers.js';
import { withdrawOrphanedQuestions } from './node/question-writes.js';
import type { RunNode } from './node/run-node.js';
import { resumeWork } from './resume-work.js';
import type { Retention } from './retention-sweep.js';
import type { RunResult } from './run-result.js';
import { assembleRuntime } from './runtime-parts.js';
import type { Services } from './services.js';
import type { Sessions, StateChanges } from './sessions.js';
import { completeSignIn, type SignInCallback } from './sign-ins.js';
import type { AnswerOptions, StartOptions, WardrikOptions } from './wardrik-options.js';
import { WardrikReads } from './wardrik-reads.js';
import type { WorkQuestions } from './work-questions.js';

export type { RunResult } from './run-result.js';
export type { AnswerOptions, RunDetails, StartOptions, WardrikOptions } from './wardrik-options.js';
export { WardrikReads } from './wardrik-reads.js';

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

/**
 * The runtime: starts, drives, parks, resumes, cancels and recovers runs. Make it with `createWardrik`.
 * This class is the public face only: the runs this node holds live in `node/` (`RunNode`), one
 * run's loop in `run/`, a call's phases in `calls/`.
 */
export class Wardrik extends WardrikReads {
  /** The workers connected to this node and the tools they offer. */
  readonly workers: WorkerHub;
  /**
   * What happens between journal records (model calls, call attempts, parks, commits, workers), for
   * telemetry and other listeners: see `Hooks`.
   */
  readonly hooks: Hooks;
  /** Deletes what retention no longer keeps: the background sweep, and purges on request. */
  readonly retention: Retention;
  readonly #agents: AgentDirectory;
  readonly #node: RunNode;
  readonly #answers: ParkAnswers;
  readonly #sessions: Sessions;
  readonly #external: ExternalWorkDesk;
  /** Questions a person is asked for long-running work (`requestInputFor`). */
  readonly #workQuestions: WorkQuestions;
  readonly #services: Services;
  readonly #allowances: Allowances;
  readonly #stopListening: () => void;
  readonly #stopSignals: () => void;

  constructor(options: WardrikOptions) {
    const store = options.store;
    const workers = new WorkerHub(options.workers);
    const hooks: Hooks = new Hooks((name) =>
      name === 'store-committed' ? store.onCommit?.((commit) => hooks.emit('store-committed', commit)) : undefined,
    );
    const hub = new EventHub();
    // The parts call the runtime's own entry points back (so that they pass the same checks) once it is made.
    const parts = assembleRuntime(options, {
      store,
      hooks,
      hub,
      workers,
      entries: {
        completeExternal: async (handle, outcome) => {
          await this.completeExternal(handle, outcome);
        },
        requestInputFor: (handle, question, asked) => this.requestInputFor(handle, question, asked),
        wait: (runId) => this.wait(runId),
        cancel: (runId, reason) => this.cancel(runId, reason),
      },
    });
    super(store, { hub, ...parts });
    this.workers = workers;
    this.hooks = hooks;
    this.#agents = parts.agents;
    this.#services = parts.services;
    this.#sessions = parts.sessions;
    this.#node = parts.node;
    this.#allowances = parts.allowances;
    this.#external = parts.external;
    this.#workQuestions = parts.workQuestions;
    this.#answers = parts.answers;
    this.retention = parts.retention;
    this.#stopListening = store.onFailure((error) => this.#node.health.fail(error));
    this.#stopSignals = store.onRunSignal((signal) => this.#node.watch.onSignal(signal));
    this.#node.ownership.start();
    // Workers across nodes: this node's workers serve runs driven on the others, theirs runs driven here.
    this.workers.join({ store, node: parts.nodeName, leaseMs: parts.leaseMs });
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
    return this.#node.starts.start(agentName, input, options, { durable: options.durable ?? true });
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
    const { runId } = await this.#node.starts.start(agentName, input, options, { durable: false });
    return this.wait(runId);
  }

  /**
   * Waits until the run ends or parks (at once if it has). Rejects with `StoreError` if the store
   * fails meanwhile, and with `RunNeedsAttentionError` for a run whose journal can't be loaded.
   */
  async wait(runId: string): Promise<RunResult> {
    this.#node.health.checkUsable();
    return this.#node.watch.wait(runId);
  }

  /**
   * Cancels a run. An active run stops its model step or calls (their signals abort); a parked
   * run ends at once and its parks close. Throws `RunEndedError` if it has ended.
   */
  async cancel(runId: string, reason = 'cancelled by request'): Promise<RunResult> {
    return this.#node.cancel(runId, reason);
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
    await this.#answers.answer(parkId, decision, options, { carried: false });
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
    return this.#node.releaseLabels(runId, labels, options);
  }

  /** Loads the standing decisions from the store (done by `createWardrik`). */
  async loadAllowances(): Promise<void> {
    await this.#allowances.load();
  }

  /**
   * Re-drives the runs that were running when the process stopped — or, on a store shared by many
   * nodes, that a node lost: a call with an intent but no answer is repeated if repeatable and
   * otherwise parked `in_doubt`; a lost model step is made again. From then on this node keeps
   * looking for runs to take over (`claimIntervalMs`), up to `maxRuns` driven at once.
   */
  async recover(): Promise<{ resumed: number; needAttention: number }> {
    this.#node.health.checkOpen();
    return this.#node.claims.recover();
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
    return this.#node.drain(options?.graceMs);
  }

  /**
   * Stops driving (runs stay `running` on disk and are recovered by the next start), then closes
   * the store.
   */
  async close(): Promise<void> {
    const health = this.#node.health;
    if (health.closed) return;
    health.close();
    await this.retention.stop();
    this.#node.claims.stop();
    this.#external.close();
    this.#workQuestions.close();
    this.#node.stop();
    this.workers.close();
    await this.#node.stopped();
    const toolsets = this.#agents.all().flatMap((agent) => agent.toolsets);
    await Promise.allSettled(toolsets.map(async (toolset) => toolset.close?.()));
    // Other nodes may take over at once what this one drove (on one node: recovery, next start).
    await this.#node.release();
    this.#stopListening();
    this.#stopSignals();
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
    this.#node.health.checkTakingWork();
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
    this.#node.health.checkTakingWork();
    return this.#workQuestions.ask(handle, question, options.signal);
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
    this.#node.health.checkTakingWork();
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
    await withdrawOrphanedQuestions(this.#node, this.store);
    await resumeWork({
      handles: await this.#external.scan(),
      toolsets: new Set(this.#agents.all().flatMap((agent) => agent.toolsets)),
      workers: this.workers,
      completeExternal: async (handle, outcome) => {
        await this.completeExternal(handle, outcome);
      },
      requestInputFor: (handle, question, options) => this.requestInputFor(handle, question, options),
    });
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
    this.#node.health.checkOpen();
    return this.#sessions.create(agentName, options);
  }

  /** Deletes a session and its state (its runs stay). `SessionBusyError` while its run is going. */
  async deleteSession(id: string): Promise<void> {
    this.#node.health.checkOpen();
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
    this.#node.health.checkOpen();
    await this.#sessions.editState(id, changes, edit);
  }
}
