import { type AnnotationKey, type Annotations, checkAnnotations } from './annotations.js';
import type { ToolContext } from './context.js';
import { describeType } from './describe-type.js';
import { ToolDefinitionError } from './errors.js';
import { compileSchema } from './schema/compile.js';
import type { SchemaArguments, SchemaCheck } from './schema/infer.js';
import type { CompiledSchema, SchemaInput } from './schema/types.js';

/**
 * Arguments as `run` receives them, when nothing more is known of them: checked, with defaults
 * filled in. A tool built from a schema has its own, inferred (see `SchemaArguments`).
 */
export type Arguments = Record<string, unknown>;

/**
 * What `run` may return: an answer made with `ok`, `error` or `park`, or a plain value
 * (which becomes an ok answer). Throwing gives an error answer carrying the message.
 */
export type RunResult = unknown;

/**
 * How to build a tool: what `tool` takes. `Args` are the arguments `run` receives, which `tool`
 * infers from `schema` (see `SchemaArguments`).
 *
 * @example
 * ```ts
 * tool({
 *   name: 'order_status',
 *   description: 'Say where an order is.',
 *   schema: { order_id: { type: 'string', required: true } },
 *   run: ({ order_id }) => orders.status(order_id), // order_id: string
 * })
 * ```
 */
export interface ToolOptions<Args = Arguments, Schema extends SchemaInput | undefined = SchemaInput> {
  /** 1–128 characters of `A–Z a–z 0–9 _ - .` (MCP's rule). */
  readonly name: string;
  /** A human-friendly name, shown to people (MCP's `title`). */
  readonly title?: string;
  /** What the model reads to decide when to call it. */
  readonly description: string;
  /** Does the work, with checked arguments and the call's context. */
  readonly run: (args: Args, context: ToolContext) => RunResult | Promise<RunResult>;
  /** The arguments: keyword shorthand, JSON Schema or Standard Schema. None means no arguments. */
  readonly schema?: Schema;
  /** Facts about the tool. */
  readonly annotations?: Annotations;
}

/**
 * A tool an agent may call, whose `run` takes `Args`. Immutable: `annotate` and `putPrivate`
 * return new tools. Any tool is a `Tool<never>`, the type lists of tools take.
 */
export interface Tool<Args = Arguments> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly run: (args: Args, context: ToolContext) => RunResult | Promise<RunResult>;
  readonly schema: CompiledSchema;
  readonly annotations: Readonly<Annotations>;
  /** Private data, keyed by the owning module. Read with `getPrivate`. */
  readonly privates: ReadonlyMap<unknown, unknown>;
}

const namePattern = /^[A-Za-z0-9_.-]{1,128}$/;

/** Whether `name` follows MCP's rule for tool names. */
export function isValidToolName(name: unknown): name is string {
  return typeof name === 'string' && namePattern.test(name);
}

/**
 * Builds a tool. Throws `ToolDefinitionError` at once, naming the field, if a required option
 * (`name`, `description`, `run`) is missing or anything is malformed. The schema is compiled here,
 * once.
 *
 * `run`'s arguments are typed from the schema, written as a literal (no `as const` needed): the
 * shorthand's and a JSON Schema's fields (required or defaulted ones always there, others maybe
 * missing), a Standard Schema's output type, or no arguments without a schema (see
 * `SchemaArguments`).
 *
 * @example
 * ```ts
 * const orderStatus = tool({
 *   name: 'order_status',
 *   description: 'Say where an order is.',
 *   schema: { order_id: { type: 'string', required: true } },
 *   run: ({ order_id }) => orders.status(order_id),
 *   annotations: { readOnly: true },
 * })
 * ```
 */
export function tool<const Schema extends SchemaInput | undefined = undefined>(
  options: ToolOptions<SchemaArguments<Schema>, Schema> & { readonly schema?: SchemaCheck<Schema> },
): Tool<SchemaArguments<Schema>>;
export function tool(options: ToolOptions<never, SchemaInput | undefined>): Tool<never> {
  if (typeof options !== 'object' || options === null) {
    throw new ToolDefinitionError(`tool: expected an options object, got ${describeType(options)}`);
  }
  const missing = (['name', 'description', 'run'] as const).filter((key) => options[key] === undefined);
  if (missing.length)
    throw new ToolDefinitionError(
      `tool: missing required option${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
    );
  const { name, title, description, run } = options;
  if (!isValidToolName(name)) {
    throw new ToolDefinitionError(
      `tool: name ${JSON.stringify(name)} is invalid: use 1–128 characters of A–Z a–z 0–9 _ - .`,
    );
  }
  if (typeof description !== 'string')
    throw new ToolDefinitionError(`tool ${name}: description must be a string, got ${describeType(description)}`);
  if (typeof run !== 'function')
    throw new ToolDefinitionError(`tool ${name}: run must be a function, got ${describeType(run)}`);
  if (title !== undefined && typeof title !== 'string')
    throw new ToolDefinitionError(`tool ${name}: title must be a string, got ${describeType(title)}`);
  let schema: CompiledSchema;
  let annotations: Readonly<Annotations>;
  try {
    schema = compileSchema(options.schema);
    annotations = checkAnnotations(options.annotations);
  } catch (cause) {
    if (ToolDefinitionError.isInstance(cause))
      throw new ToolDefinitionError(`tool ${name}: ${cause.message}`, { cause });
    throw cause;
  }
  return freeze({ name, title, description, run, schema, annotations, privates: new Map() });
}

function freeze(tool: Tool<never> & { title: string | undefined }): Tool<never> {
  const { title, ...rest } = tool;
  return Object.freeze(title === undefined ? rest : { ...rest, title });
}

/**
 * A copy of `tool` with `annotations` added; each replaces any with the same key.
 *
 * @example
 * ```ts
 * const safe = annotate(lookup, { readOnly: true, timeout: 2_000 })
 * ```
 */
export function annotate<Args>(tool: Tool<Args>, annotations: Annotations): Tool<Args> {
  const merged = checkAnnotations({ ...tool.annotations, ...checkAnnotations(annotations) });
  return Object.freeze({ ...tool, annotations: merged });
}

/**
 * The annotation `key`, or `fallback` if the tool does not set it.
 *
 * @example
 * ```ts
 * const ms = annotation(lookup, 'timeout', 30_000)
 * ```
 */
export function annotation<K extends AnnotationKey, F>(
  tool: Tool<never> | Tool<Arguments>,
  key: K,
  fallback: F,
): NonNullable<Annotations[K]> | F {
  const value = tool.annotations[key];
  return value === undefined ? fallback : (value as NonNullable<Annotations[K]>);
}

/**
 * Whether a call to the tool is safe to repeat: it is read-only or idempotent.
 * Such calls are retried when they fail and repeated when lost in a crash.
 *
 * @example
 * ```ts
 * repeatable(annotate(lookup, { readOnly: true })) // true
 * ```
 */
export function repeatable(tool: Tool<never> | Tool<Arguments>): boolean {
  return tool.annotations.readOnly === true || tool.annotations.idempotent === true;
}

/**
 * The private value under `key`, or `fallback`. Use your own module (or a symbol) as the key.
 *
 * @example
 * ```ts
 * const owner = Symbol('my-package')
 * const marked = putPrivate(lookup, owner, { region: 'eu' })
 * getPrivate(marked, owner, null) // { region: 'eu' }
 * ```
 */
export function getPrivate<T>(tool: Tool<never> | Tool<Arguments>, key: unknown, fallback: T): T {
  return tool.privates.has(key) ? (tool.privates.get(key) as T) : fallback;
}

/** A copy of `tool` with `value` as its private data under `key`. */
export function putPrivate<Args>(tool: Tool<Args>, key: unknown, value: unknown): Tool<Args> {
  const privates = new Map(tool.privates);
  privates.set(key, value);
  return Object.freeze({ ...tool, privates });
}

/** A copy of `tool` with the private value under `key` updated by `update`; `fallback` is put if there is none yet. */
export function updatePrivate<Args, T>(
  tool: Tool<Args>,
  key: unknown,
  fallback: T,
  update: (value: T) => T,
): Tool<Args> {
  return putPrivate(tool, key, tool.privates.has(key) ? update(tool.privates.get(key) as T) : fallback);
}
