import { exceedsDepth, MAX_JSON_DEPTH } from './arguments.js';
import { type Label, mergeLabels } from './labels.js';

/**
 * Where a state key lives, by its prefix (ADK's scopes):
 * - no prefix: this session (in a run without a session: this run only);
 * - `user:`: every session of this principal with this agent's app;
 * - `app:`: every session of the app, all principals (writing it is the agent's opt-in);
 * - `temp:`: this run only, never stored past it.
 */
export type StateScope = 'session' | 'user' | 'app' | 'temp';

/** The longest state key, in characters. */
export const MAX_STATE_KEY_LENGTH = 256;
/** The largest state value, as JSON, in bytes. */
export const MAX_STATE_VALUE_BYTES = 64 * 1024;

/** A stored value and the labels it carries (those of the run and the answer that wrote it). */
export interface StateEntry {
  readonly value: unknown;
  readonly labels: readonly Label[];
}

/** One write of a call: a new value for `key`, or its deletion. */
export type StateChange =
  | { readonly key: string; readonly value: unknown; readonly deleted?: undefined }
  | { readonly key: string; readonly deleted: true; readonly value?: undefined };

/** Reading state: what toolsets and instructions see. */
export interface StateReader {
  /** The value of `key` (a copy: changing it changes nothing), or undefined. */
  get<T = unknown>(key: string): T | undefined;
  /** Whether `key` has a value. The key's labels go to the reader when it has one (its name was written under them). */
  has(key: string): boolean;
  /** Every key with a value, sorted. The labels of every key listed go to the reader (names may hold outside text). */
  keys(): string[];
}

/**
 * A call's view of the state: what it was when the call began, plus this call's own writes.
 * Writes are journaled with the call's answer and applied once, in journal order; a call that is
 * retried, times out, parks or is cancelled applies none of its writes.
 *
 * @example
 * ```ts
 * run: async ({ item }, context) => {
 *   const cart = context.state.get<string[]>('cart') ?? []
 *   context.state.set('cart', [...cart, item])
 *   context.state.set('user:last_item', item)
 *   return { items: cart.length + 1 }
 * }
 * ```
 */
export interface ToolState extends StateReader {
  /** Sets `key` to a JSON value. Throws a TypeError naming the problem for a bad key or value. */
  set(key: string, value: unknown): void;
  delete(key: string): void;
}

/** Where a view reads from. */
export interface StateSource {
  entry(key: string): StateEntry | undefined;
  keys(): Iterable<string>;
}

/** The scope of `key`, by its prefix. */
export function stateScope(key: string): StateScope {
  if (key.startsWith('user:')) return 'user';
  if (key.startsWith('app:')) return 'app';
  if (key.startsWith('temp:')) return 'temp';
  return 'session';
}

/** Why `key` can't be a state key, or undefined when it can. */
export function stateKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return `a state key must be a string, got ${typeof key}`;
  if (key.length === 0) return 'a state key must not be empty';
  if (key.length > MAX_STATE_KEY_LENGTH) {
    return `state key ${JSON.stringify(`${key.slice(0, 40)}…`)} is ${key.length} characters long (at most ${MAX_STATE_KEY_LENGTH})`;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(key)) return `state key ${JSON.stringify(key)} holds a control character`;
  const scope = stateScope(key);
  const bare = scope === 'session' ? key : key.slice(key.indexOf(':') + 1);
  if (bare.length === 0) return `state key ${JSON.stringify(key)} names a scope but no key`;
  return undefined;
}

/** Throws a TypeError unless `key` is a state key. */
export function checkStateKey(key: unknown): asserts key is string {
  const problem = stateKeyProblem(key);
  if (problem !== undefined) throw new TypeError(problem);
}

/**
 * A value made ready to store: checked to be JSON (no functions, no `undefined`, no cycles, no
 * `NaN`), at most {@link MAX_JSON_DEPTH} levels deep and {@link MAX_STATE_VALUE_BYTES} bytes as
 * JSON, and copied, so that changing the original later changes nothing stored. Throws a
 * TypeError naming `key` and the problem.
 */
export function storableStateValue(key: string, value: unknown): unknown {
  if (value === undefined)
    throw new TypeError(`state ${JSON.stringify(key)}: a value must be JSON, got undefined (use delete)`);
  if (exceedsDepth(value, MAX_JSON_DEPTH)) {
    throw new TypeError(`state ${JSON.stringify(key)}: the value nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value, (_, each) => {
      if (typeof each === 'number' && !Number.isFinite(each)) throw new TypeError(`${each} is not a JSON number`);
      if (typeof each === 'function' || typeof each === 'symbol' || typeof each === 'bigint') {
        throw new TypeError(`a ${typeof each} is not JSON`);
      }
      return each;
    });
  } catch (cause) {
    throw new TypeError(`state ${JSON.stringify(key)}: the value is not JSON (${(cause as Error).message})`);
  }
  if (json === undefined) throw new TypeError(`state ${JSON.stringify(key)}: the value is not JSON`);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_STATE_VALUE_BYTES) {
    throw new TypeError(
      `state ${JSON.stringify(key)}: the value is ${bytes} bytes as JSON (at most ${MAX_STATE_VALUE_BYTES})`,
    );
  }
  return JSON.parse(json);
}

/** How a view treats reads and writes. */
export interface StateViewOptions {
  /** Told the labels of each stored value read (the reader takes them). */
  readonly onRead?: (labels: readonly Label[]) => void;
  /** Why `key` may not be written here, or undefined when it may. */
  readonly writeRefusal?: (key: string) => string | undefined;
}

const emptySource: StateSource = { entry: () => undefined, keys: () => [] };

/**
 * State as one call sees it: reads from `source`, writes collected in `changes` (see
 * {@link ToolState}). Reading a value that carries labels gives them to the reader (`onRead`):
 * text from outside never loses its label by passing through state.
 */
export class StateView implements ToolState {
  readonly #source: StateSource;
  readonly #options: StateViewOptions;
  readonly #changes = new Map<string, StateChange>();

  constructor(source: StateSource = emptySource, options: StateViewOptions = {}) {
    this.#source = source;
    this.#options = options;
  }

  get<T = unknown>(key: string): T | undefined {
    checkStateKey(key);
    const changed = this.#changes.get(key);
    if (changed) return changed.deleted ? undefined : (structuredClone(changed.value) as T);
    const entry = this.#source.entry(key);
    if (entry === undefined) return undefined;
    if (entry.labels.length > 0) this.#options.onRead?.(entry.labels);
    return structuredClone(entry.value) as T;
  }

  has(key: string): boolean {
    checkStateKey(key);
    const changed = this.#changes.get(key);
    if (changed) return !changed.deleted;
    const entry = this.#source.entry(key);
    if (entry === undefined) return false;
    // That the key exists is what the write that made it said (its name may hold outside text).
    if (entry.labels.length > 0) this.#options.onRead?.(entry.labels);
    return true;
  }

  /** Every key with a value, sorted. A key's name is read too: the labels of every stored key listed go to the reader. */
  keys(): string[] {
    const keys = new Set<string>();
    let labels: Label[] = [];
    for (const key of this.#source.keys()) {
      if (this.#changes.has(key)) continue; // this call's own write or deletion decides
      const entry = this.#source.entry(key);
      if (entry === undefined) continue;
      keys.add(key);
      if (entry.labels.length > 0) labels = mergeLabels(labels, entry.labels);
    }
    for (const change of this.#changes.values()) if (!change.deleted) keys.add(change.key);
    if (labels.length > 0) this.#options.onRead?.(labels);
    return [...keys].sort();
  }

  set(key: string, value: unknown): void {
    this.#checkWritable(key);
    const stored = storableStateValue(key, value);
    this.#changes.delete(key); // the latest write of a key comes last
    this.#changes.set(key, { key, value: stored });
  }

  delete(key: string): void {
    this.#checkWritable(key);
    this.#changes.delete(key);
    this.#changes.set(key, { key, deleted: true });
  }

  /** This call's writes, one per key, in the order of each key's latest write. */
  get changes(): readonly StateChange[] {
    return [...this.#changes.values()];
  }

  #checkWritable(key: string): void {
    checkStateKey(key);
    const refusal = this.#options.writeRefusal?.(key);
    if (refusal !== undefined) throw new TypeError(refusal);
  }
}
