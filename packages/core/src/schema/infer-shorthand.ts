import type { Shorthand, ShorthandType } from './types.js';

/**
 * The arguments `run` receives for a keyword shorthand schema: a field with `required: true` or a
 * `default` is always there (defaults are filled in before `run`), any other field may be missing.
 * Shorthand refuses fields it does not name, so the object has exactly these keys.
 *
 * @example
 * ```ts
 * type Refund = ShorthandArguments<{
 *   order_id: { type: 'string'; required: true }
 *   amount: { type: 'number' }
 *   currency: { enum: ['EUR', 'USD']; default: 'EUR' }
 * }>
 * // { order_id: string; amount?: number; currency: 'EUR' | 'USD' }
 * ```
 */
export type ShorthandArguments<Schema extends Shorthand> = Flatten<
  { -readonly [Name in keyof Schema as IfAlwaysThere<Schema[Name], Name, never>]: ShorthandValue<Schema[Name]> } & {
    -readonly [Name in keyof Schema as IfAlwaysThere<Schema[Name], never, Name>]?: ShorthandValue<Schema[Name]>;
  }
>;

/**
 * The value of one shorthand field (or of a list's or map's `of`), when it is there: `string`;
 * `integer` and `number` as `number`; `boolean`; `enum` as the union of its values; `list` as an
 * array and `map` as an object of its `of`; `object` as its `fields`; `any` as `unknown`.
 *
 * @example
 * ```ts
 * type Tags = ShorthandValue<{ type: 'list'; of: 'string' }> // string[]
 * ```
 */
export type ShorthandValue<Field> = Field extends ShorthandType
  ? TypedValue<{ readonly type: Field }>
  : Field extends { readonly enum: readonly (infer Allowed)[] }
    ? EnumValue<Field, Allowed>
    : TypedValue<Field>;

/** `Then` if `run` always sees the field (it is required, or has a default that is filled in), else `Else`. */
type IfAlwaysThere<Field, Then, Else> = Field extends { readonly required: true }
  ? Then
  : Field extends { readonly default: infer Default }
    ? undefined extends Default
      ? Else
      : Then
    : Else;

/** An enum's values are checked against its `type` too, so only those of that type can pass. */
type EnumValue<Field, Allowed> = Field extends { readonly type: ShorthandType }
  ? Extract<Allowed, TypedValue<Field>>
  : Allowed;

/** The value of a field by its `type` (`unknown` for `any`, or when the type is not known). */
type TypedValue<Field> = Field extends { readonly type: 'string' }
  ? string
  : Field extends { readonly type: 'integer' | 'number' }
    ? number
    : Field extends { readonly type: 'boolean' }
      ? boolean
      : Field extends { readonly type: 'list'; readonly of: infer Item }
        ? ShorthandValue<Item>[]
        : Field extends { readonly type: 'map'; readonly of: infer Item }
          ? { [key: string]: ShorthandValue<Item> }
          : Field extends { readonly type: 'object'; readonly fields: infer Fields extends Shorthand }
            ? ShorthandArguments<Fields>
            : unknown;

/** One object type instead of an intersection, so editors show `{ a: string; b?: number }`. */
type Flatten<T> = { [Key in keyof T]: T[Key] } & {};
