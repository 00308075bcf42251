import type { Arguments, Label, Measures, Tool } from '@wardrik/core';
import type { EndStatus, ParentLink, ParkDecision, ParkKind } from '../journal/records.js';
import type { Model, ModelResponse, Usage } from '../model/model.js';

/**
 * An opaque carrier of trace context (W3C `traceparent`, `tracestate`), as a telemetry listener
 * made it. Journaled with the run, so that a run resumed after a restart or on another node
 * continues the same trace; sent to workers and MCP servers in a call's `_meta`.
 */
export type TraceCarrier = Readonly<Record<string, string>>;

/** What every event of a run says. */
interface RunEventBase {
  readonly runId: string;
  /** The agent speaking now (the run's own, or the one it was transferred to). */
  readonly agent: string;
  /** The run's trace context, if a listener gave it one when it started. */
  readonly trace?: TraceCarrier;
}

/** What telemetry reads of the model a call went to: the `Model`'s own fields, when it has them. */
export type CalledModel = Pick<Model, 'provider' | 'modelName' | 'baseUrl'>;

/** What telemetry reads of a model's answer: the provider's ids, when the model reports them. */
export type AnsweredModel = Pick<ModelResponse, 'responseId' | 'responseModel'>;

/** How a call attempt came out: answered (`ok`, `error`), or cut short. */
export type AttemptOutcome = 'ok' | 'error' | 'parked' | 'timeout' | 'lost' | 'cancelled';

/**
 * How a call settled, as the model or a person will see it. `cancelled`: the run was cancelled
 * before or while the call ran (not a failure of the call: the model is told it was cancelled).
 */
export type CallOutcome = 'ok' | 'error' | 'denied' | 'parked' | 'in_doubt' | 'cancelled';

/**
 * What happens between journal records, by name. Each name is noun-verb, like the journal's
 * (`model-call-started`), and each event is a plain object made only when someone listens.
 */
export interface HookEvents {
  /** A run began (its first record is on disk). */
  readonly 'run-started': RunEventBase & {
    readonly principal: string;
    readonly parent?: ParentLink;
    readonly session?: string;
  };
  /**
   * A run's start failed before its first record was on disk (the store failed, another node held
   * it): `run-started` will not follow. Tracing ends the span it made for it as it started (see
   * {@link TracePropagation.runStarting}).
   */
  readonly 'run-start-failed': RunEventBase & { readonly error: string };
  /** A run is driven again: after a person's answer, on recovery, or taken over from another node. */
  readonly 'run-resumed': RunEventBase & { readonly principal: string; readonly step: number };
  /**
   * This node stopped driving a run that has not ended: it parked (it waits for a person or for
   * other work; `run-resumed` follows when it is driven again), the process is stopping, or another
   * node took it over (`lost`). Together with `run-started`, `run-resumed` and `run-ended`, it bounds
   * each stretch of a run one node drives.
   */
  readonly 'run-suspended': RunEventBase & {
    readonly principal: string;
    readonly reason: 'parked' | 'stopped' | 'lost';
  };
  /** A run ended. `durationMs`: since it began. */
  readonly 'run-ended': RunEventBase & {
    readonly principal: string;
    readonly status: EndStatus;
    readonly durationMs: number;
    readonly measures: Measures;
    readonly labels: readonly Label[];
    readonly error?: string;
  };
  /** A model call (one attempt of a step) began. `model`: its id; `called`: the model itself (its provider, name, URL). */
  readonly 'model-call-started': RunEventBase & {
    readonly step: number;
    readonly model: string;
    readonly called?: CalledModel;
    readonly attempt: number;
  };
  /**
   * A model call ended: with its usage (and the provider's ids of the answer, in `response`), or its
   * error (`cancelled` when the run was cancelled meanwhile; `retrying` when another attempt follows).
   */
  readonly 'model-call-ended': RunEventBase & {
    readonly step: number;
    readonly model: string;
    readonly called?: CalledModel;
    readonly response?: AnsweredModel;
    readonly attempt: number;
    readonly durationMs: number;
    readonly usage?: Usage;
    readonly measures?: Measures;
    /** `tool-calls`, `stop` (a final answer) or `length` (cut off at its output token limit). */
    readonly finishReason?: 'tool-calls' | 'stop' | 'length';
    readonly toolCalls?: number;
    readonly error?: string;
    readonly retrying?: boolean;
  };
  /**
   * One attempt of a call began: its intent is written (retries and recoveries are attempts too).
   * `modelCallId`: the id the model gave the call; `definition`: the tool it runs, when found.
   */
  readonly 'call-attempt-started': RunEventBase & {
    readonly step: number;
    readonly callId: string;
    readonly modelCallId?: string;
    readonly tool: string;
    readonly definition?: Tool<Arguments>;
    readonly attempt: number;
    readonly repeatable: boolean;
    readonly idempotencyKey: string;
    /** The call's arguments as the tool gets them (telemetry records them only when told to). */
    readonly arguments?: unknown;
  };
  /** One attempt of a call ended. */
  readonly 'call-attempt-ended': RunEventBase & {
    readonly step: number;
    readonly callId: string;
    readonly tool: string;
    readonly attempt: number;
    readonly durationMs: number;
    readonly outcome: AttemptOutcome;
    readonly error?: string;
  };
  /** A call settled: answered, refused by policy, cancelled, or parked (for a person, or in doubt). */
  readonly 'call-settled': RunEventBase & {
    readonly step: number;
    readonly callId: string;
    readonly modelCallId?: string;
    readonly tool: string;
    readonly definition?: Tool<Arguments>;
    readonly outcome: CallOutcome;
    readonly rule?: string;
  };
  /** A run parked: it waits for a person, or for external work. */
  readonly 'park-opened': RunEventBase & {
    readonly parkId: string;
    readonly kind: ParkKind;
    readonly reason: string;
    readonly tool?: string;
    readonly rule?: string;
  };
  /** A park was answered. `waitedMs`: since it opened. */
  readonly 'park-answered': RunEventBase & {
    readonly parkId: string;
    readonly kind: ParkKind;
    readonly decision: ParkDecision['type'];
    readonly by: string;
    readonly waitedMs: number;
  };
  /** The store committed writes (SQLite, PostgreSQL): how long it took, how many records and bytes. */
  readonly 'store-committed': {
    readonly durationMs: number;
    readonly writes: number;
    readonly records: number;
    readonly bytes: number;
  };
  /** A worker connected to this node and offered tools. */
  readonly 'worker-connected': { readonly worker: string; readonly principal: string };
  /** A worker's connection to this node ended. */
  readonly 'worker-disconnected': { readonly worker: string; readonly principal: string; readonly reason: string };
}

/** The names of hook events. */
export type HookName = keyof HookEvents;

/** A listener for one hook event. */
export type HookListener<K extends HookName> = (event: HookEvents[K]) => void;

/** Makes trace context: for a run as it starts (journaled with it), and for each call attempt (sent in its `_meta`). */
export interface TracePropagation {
  /** The context a new run's trace continues from (a child run: its parent's call). */
  runStarting(run: {
    readonly runId: string;
    readonly agent: string;
    readonly parent?: ParentLink;
  }): TraceCarrier | undefined;
  /** The context of a call attempt, for the program that runs it (a worker, an MCP server, the tool itself). */
  attemptContext(attempt: {
    readonly runId: string;
    readonly callId: string;
    readonly attempt: number;
  }): TraceCarrier | undefined;
  /** The context of the span of the run's stretch this node drives now, if any (for log lines). */
  runSpan?(runId: string): TraceCarrier | undefined;
}

/**
 * The runtime's hooks: typed events for what happens between journal records (model calls,
 * call attempts, parks, commits, workers), the seam telemetry and the console listen on. Nothing
 * else in the runtime knows who listens. Cheap when nobody does: each emit point asks `has(name)`
 * (one map read) before it makes an event; a listener that throws is dropped from that event
 * only, never from the run.
 *
 * @example
 * ```ts
 * const stop = wardrik.hooks.on('model-call-ended', ({ runId, step, durationMs, usage }) => {
 *   console.log(`${runId} step ${step}: ${durationMs.toFixed(0)} ms, ${usage?.outputTokens ?? 0} tokens out`)
 * })
 * ```
 */
export class Hooks {
  /** The listeners of each name listened to; an array replaced (never changed) when one comes or goes. */
  readonly #listeners = new Map<HookName, ReadonlyArray<(event: never) => void>>();
  #propagation: TracePropagation | undefined;
  readonly #activate: ((name: HookName) => (() => void) | undefined) | undefined;
  /** What `activate` gave for each name listened to: the function that stops its source. */
  readonly #sources = new Map<HookName, () => void>();

  /**
   * `activate` is told when `name` gets its first listener, and may start the source of its
   * events (returning the function that stops it, called when the last listener goes).
   */
  constructor(activate?: (name: HookName) => (() => void) | undefined) {
    this.#activate = activate;
  }

  /** Listens to `name`; returns the function that stops listening. */
  on<K extends HookName>(name: K, listener: HookListener<K>): () => void {
    const entry = listener as (event: never) => void;
    const listeners = this.#listeners.get(name);
    if (!listeners?.includes(entry)) this.#listeners.set(name, [...(listeners ?? []), entry]);
    if (!listeners) {
      const stop = this.#activate?.(name);
      if (stop) this.#sources.set(name, stop);
    }
    return () => {
      const listening = this.#listeners.get(name);
      if (!listening?.includes(entry)) return;
      if (listening.length > 1) {
        this.#listeners.set(
          name,
          listening.filter((each) => each !== entry),
        );
        return;
      }
      this.#listeners.delete(name);
      this.#sources.get(name)?.();
      this.#sources.delete(name);
    };
  }

  /** Whether anyone listens to `name` (ask before making an event). */
  has(name: HookName): boolean {
    return this.#listeners.has(name);
  }

  /** Tells the listeners of `name`. A listener that throws does not stop the others, nor the caller. */
  emit<K extends HookName>(name: K, event: HookEvents[K]): void {
    const listeners = this.#listeners.get(name) as ReadonlyArray<HookListener<K>> | undefined;
    if (!listeners) return;
    for (let index = 0; index < listeners.length; index++) {
      try {
        (listeners[index] as HookListener<K>)(event);
      } catch {
        // A listener's failure is its own: the run goes on.
      }
    }
  }

  /** Who makes trace context (one at a time; `undefined` stops). Returns the function that removes it. */
  propagate(propagation: TracePropagation | undefined): () => void {
    this.#propagation = propagation;
    return () => {
      if (this.#propagation === propagation) this.#propagation = undefined;
    };
  }

  /** The trace context a starting run continues from, if telemetry makes any. */
  runTrace(run: Parameters<TracePropagation['runStarting']>[0]): TraceCarrier | undefined {
    if (!this.#propagation) return undefined;
    return safely(() => this.#propagation?.runStarting(run));
  }

  /** Whether trace contexts are made (someone called `propagate`): else there is nothing to ask for. */
  get tracing(): boolean {
    return this.#propagation !== undefined;
  }

  /** The context of the span of the run's stretch driven here now, if telemetry traces it (for log lines). */
  runSpanTrace(runId: string): TraceCarrier | undefined {
    const propagation = this.#propagation;
    if (!propagation?.runSpan) return undefined;
    return safely(() => propagation.runSpan?.(runId));
  }

  /** The trace context of a call attempt, if telemetry makes any (a deferred one as it is: see {@link deferredCarrier}). */
  attemptTrace(attempt: Parameters<TracePropagation['attemptContext']>[0]): TraceCarrier | undefined {
    if (!this.#propagation) return undefined;
    return safely(() => this.#propagation?.attemptContext(attempt));
  }
}

/** The mark of a carrier made by {@link deferredCarrier} (its own fields are checked when it makes them). */
const DEFERRED = Symbol('wardrik.deferredCarrier');

/**
 * What a deferred carrier's proxy stands for: an object that gets the carrier's fields when one is
 * first read (shown as `TraceContext { traceparent: … }` by `console.log` once made, `TraceContext {}`
 * before: looking does not make it).
 */
class TraceContext {
  #make: (() => TraceCarrier | undefined) | undefined;

  constructor(make: () => TraceCarrier | undefined) {
    this.#make = make;
  }

  /** Makes its fields, once (a `make` that throws leaves it empty: telemetry never fails its reader). */
  static fields(target: TraceContext): TraceContext {
    const make = target.#make;
    if (make) {
      target.#make = undefined;
      try {
        Object.assign(target, plain(make()));
      } catch {
        // Left empty.
      }
    }
    return target;
  }
}

/** Whether reading `key` may read a field (not `then`, which `await` looks for, nor what every object has). */
const isField = (key: string | symbol): key is string =>
  typeof key === 'string' && key !== 'then' && !(key in Object.prototype);

const deferredHandler: ProxyHandler<TraceContext> = {
  get: (target, key) => {
    if (key === DEFERRED) return true;
    return Reflect.get(isField(key) ? TraceContext.fields(target) : target, key);
  },
  has: (target, key) => Reflect.has(isField(key) ? TraceContext.fields(target) : target, key),
  ownKeys: (target) => Reflect.ownKeys(TraceContext.fields(target)),
  getOwnPropertyDescriptor: (target, key) =>
    Reflect.getOwnPropertyDescriptor(isField(key) ? TraceContext.fields(target) : target, key),
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
  setPrototypeOf: () => false,
};

/**
 * A carrier whose fields `make` makes when one is first read (then never again), for trace
 * context that costs something to make and is often not read: a call attempt's, made into a span
 * only when a worker, an MCP server, a child run or the tool itself reads it. It reads like a
 * plain, read-only object (`carrier.traceparent`, spread, `Object.entries`, `JSON.stringify`); copy
 * it (`{ ...carrier }`) to keep it where a proxy can't go (`structuredClone`).
 */
export function deferredCarrier(make: () => TraceCarrier | undefined): TraceCarrier {
  return new Proxy(new TraceContext(make), deferredHandler) as unknown as TraceCarrier;
}

function safely(make: () => TraceCarrier | undefined): TraceCarrier | undefined {
  try {
    const carrier = make();
    if (carrier !== null && typeof carrier === 'object' && (carrier as { [DEFERRED]?: true })[DEFERRED] === true) {
      return carrier;
    }
    return plain(carrier);
  } catch {
    return undefined;
  }
}

/** `carrier` as a plain record of its string fields; undefined when it has none. */
function plain(carrier: TraceCarrier | undefined): Record<string, string> | undefined {
  if (carrier === undefined || typeof carrier !== 'object' || carrier === null) return undefined;
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(carrier)) if (typeof value === 'string') fields[key] = value;
  return Object.keys(fields).length ? fields : undefined;
}
