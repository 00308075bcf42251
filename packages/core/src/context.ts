import { type ArtifactSource, ArtifactsView, type ToolArtifacts } from './artifacts.js';
import { type Label, mergeLabels } from './labels.js';
import { addMeasures, checkMeasure, type Measures } from './measures.js';
import { type MemorySource, MemoryView, type ToolMemory } from './memory.js';
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
  /** Receives the call's progress reports. */
  readonly onProgress?: (progress: Progress) => void;
  /** Delivers results of long-running work (the runtime's `completeExternal`). */
  readonly completeExternal?: CompleteExternal;
  /** The call attempt's trace context, when telemetry is on. */
  readonly traceContext?: Readonly<Record<string, string>>;
  /** The memory service, scoped to the run (none: `memory.search` rejects, saying so). */
  readonly memory?: MemorySource;
  /** The artifact service, scoped to the run (none: `artifacts` calls reject, saying so). */
  readonly artifacts?: ArtifactSource;
  /** Labels what the call saves carries beyond the run's and the call's (the tool's `labels` annotation). */
  readonly toolLabels?: readonly Label[];
}

const neverAborted = new AbortController().signal;

const noRuntime: CompleteExternal = () =>
  Promise.reject(new Error('completeExternal: this call runs outside a Wardrik runtime, which delivers results'));

/** The context of one call, collecting what it reports. */
export class CallContext implements ToolContext {
  readonly runId: string;
  readonly agent: string;
  readonly principal: string;
  readonly sessionId?: string;
  readonly state: StateView;
  readonly callId: string;
  readonly idempotencyKey: string;
  readonly approval?: Approval;
  #signal: AbortSignal | (() => AbortSignal);
  #measures: Measures = {};
  #runLabels: readonly Label[];
  #added: Label[] = [];
  #privates: Map<unknown, unknown>;
  #onProgress: ((progress: Progress) => void) | undefined;
  readonly completeExternal: CompleteExternal;
  readonly traceContext?: Readonly<Record<string, string>>;
  readonly memory: MemoryView;
  readonly artifacts: ArtifactsView;

  constructor(options: ContextOptions) {
    this.runId = options.runId;
    this.agent = options.agent;
    this.principal = options.principal;
    if (options.sessionId !== undefined) this.sessionId = options.sessionId;
    this.state = new StateView(options.state, {
      onRead: (labels) => {
        this.#added.push(...labels);
      },
      writeRefusal: options.stateWriteRefusal,
    });
    this.callId = options.callId;
    this.idempotencyKey = options.idempotencyKey;
    this.#signal = options.signal ?? neverAborted;
    this.#runLabels = options.labels ?? [];
    this.#privates = new Map(options.privates);
    if (options.approval) this.approval = options.approval;
    this.#onProgress = options.onProgress;
    this.completeExternal = options.completeExternal ?? noRuntime;
    if (options.traceContext) this.traceContext = options.traceContext;
    const onRead = (labels: readonly Label[]) => {
      this.#added.push(...labels);
    };
    this.memory = new MemoryView(options.memory, onRead);
    const toolLabels = options.toolLabels ?? [];
    this.artifacts = new ArtifactsView(options.artifacts, {
      labels: () => mergeLabels(this.labels, toolLabels),
      onRead,
    });
  }

  get agentName(): string {
    return this.agent;
  }

  get signal(): AbortSignal {
    if (typeof this.#signal === 'function') this.#signal = this.#signal();
    return this.#signal;
  }

  /** The state writes this call made, one per key. */
  get stateChanges(): readonly StateChange[] {
    return this.state.changes;
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
    this.#onProgress?.({
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
    return this.#privates.has(owner) ? (this.#privates.get(owner) as T) : fallback;
  }

  putPrivate(owner: unknown, value: unknown): void {
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
