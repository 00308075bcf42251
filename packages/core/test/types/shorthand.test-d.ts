// Type tests: compiled by tool-types.test.ts, which fails on any error (an unused
// `@ts-expect-error` included). Not run.
import { type Shorthand, type ShorthandArguments, type Tool, type Tools, tool } from '@wardrik/core';
import { expectTypeOf } from 'vitest';

type ArgumentsOf<T> = T extends Tool<infer Args> ? Args : never;

const base = { name: 'example', description: 'An example.' };

// A required field is its type; run sees it as such, inferred from a plain literal.
const orderStatus = tool({
  ...base,
  schema: { order_id: { type: 'string', required: true } },
  run: ({ order_id }) => {
    expectTypeOf(order_id).toEqualTypeOf<string>();
    // @ts-expect-error a required string is not a number
    const wrong: number = order_id;
    return wrong;
  },
});
expectTypeOf<ArgumentsOf<typeof orderStatus>>().toEqualTypeOf<{ order_id: string }>();

// @ts-expect-error the arguments have no other field (shorthand refuses unknown fields)
tool({ ...base, schema: { order_id: { type: 'string', required: true } }, run: ({ other }) => other });

// run may not claim arguments other than those the schema gives.
tool({
  ...base,
  schema: { order_id: { type: 'string', required: true } },
  // @ts-expect-error order_id is a string, not a number
  run: (args: { order_id: number }) => args.order_id,
});

// Optional fields may be missing; `required: false` is optional too.
const optional = tool({
  ...base,
  schema: { note: { type: 'string' }, count: { type: 'integer', required: false } },
  run: ({ note }) => {
    // @ts-expect-error an optional field may be missing
    note.length;
    return note?.length;
  },
});
expectTypeOf<ArgumentsOf<typeof optional>>().toEqualTypeOf<{ note?: string; count?: number }>();

// Each type: integer and number are numbers; boolean; any is unknown.
expectTypeOf<
  ShorthandArguments<{
    qty: { type: 'integer'; required: true };
    price: { type: 'number'; required: true };
    gift: { type: 'boolean'; required: true };
    extra: { type: 'any'; required: true };
  }>
>().toEqualTypeOf<{ qty: number; price: number; gift: boolean; extra: unknown }>();

// A default is filled in before run: the field is always there, with its field's type (not the default's literal).
const defaulted = tool({
  ...base,
  schema: { qty: { type: 'integer', default: 1 }, speed: { enum: ['standard', 'express'], default: 'standard' } },
  run: ({ qty, speed }) => qty.toFixed() + speed,
});
expectTypeOf<ArgumentsOf<typeof defaulted>>().toEqualTypeOf<{ qty: number; speed: 'standard' | 'express' }>();

// `default: undefined` is no default (run time ignores it): the field may be missing.
expectTypeOf<ShorthandArguments<{ note: { type: 'string'; default: undefined } }>>().toEqualTypeOf<{ note?: string }>();

// An enum is the union of its values, with or without a type; with one, only values of that type can pass.
expectTypeOf<
  ShorthandArguments<{
    size: { enum: ['S', 'M', 'L']; required: true };
    level: { type: 'integer'; enum: [1, 2, 3]; required: true };
    mixed: { enum: ['auto', 0]; required: true };
    typed: { type: 'string'; enum: ['on', 1]; required: true };
  }>
>().toEqualTypeOf<{ size: 'S' | 'M' | 'L'; level: 1 | 2 | 3; mixed: 'auto' | 0; typed: 'on' }>();
tool({
  ...base,
  schema: { size: { enum: ['S', 'M', 'L'], required: true } },
  run: ({ size }) => {
    // @ts-expect-error 'XL' is not one of the enum's values
    return size === 'XL';
  },
});

// Lists and maps, of a type name or of a field spec; objects with their fields; recursively.
const nested = tool({
  ...base,
  schema: {
    tags: { type: 'list', of: 'string', required: true },
    sizes: { type: 'list', of: { enum: ['S', 'M'] } },
    stock: { type: 'map', of: 'integer', required: true },
    items: {
      type: 'list',
      required: true,
      of: {
        type: 'object',
        fields: {
          sku: { type: 'string', required: true },
          qty: { type: 'integer', default: 1 },
          note: { type: 'string' },
        },
      },
    },
    address: {
      type: 'object',
      fields: {
        city: { type: 'string', required: true },
        lines: { type: 'list', of: { type: 'list', of: 'string' } },
      },
    },
  },
  run: ({ stock }) => {
    // @ts-expect-error a map's key may be missing (noUncheckedIndexedAccess)
    stock.A1.toFixed();
    return stock.A1?.toFixed();
  },
});
expectTypeOf<ArgumentsOf<typeof nested>>().toEqualTypeOf<{
  tags: string[];
  sizes?: ('S' | 'M')[];
  stock: { [key: string]: number };
  items: { sku: string; qty: number; note?: string }[];
  address?: { city: string; lines?: string[][] };
}>();

// An object field with a default is always there, its own defaults filled in too.
expectTypeOf<
  ShorthandArguments<{
    options: { type: 'object'; default: { retries: 5 }; fields: { retries: { type: 'integer'; default: 3 } } };
  }>
>().toEqualTypeOf<{ options: { retries: number } }>();

// A field may be called `type`: it is still shorthand.
expectTypeOf<ShorthandArguments<{ type: { type: 'string'; required: true } }>>().toEqualTypeOf<{ type: string }>();

// No schema: no arguments.
const noArguments = tool({
  ...base,
  run: (args) => {
    // @ts-expect-error a tool without a schema gets no arguments
    return args.anything.length;
  },
});
expectTypeOf<ArgumentsOf<typeof noArguments>>().toEqualTypeOf<Record<string, never>>();

// A schema known only as `Shorthand` (not a literal) gives arguments of unknown type.
declare const loaded: Shorthand;
const fromLoaded = tool({ ...base, schema: loaded, run: (args) => args });
expectTypeOf<ArgumentsOf<typeof fromLoaded>>().toEqualTypeOf<{ [field: string]: unknown }>();

// Every tool fits where lists of tools are taken.
const tools: Tool<never>[] = [orderStatus, optional, defaulted, nested, noArguments, fromLoaded];
expectTypeOf(tools).toEqualTypeOf<Tool<never>[]>();
const forCall: Tools[] = [
  [orderStatus, nested],
  new Map<string, Tool<never>>([
    ['order_status', orderStatus],
    ['example', nested],
  ]),
];
expectTypeOf(forCall).toEqualTypeOf<Tools[]>();

// A misspelt shorthand type does not compile (it would pass as a JSON Schema of unknown keywords).
tool({
  name: 'typo',
  description: 'A misspelt type.',
  // @ts-expect-error 'strng' is not a shorthand type
  schema: { order_id: { type: 'strng', required: true } },
  run: () => 'ok',
});
tool({
  name: 'typo_nested',
  description: 'A misspelt list element type.',
  // @ts-expect-error 'numbr' is not a shorthand type
  schema: { items: { type: 'list', of: 'numbr' } },
  run: () => 'ok',
});
// A JSON Schema with unknown keywords is still a JSON Schema.
tool({
  name: 'json_schema',
  description: 'Fine.',
  schema: { type: 'object', properties: { id: { type: 'string' } }, 'x-extra': true },
  run: ({ id }) => id ?? 'none',
});
