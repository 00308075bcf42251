import { type ArtifactSource, ArtifactsView, type ToolArtifacts } from './artifacts.js';
import { type Label, mergeLabels } from './labels.js';
import { addMeasures, checkMeasure, type Measures } from './measures.js';
import { type MemorySource, MemoryView, type ToolMemory } from './memory.js';
import {
  type InputQuestion,
  type InputReply,
  outsideRuntime,
  type RequestInputFor,
  type SampleRequest,
  type SampleResult,
} from './person-input.js';
import { type StateChange, type StateSource, StateView, type ToolState } from './state.js';

/**
 * What a tool sees of the call it is running in.
 *
 * @example
 * ```ts
 * run: async ({ email }, context) => {
 *   const found = await enrich.lookup(email, { signal: context.signal })
 *   context.measure('usd', 0.01)
 *   return found
 * }
 * ```
 */
export interface ToolContext {
  /** The run this call is part of. */
  readonly runId: string;
  /** The agent making the call. */
  readonly agentName: string;
  /** @deprecated The same as `agentName`. */
  readonly agent: string;
  /** Whom the run acts for. */
  readonly principal: string;
  /** The run's session, if it has one (see `Wardrik.createSession`). */
  readonly sessionId?: string;
  /** This call's id, as Wardrik names it in the journal (`c<step>.<index>`). */
  readonly callId: string;
  /**
   * The state: this session's keys, `user:` and `app:` keys, and this run's `temp:` keys. The
   * call's writes are journaled with its answer and applied once. Reading a value written while a
   * run carried `outside` gives this call's answer that label.
   */
  readonly state: ToolState;
  /** Stays the same if this call is retried or recovered: pass it to payment APIs and the like. */
  readonly idempotencyKey: string;
  /**
   * A fencing token for this attempt: a number that grows with every attempt of the run's calls,
   * across retries, restarts and nodes (the position of the attempt's intent in the run's
   * journal). A node that lost the run (paused past its lease) holds a lower one than whoever
   * took it over, so a system that keeps the highest token it has seen (per run, or per key) can
   * refuse a stale writer. Undefined outside a runtime.
   *
   * @example
   * ```ts
   * run: ({ id }, context) => ledger.post(id, { fence: { key: context.runId, token: context.fencingToken } })
   * // the ledger refuses a post whose token is lower than one it already took for that key
   * ```
   */
  readonly fencingToken?: number;
  /** Aborted when the call is cancelled or passes its `timeout`. */
  readonly signal: AbortSignal;
  /** Reports what the call cost, e.g. `measure('usd', 0.01)`. Amounts of one unit add up. */
  measure(unit: string, amount: number): void;
  /** What this call has reported so far. */
  readonly measures: Readonly<Measures>;
  /** Labels the answer will carry, e.g. `addLabels('outside')`. */
  addLabels(...labels: Label[]): void;
  /** The run's labels so far, with those added by this call. */
  readonly labels: readonly Label[];
  /** A private value of the module `owner`, or `fallback`. */
  getPrivate<T>(owner: unknown, fallback: T): T;
  /** Sets the private value of the module `owner` for this call. */
  putPrivate(owner: unknown, value: unknown): void;
  /** Set when a person answered a park of this very call with "run it": the tool may now proceed. */
  readonly approval?: Approval;
  /**
   * Says how far a long call has got (as MCP's `notifications/progress` does): `progress` grows
   * with each report; `total` and `message` are optional. Followers of the run see it live (a
   * `call-progress` event); it is not journaled.
   *
   * @example
   * ```ts
   * for (const [index, page] of pages.entries()) {
   *   await index(page)
   *   context.reportProgress(index + 1, { total: pages.length, message: `indexed ${page.url}` })
   * }
   * ```
   */
  reportProgress(progress: number, options?: { total?: number; message?: string }): void;
  /**
   * Delivers the result of work a long-running tool started (`started(reason, { handle })`) to the
   * run waiting for it, from this process: for work that reports back here (a callback, a stream,
   * an MCP task being watched). The same as the runtime's `completeExternal`.
   */
  readonly completeExternal: CompleteExternal;
  /**
   * The W3C trace context of this call attempt (`traceparent`, `tracestate`) when telemetry is on:
   * pass it on to the services the tool calls, so their spans join the run's trace. Wardrik puts it
   * in the `_meta` of the calls it sends to workers and MCP servers.
   */
  readonly traceContext?: Readonly<Record<string, string>>;
  /**
   * Memories of earlier conversations of this principal with this agent's app (see `ToolMemory`):
   * what a memory carries (`outside`) is added to this call's answer.
   */
  readonly memory: ToolMemory;
  /**
   * This session's artifacts, and the principal's (`user:` names): named files, each save a new
   * version (see `ToolArtifacts`). They carry labels like answers do.
   */
  readonly artifacts: ToolArtifacts;
  /**
   * Asks a person while the call runs (an MCP server's `elicitation/create` during a call): the
   * run shows a park of kind `input` in the console, the CLI and `listParks`, and goes on waiting
   * for the call meanwhile. Resolves with their reply; rejects when the call ends or is cancelled
   * first, or when nobody can be asked (outside a runtime).
   *
   * @example
   * ```ts
   * const reply = await context.requestInput({
   *   mode: 'form',
   *   message: 'Which account should the refund go to?',
   *   schema: { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] },
   * })
   * if (reply.action !== 'accept') return error('the person did not choose an account')
   * ```
   */
  requestInput(question: InputQuestion, options?: { signal?: AbortSignal }): Promise<InputReply>;
  /**
   * Asks the agent's model on the call's behalf (an MCP server's `sampling/createMessage`): what it
   * costs is added to the call's measures (and so to the run's budget), and the call's answer is
   * labelled `outside` (the prompt came from the tool, not from the agent's side). Rejects when the
   * runtime does not allow it for this tool, or the run's budget is spent.
   *
   * @example
   * ```ts
   * const { text } = await context.sample({ messages: [{ role: 'user', text: 'Summarize: …' }], maxTokens: 200 })
   * ```
   */
  sample(request: SampleRequest, options?: { signal?: AbortSignal }): Promise<SampleResult>;
  /**
   * Asks a person on behalf of long-running work this call started (see `RequestInputFor`): for a
   * tool that answers `started` and follows its work itself, as an MCP toolset does with tasks.
   */
  readonly requestInputFor: RequestInputFor;
}

/**
 * The result of work a long-running tool started: its value, or why it failed; with what the work
 * cost (`measures`, added to the run's) and labels its result carries besides those its `started`
 * answer named (e.g. `outside` for text fetched on the way).
 */
export type ExternalOutcome = ({ readonly value: unknown } | { readonly error: string }) & {
  readonly labels?: readonly Label[];
  readonly measures?: Measures;
};

/** Delivers the result of the work `handle` names to the run waiting for it. */
export type CompleteExternal = (handle: string, outcome: ExternalOutcome) => Promise<void>;

/** How far a call has got, as a tool reported it. */
export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A person's go-ahead for a call that parked. */
export interface Approval {
  readonly parkId: string;
  readonly by: string;
  readonly note?: string;
}

/** What a context is made from. Only `runId` … `idempotencyKey` are needed for a call to run. */
export interface ContextOptions {
  readonly runId: string;
  readonly agent: string;
  readonly principal: string;
  readonly callId: string;
  readonly idempotencyKey: string;
  readonly sessionId?: string;
  /** The state the call reads (none: empty). */
  readonly state?: StateSource;
  /** Why the call may not write `key`, or undefined when it may. */
  readonly stateWriteRefusal?: (key: string) => string | undefined;
  /**
   * Aborted when the call should stop. A function is called when a tool first reads
   * `context.signal` (a runtime need not make a signal for tools that never look at it).
   */
  readonly signal?: AbortSignal | (() => AbortSignal);
  /** The labels the run already carries. */
  readonly labels?: readonly Label[];
  /** Private values by owning module. */
  readonly privates?: ReadonlyMap<unknown, unknown>;
  /** A person's go-ahead, when the call runs again after its park was answered. */
  readonly approval?: Approval;
  /** The attempt's fencing token (see `ToolContext.fencingToken`). */
  readonly fencingToken?: number;
  /** Receives the call's progress reports. */
  readonly onProgress?: (progress: Progress) => void;
  /** Delivers results of long-running work (the runtime's `completeExternal`). */
  readonly completeExternal?: CompleteExternal;
  /** The call attempt's trace context, when telemetry is on. */
  readonly traceContext?: Readonly<Record<string, string>>;
  /**
   * The memory service, scoped to the run (none: `memory.search` rejects, saying so). A function
   * is called when the tool first reads `context.memory` (most tools never do).
   */
  readonly memory?: MemorySource | (() => MemorySource | undefined);
  /**
   * The artifact service, scoped to the run (none: `artifacts` calls reject, saying so). A
   * function is called when the tool first reads `context.artifacts`.
   */
  readonly artifacts?: ArtifactSource | (() => ArtifactSource | undefined);
  /** Labels what the call saves carries beyond the run's and the call's (the tool's `labels` annotation). */
  readonly toolLabels?: readonly Label[];
  /** Asks a person while the call runs (none: `requestInput` rejects, saying so). */
  readonly requestInput?: ToolContext['requestInput'];
  /** Asks the agent's model for the call (none: `sample` rejects, saying so). */
  readonly sample?: ToolContext['sample'];
  /** Asks a person for long-running work (the runtime's `requestInputFor`; none: it rejects, saying so). */
  readonly requestInputFor?: RequestInputFor;
}

const neverAborted = new AbortController().signal;
const noChanges: readonly StateChange[] = Object.freeze([]);

const noRuntime: CompleteExternal = () =>
  Promise.reject(new Error('completeExternal: this call runs outside a Wardrik runtime, which delivers results'));

/** The context of one call, collecting what it reports. */
export class CallContext implements ToolContext {
  readonly runId: string;
  readonly agent: string;
  readonly principal: string;
  readonly sessionId?: string;
  readonly callId: string;
  readonly idempotencyKey: string;
  readonly fencingToken?: number;
  readonly approval?: Approval;
  readonly completeExternal: CompleteExternal;
  readonly requestInputFor: RequestInputFor;
  readonly traceContext?: Readonly<Record<string, string>>;
  // What most tools never read is made when first read: a call's context is made at every step.
  readonly #options: ContextOptions;
  #signal: AbortSignal | (() => AbortSignal);
  #measures: Measures = {};
  #runLabels: readonly Label[];
  #added: Label[] = [];
  #privates: Map<unknown, unknown> | undefined;
  #state: StateView | undefined;
  #memory: MemoryView | undefined;
  #artifacts: ArtifactsView | undefined;

  constructor(options: ContextOptions) {
    this.#options = options;
    this.runId = options.runId;
    this.agent = options.agent;
    this.principal = options.principal;
    if (options.sessionId !== undefined) this.sessionId = options.sessionId;
    this.callId = options.callId;
    this.idempotencyKey = options.idempotencyKey;
    this.#signal = options.signal ?? neverAborted;
    this.#runLabels = options.labels ?? [];
    if (options.approval) this.approval = options.approval;
    if (options.fencingToken !== undefined) this.fencingToken = options.fencingToken;
    this.completeExternal = options.completeExternal ?? noRuntime;
    this.requestInputFor = options.requestInputFor ?? (() => outsideRuntime('requestInputFor'));
    if (options.traceContext) this.traceContext = options.traceContext;
  }

  get state(): StateView {
    this.#state ??= new StateView(this.#options.state, {
      onRead: (labels) => this.#onRead(labels),
      writeRefusal: this.#options.stateWriteRefusal,
    });
    return this.#state;
  }

  get memory(): MemoryView {
    const source = this.#options.memory;
    this.#memory ??= new MemoryView(typeof source === 'function' ? source() : source, (labels) => this.#onRead(labels));
    return this.#memory;
  }

  get artifacts(): ArtifactsView {
    if (this.#artifacts === undefined) {
      const source = this.#options.artifacts;
      const toolLabels = this.#options.toolLabels ?? [];
      this.#artifacts = new ArtifactsView(typeof source === 'function' ? source() : source, {
        labels: () => mergeLabels(this.labels, toolLabels),
        onRead: (labels) => this.#onRead(labels),
      });
    }
    return this.#artifacts;
  }

  /**
   * Gives what this call saved as artifacts the labels of its answer (see
   * `ArtifactsView.labelSaves`); nothing to do when the tool never looked at its artifacts.
   */
  async labelArtifactSaves(labels: readonly Label[]): Promise<void> {
    await this.#artifacts?.labelSaves(labels);
  }

  #onRead(labels: readonly Label[]): void {
    this.#added.push(...labels);
  }

  get agentName(): string {
    return this.agent;
  }

  requestInput(question: InputQuestion, options?: { signal?: AbortSignal }): Promise<InputReply> {
    const ask = this.#options.requestInput;
    return ask ? ask(question, options) : outsideRuntime('requestInput');
  }

  sample(request: SampleRequest, options?: { signal?: AbortSignal }): Promise<SampleResult> {
    const sample = this.#options.sample;
    return sample ? sample(request, options) : outsideRuntime('sample');
  }

  get signal(): AbortSignal {
    if (typeof this.#signal === 'function') this.#signal = this.#signal();
    return this.#signal;
  }

  /** The state writes this call made, one per key. */
  get stateChanges(): readonly StateChange[] {
    return this.#state?.changes ?? noChanges;
  }

  reportProgress(progress: number, options: { total?: number; message?: string } = {}): void {
    if (typeof progress !== 'number' || !Number.isFinite(progress)) {
      throw new TypeError(`reportProgress: progress must be a finite number, got ${String(progress)}`);
    }
    const { total, message } = options;
    if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) {
      throw new TypeError(`reportProgress: total must be a finite number, got ${String(total)}`);
    }
    if (message !== undefined && typeof message !== 'string') {
      throw new TypeError(`reportProgress: message must be a string, got ${typeof message}`);
    }
    this.#options.onProgress?.({
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
    });
  }

  measure(unit: string, amount: number): void {
    checkMeasure(unit, amount);
    this.#measures[unit] = (this.#measures[unit] ?? 0) + amount;
  }

  get measures(): Readonly<Measures> {
    return this.#measures;
  }

  addLabels(...labels: Label[]): void {
    for (const label of labels) {
      if (typeof label !== 'string' || label.length === 0) {
        throw new TypeError(`addLabels: a label must be a non-empty string, got ${JSON.stringify(label)}`);
      }
      this.#added.push(label);
    }
  }

  get labels(): readonly Label[] {
    return mergeLabels(this.#runLabels, this.#added);
  }

  /** The labels this call added (not those the run carried before it). */
  get addedLabels(): readonly Label[] {
    return this.#added;
  }

  /** Measures reported on the context plus those given, summed. */
  measuresWith(extra: Measures | undefined): Measures {
    return addMeasures(this.#measures, extra);
  }

  getPrivate<T>(owner: unknown, fallback: T): T {
    const privates = this.#privates ?? this.#options.privates;
    return privates?.has(owner) ? (privates.get(owner) as T) : fallback;
  }

  putPrivate(owner: unknown, value: unknown): void {
    // The call's own copy, made at its first put: the values given stay as they were.
    this.#privates ??= new Map(this.#options.privates);
    this.#privates.set(owner, value);
  }
}

/**
 * Makes the context for one call.
 *
 * @example
 * ```ts
 * const context = createContext({ runId: 'r1', agent: 'support', principal: 'u1', callId: 'c1', idempotencyKey: 'r1:c1' })
 * const answer = await call(tools, { id: 'c1', name: 'order_status', arguments: { order_id: 'A1' } }, context)
 * ```
 */
export function createContext(options: ContextOptions): CallContext {
  return new CallContext(options);
}
