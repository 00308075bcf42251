// Type tests: compiled by tool-types.test.ts, which fails on any error (an unused
// `@ts-expect-error` included). Not run.
import { type SchemaArguments, type Tool, tool } from '@wardrik/core';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';

type ArgumentsOf<T> = T extends Tool<infer Args> ? Args : never;

const base = { name: 'example', description: 'An example.' };

// A Standard Schema (Zod 4) gives its output type: defaults filled in, transforms applied.
const order = z.object({
  order_id: z.string(),
  qty: z.number().int().default(1),
  speed: z.enum(['standard', 'express']).optional(),
  placed: z.string().transform((text) => new Date(text)),
});

const lookup = tool({
  ...base,
  schema: order,
  run: ({ order_id, qty, speed, placed }) => {
    expectTypeOf(placed).toEqualTypeOf<Date>();
    // @ts-expect-error an optional field may be missing
    speed.length;
    // @ts-expect-error a string is not a number
    return order_id.toFixed() + qty.toFixed();
  },
});
expectTypeOf<ArgumentsOf<typeof lookup>>().toEqualTypeOf<{
  order_id: string;
  qty: number;
  speed?: 'standard' | 'express' | undefined;
  placed: Date;
}>();
expectTypeOf<SchemaArguments<typeof order>>().toEqualTypeOf<z.output<typeof order>>();

const tools: readonly Tool<never>[] = [lookup];
expectTypeOf(tools).toExtend<readonly Tool<never>[]>();
