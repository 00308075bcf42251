import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonSchemaArguments } from './infer-json-schema.js';
import type { ShorthandArguments } from './infer-shorthand.js';
import type { Shorthand } from './types.js';

/**
 * The arguments of a tool without a schema: none. A call with any argument is refused.
 *
 * @example
 * ```ts
 * const now = tool({ name: 'now', description: 'The time.', run: () => new Date().toISOString() })
 * // now: Tool<NoArguments>
 * ```
 */
export type NoArguments = Record<string, never>;

/**
 * A JSON Schema a tool's arguments can have: an object schema (`type: 'object'`), the only kind
 * `tool` accepts.
 */
export type ObjectJsonSchema = { readonly type: 'object'; readonly [keyword: string]: unknown };

/**
 * What a schema literal must also be, so that a misspelt shorthand (`{ id: { type: 'strng' } }`)
 * does not compile: it would otherwise pass as a JSON Schema object of unknown keywords (and the
 * arguments become `Record<string, unknown>`). An object whose every field is an object with a
 * `type`, and which is neither an object JSON Schema nor a Standard Schema, must be a valid
 * shorthand; anything else is unchecked here (`unknown`).
 *
 * @example
 * ```ts
 * tool({ name: 't', description: 'd', schema: { id: { type: 'strng' } }, run: () => 1 })
 * // error: Type '"strng"' is not assignable to type 'ShorthandType | undefined'
 * ```
 */
export type SchemaCheck<Schema> = [Schema] extends [undefined]
  ? unknown
  : Schema extends StandardSchemaV1 | ObjectJsonSchema | Shorthand
    ? unknown
    : Schema extends { readonly [field: string]: { readonly type: unknown } }
      ? Shorthand
      : unknown;

/**
 * The arguments `run` receives for a schema in any of its forms: a Standard Schema (such as Zod 4)
 * gives its output type; a JSON Schema object, `JsonSchemaArguments`; the keyword shorthand,
 * `ShorthandArguments`; no schema, `NoArguments`. A schema whose type is not known in detail
 * (say, one read from a file) gives `Record<string, unknown>`.
 *
 * @example
 * ```ts
 * const schema = { order_id: { type: 'string', required: true } } as const
 * type Args = SchemaArguments<typeof schema> // { order_id: string }
 * ```
 */
export type SchemaArguments<Schema> = [Schema] extends [undefined]
  ? NoArguments
  : Schema extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<Schema>
    : Schema extends ObjectJsonSchema
      ? JsonSchemaArguments<Schema>
      : Schema extends Shorthand
        ? ShorthandArguments<Schema>
        : Record<string, unknown>;
