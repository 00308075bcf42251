// Type tests: compiled by tool-types.test.ts, which fails on any error (an unused
// `@ts-expect-error` included). Not run.
import { type JsonSchema, type JsonSchemaArguments, type JsonSchemaValue, type Tool, tool } from '@wardrik/core';
import { expectTypeOf } from 'vitest';

type ArgumentsOf<T> = T extends Tool<infer Args> ? Args : never;

const base = { name: 'example', description: 'An example.' };

// A literal JSON Schema infers without `as const`: required properties, optional ones, a closed object.
const refund = tool({
  ...base,
  schema: {
    type: 'object',
    properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
    required: ['order_id'],
    additionalProperties: false,
  },
  run: ({ order_id, amount }) => {
    expectTypeOf(order_id).toEqualTypeOf<string>();
    // @ts-expect-error an optional property may be missing
    amount.toFixed();
    // @ts-expect-error a string is not a number
    return order_id.toFixed();
  },
});
expectTypeOf<ArgumentsOf<typeof refund>>().toEqualTypeOf<{ order_id: string; amount?: number }>();

// A schema kept in a variable `as const` infers the same.
const refundSchema = {
  type: 'object',
  properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
  required: ['order_id'],
  additionalProperties: false,
} as const;
const fromVariable = tool({ ...base, schema: refundSchema, run: ({ order_id }) => order_id });
expectTypeOf<ArgumentsOf<typeof fromVariable>>().toEqualTypeOf<{ order_id: string; amount?: number }>();

// Without `additionalProperties: false` any other key may come, of unknown type.
expectTypeOf<JsonSchemaArguments<{ type: 'object'; properties: { a: { type: 'string' } }; required: ['a'] }>>()
  //
  .toEqualTypeOf<{ [key: string]: unknown; a: string }>();
// An `additionalProperties` schema types the other keys of an object that has no `properties`.
expectTypeOf<JsonSchemaValue<{ type: 'object'; additionalProperties: { type: 'integer' } }>>()
  //
  .toEqualTypeOf<{ [key: string]: number }>();
// `unevaluatedProperties: false` closes it too.
expectTypeOf<
  JsonSchemaArguments<{ type: 'object'; properties: { a: { type: 'boolean' } }; unevaluatedProperties: false }>
>().toEqualTypeOf<{ a?: boolean }>();

// A property with a default is always there (filled in before run).
expectTypeOf<
  JsonSchemaArguments<{
    type: 'object';
    properties: { qty: { type: 'integer'; default: 1 }; note: { type: 'string' } };
    additionalProperties: false;
  }>
>().toEqualTypeOf<{ qty: number; note?: string }>();

// Types: one or several, null, enum, const, nullable.
expectTypeOf<JsonSchemaValue<{ type: 'string' }>>().toEqualTypeOf<string>();
expectTypeOf<JsonSchemaValue<{ type: 'integer' }>>().toEqualTypeOf<number>();
expectTypeOf<JsonSchemaValue<{ type: ['string', 'null'] }>>().toEqualTypeOf<string | null>();
expectTypeOf<JsonSchemaValue<{ type: 'string'; enum: ['S', 'M'] }>>().toEqualTypeOf<'S' | 'M'>();
expectTypeOf<JsonSchemaValue<{ enum: ['S', 1, null] }>>().toEqualTypeOf<'S' | 1 | null>();
expectTypeOf<JsonSchemaValue<{ const: 'fixed' }>>().toEqualTypeOf<'fixed'>();
expectTypeOf<JsonSchemaValue<{ type: 'string'; nullable: true }>>().toEqualTypeOf<string | null>();
expectTypeOf<JsonSchemaValue<{ description: 'anything' }>>().toEqualTypeOf<unknown>();
expectTypeOf<JsonSchemaValue<true>>().toEqualTypeOf<unknown>();
expectTypeOf<JsonSchemaValue<false>>().toEqualTypeOf<never>();

// Arrays: items; tuples (prefixItems, or items: [...] in older drafts) whose elements may be missing.
expectTypeOf<JsonSchemaValue<{ type: 'array'; items: { type: 'string' } }>>().toEqualTypeOf<string[]>();
expectTypeOf<JsonSchemaValue<{ type: 'array' }>>().toEqualTypeOf<unknown[]>();
expectTypeOf<
  JsonSchemaValue<{ type: 'array'; prefixItems: [{ type: 'string' }, { type: 'number' }]; items: false }>
>().toEqualTypeOf<[string?, number?]>();
expectTypeOf<JsonSchemaValue<{ type: 'array'; prefixItems: [{ type: 'string' }]; items: { type: 'boolean' } }>>()
  //
  .toEqualTypeOf<[string?, ...boolean[]]>();
expectTypeOf<JsonSchemaValue<{ type: 'array'; items: [{ type: 'string' }]; additionalItems: false }>>()
  //
  .toEqualTypeOf<[string?]>();
expectTypeOf<JsonSchemaValue<{ type: 'array'; items: [{ type: 'string' }] }>>().toEqualTypeOf<
  [string?, ...unknown[]]
>();

// Nested objects and arrays, through a tool.
const order = tool({
  ...base,
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
          required: ['sku', 'qty'],
          additionalProperties: false,
        },
      },
      speed: { enum: ['standard', 'express'], default: 'standard' },
    },
    required: ['items'],
    additionalProperties: false,
  },
  run: ({ items, speed }) => {
    const first = items[0];
    // @ts-expect-error an array's element may be missing (noUncheckedIndexedAccess)
    first.sku;
    return `${first?.sku} ${speed}`;
  },
});
expectTypeOf<ArgumentsOf<typeof order>>().toEqualTypeOf<{
  items: { sku: string; qty: number }[];
  speed: 'standard' | 'express';
}>();

// anyOf and oneOf are unions, allOf an intersection.
expectTypeOf<JsonSchemaValue<{ anyOf: [{ type: 'string' }, { type: 'number' }] }>>().toEqualTypeOf<string | number>();
expectTypeOf<JsonSchemaValue<{ oneOf: [{ const: 'a' }, { const: 'b' }] }>>().toEqualTypeOf<'a' | 'b'>();
expectTypeOf<
  JsonSchemaValue<{
    allOf: [
      { type: 'object'; properties: { a: { type: 'string' } }; required: ['a'] },
      { type: 'object'; properties: { b: { type: 'number' } }; required: ['b'] },
    ];
  }>
>().toEqualTypeOf<{ [key: string]: unknown; a: string } & { [key: string]: unknown; b: number }>();

// A $ref is not followed: its value is unknown (in draft-07 even its siblings are ignored).
expectTypeOf<JsonSchemaValue<{ $ref: '#/$defs/name'; type: 'string' }>>().toEqualTypeOf<unknown>();
expectTypeOf<
  JsonSchemaArguments<{
    type: 'object';
    properties: { item: { $ref: '#/$defs/item' } };
    required: ['item'];
    additionalProperties: false;
    $defs: { item: { type: 'string' } };
  }>
>().toEqualTypeOf<{ item: unknown }>();

// A required name that properties does not describe can be anything.
expectTypeOf<JsonSchemaArguments<{ type: 'object'; required: ['id']; additionalProperties: false }>>()
  //
  .toEqualTypeOf<{ id: unknown }>();

// A schema whose type is not known in detail gives arguments of unknown type.
declare const loaded: JsonSchema;
const fromLoaded = tool({ ...base, schema: loaded, run: (args) => args });
expectTypeOf<ArgumentsOf<typeof fromLoaded>>().toEqualTypeOf<Record<string, unknown>>();
const widened = { type: 'object', properties: { a: { type: 'string' } } };
const fromWidened = tool({ ...base, schema: widened, run: (args) => args });
expectTypeOf<ArgumentsOf<typeof fromWidened>>().toEqualTypeOf<Record<string, unknown>>();

const tools: readonly Tool<never>[] = [refund, fromVariable, order, fromLoaded, fromWidened];
expectTypeOf(tools).toExtend<readonly Tool<never>[]>();
