/**
 * The arguments `run` receives for a JSON Schema given as a literal (or `as const`): what the
 * schema lets through, with each property that has a `default` always there (defaults are filled
 * in before `run`).
 *
 * Inferred: `type` (one or a list), `enum`, `const`, `nullable`, `properties` with `required`,
 * `additionalProperties` (`false` closes the object, a schema types the other keys of an object
 * without `properties`; otherwise any other key is `unknown`), `items`, tuples (`prefixItems`, or
 * `items: [...]` with `additionalItems`) whose elements may be missing, and `anyOf` / `oneOf` (a
 * union) and `allOf` (an intersection) of what they infer. Not followed: `$ref` (its value is
 * `unknown`) and conditions such as `if`, `not` or `minItems`; what they refuse is still refused
 * at run time, the type is only wider than it could be.
 *
 * @example
 * ```ts
 * type Refund = JsonSchemaArguments<{
 *   type: 'object'
 *   properties: { order_id: { type: 'string' }; amount: { type: 'number' }; note: { type: 'string'; default: '' } }
 *   required: ['order_id']
 *   additionalProperties: false
 * }>
 * // { order_id: string; note: string; amount?: number }
 * ```
 */
export type JsonSchemaArguments<Schema> = NonNullable<JsonSchemaValue<Schema>>;

/**
 * The values a JSON Schema lets through, as a type (see `JsonSchemaArguments` for what is inferred).
 *
 * @example
 * ```ts
 * type Size = JsonSchemaValue<{ enum: ['S', 'M', 'L'] }> // 'S' | 'M' | 'L'
 * ```
 */
export type JsonSchemaValue<Schema> = Schema extends true
  ? unknown
  : Schema extends false
    ? never
    : Schema extends { readonly $ref: string }
      ? unknown
      : OrNull<
          Schema,
          ConstValue<Schema> &
            EnumValue<Schema> &
            TypeValue<Schema> &
            AnyOfValue<Schema, 'anyOf'> &
            AnyOfValue<Schema, 'oneOf'> &
            AllOfValue<Schema>
        >;

/** Ajv reads OpenAPI's `nullable: true` as "or null". */
type OrNull<Schema, Value> = Schema extends { readonly nullable: true } ? Value | null : Value;

type ConstValue<Schema> = Schema extends { readonly const: infer Value } ? Value : unknown;

type EnumValue<Schema> = Schema extends { readonly enum: readonly (infer Value)[] } ? Value : unknown;

type TypeValue<Schema> = Schema extends { readonly type: infer Name }
  ? Name extends readonly (infer Each)[]
    ? NamedTypeValue<Schema, Each>
    : NamedTypeValue<Schema, Name>
  : unknown;

/** The value of one JSON type name; a name that is not one of JSON's (or not known) lets anything through. */
type NamedTypeValue<Schema, Name> = Name extends 'string'
  ? string
  : Name extends 'number' | 'integer'
    ? number
    : Name extends 'boolean'
      ? boolean
      : Name extends 'null'
        ? null
        : Name extends 'array'
          ? ArrayValue<Schema>
          : Name extends 'object'
            ? ObjectValue<Schema>
            : unknown;

type AnyOfValue<Schema, Keyword extends 'anyOf' | 'oneOf'> = Schema extends {
  readonly [key in Keyword]: readonly (infer Member)[];
}
  ? EachValue<Member>
  : unknown;

/** Distributes over a union of schemas: the union of their values. */
type EachValue<Member> = Member extends unknown ? JsonSchemaValue<Member> : never;

type AllOfValue<Schema> = Schema extends { readonly allOf: infer Members } ? EveryValue<Members> : unknown;

/** The intersection of the values of a tuple of schemas. */
type EveryValue<Members> = Members extends readonly [infer First, ...infer Rest]
  ? JsonSchemaValue<First> & EveryValue<Rest>
  : unknown;

// Arrays

type ArrayValue<Schema> = Schema extends { readonly prefixItems: infer Prefix extends readonly unknown[] }
  ? TupleValue<Prefix, Schema extends { readonly items: infer Rest } ? Rest : true>
  : Schema extends { readonly items: infer Items }
    ? Items extends readonly unknown[]
      ? TupleValue<Items, Schema extends { readonly additionalItems: infer Rest } ? Rest : true>
      : JsonSchemaValue<Items>[]
    : unknown[];

/** A tuple whose elements may each be missing (nothing requires a length), then the rest, if any may follow. */
type TupleValue<Prefix extends readonly unknown[], Rest> = Rest extends false
  ? MaybeMissing<Prefix>
  : [...MaybeMissing<Prefix>, ...JsonSchemaValue<Rest>[]];

type MaybeMissing<Prefix extends readonly unknown[]> = {
  -readonly [Index in keyof Prefix]?: JsonSchemaValue<Prefix[Index]>;
};

// Objects

type ObjectValue<Schema> = Flatten<
  { -readonly [Name in AlwaysThere<Schema>]: PropertyValue<Schema, Name> } & {
    -readonly [Name in Exclude<keyof PropertiesOf<Schema>, AlwaysThere<Schema>>]?: PropertyValue<Schema, Name>;
  } & OtherKeys<Schema>
>;

type PropertiesOf<Schema> = Schema extends { readonly properties: infer Properties extends object }
  ? Properties
  : Record<never, never>;

/** The keys `run` always sees: those `required` names, and properties with a default (filled in). */
type AlwaysThere<Schema> = RequiredNames<Schema> | DefaultedNames<PropertiesOf<Schema>>;

type RequiredNames<Schema> = Schema extends { readonly required: readonly (infer Name extends string)[] }
  ? Name
  : never;

type DefaultedNames<Properties> = {
  [Name in keyof Properties]: Properties[Name] extends { readonly default: unknown } ? Name : never;
}[keyof Properties];

/** A property's value; a required name that `properties` does not describe can be anything. */
type PropertyValue<Schema, Name> = Name extends keyof PropertiesOf<Schema>
  ? JsonSchemaValue<PropertiesOf<Schema>[Name]>
  : unknown;

/** The keys besides `properties`: none when closed; typed by `additionalProperties` when it is all there is. */
type OtherKeys<Schema> = Schema extends
  | { readonly additionalProperties: false }
  | { readonly unevaluatedProperties: false }
  ? Record<never, never>
  : Schema extends { readonly additionalProperties: infer Other extends object }
    ? Schema extends { readonly properties: object } | { readonly patternProperties: object }
      ? { [key: string]: unknown }
      : { [key: string]: JsonSchemaValue<Other> }
    : { [key: string]: unknown };

/** One object type instead of an intersection, so editors show `{ a: string; b?: number }`. */
type Flatten<T> = { [Key in keyof T]: T[Key] } & {};
