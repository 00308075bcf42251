import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Issue } from '../answer.js';

/** A JSON Schema object (draft-04, -06, -07, 2019-09 or 2020-12, named by its `$schema`). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The type of a field in the keyword shorthand. */
export type ShorthandType = 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'map' | 'object' | 'any';

/**
 * One field of the keyword shorthand, e.g. `{ type: 'string', required: true, doc: 'The order id' }`.
 * Lists and maps name their item type with `of`; objects their fields with `fields`.
 */
export interface ShorthandField {
  readonly type?: ShorthandType;
  /** For `list` and `map`: the type of each item (a type name, or a field spec). */
  readonly of?: ShorthandType | ShorthandField;
  /** For `object`: its fields, in shorthand. */
  readonly fields?: Shorthand;
  /** The allowed values. `type` may be left out and is then inferred. */
  readonly enum?: readonly (string | number | boolean)[];
  /** The call is refused without it. */
  readonly required?: boolean;
  /** Filled in before `run` sees the arguments. */
  readonly default?: unknown;
  /** What the model reads about the field. */
  readonly doc?: string;
}

/** The seed's keyword shorthand: field name → field spec, e.g. `{ order_id: { type: 'string', required: true } }`. */
export type Shorthand = { readonly [field: string]: ShorthandField };

/** Any of the three forms a tool's schema may take. */
export type SchemaInput = Shorthand | JsonSchema | StandardSchemaV1;

/** The outcome of checking arguments: the value `run` sees (defaults filled in), or every problem. */
export type ValidationResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly issues: Issue[] };

/** A schema compiled once, when its tool was built. */
export interface CompiledSchema {
  /** Which form the schema was given in. */
  readonly form: 'shorthand' | 'json-schema' | 'standard-schema';
  /** What the model is given: a JSON Schema in draft 2020-12 (an older dialect translated) with `type: 'object'`. */
  readonly jsonSchema: JsonSchema;
  /** Checks arguments. Synchronous unless a Standard Schema validates asynchronously. */
  validate(value: unknown): ValidationResult | Promise<ValidationResult>;
}
