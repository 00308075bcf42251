import type { StandardSchemaV1 } from '@standard-schema/spec';
import { call, compileSchema, isStandardSchema, ToolDefinitionError, tool } from '@wardrik/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contextOptions, thrown } from './helpers.js';

const order = z.object({
  order_id: z.string().describe('The order id'),
  qty: z.number().int().min(1).default(1),
  speed: z.enum(['standard', 'express']).optional(),
  items: z.array(z.object({ sku: z.string(), qty: z.number().int() })).optional(),
});

async function validate(schema: StandardSchemaV1, value: unknown) {
  return await compileSchema(schema).validate(value);
}

describe('Standard Schema (Zod 4)', () => {
  it('is recognised and gives the model a draft 2020-12 JSON Schema', () => {
    expect(isStandardSchema(order)).toBe(true);
    expect(isStandardSchema({ type: 'object' })).toBe(false);
    const compiled = compileSchema(order);
    expect(compiled.form).toBe('standard-schema');
    expect(compiled.jsonSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        order_id: { type: 'string', description: 'The order id' },
        qty: { type: 'integer', minimum: 1, default: 1 },
        speed: { type: 'string', enum: ['standard', 'express'] },
      },
      required: ['order_id'],
    });
    expect(new Ajv2020({ strict: false }).validateSchema(compiled.jsonSchema)).toBe(true);
  });

  it('types run’s arguments from the schema and fills defaults before run sees them', async () => {
    let seen: { order_id: string; qty: number } | undefined;
    const lookup = tool({
      name: 'lookup',
      description: 'd',
      schema: order,
      run: (args) => {
        seen = args;
        return args.order_id.toUpperCase();
      },
    });
    const args = { order_id: 'a1' };
    expect(await call([lookup], { id: 'c', name: 'lookup', arguments: args }, contextOptions())).toMatchObject({
      type: 'ok',
      value: 'A1',
    });
    expect(seen).toEqual({ order_id: 'a1', qty: 1 });
    expect(args).toEqual({ order_id: 'a1' });
  });

  it('reports every problem with its path and Zod’s message', async () => {
    const result = await validate(order, {
      qty: 0,
      speed: 'rocket',
      items: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 'x' },
      ],
    });
    expect(result.ok).toBe(false);
    const paths = !result.ok ? result.issues.map((issue) => issue.path) : [];
    expect(paths).toEqual(['order_id', 'qty', 'speed', 'items[1].qty']);
    expect(!result.ok && result.issues[0]?.message).toMatch(/expected string/);
  });

  it('drops unknown fields (what Zod objects do); a strict object refuses them', async () => {
    expect(await validate(order, { order_id: 'A1', note: 'x' })).toEqual({
      ok: true,
      value: { order_id: 'A1', qty: 1 },
    });
    const strict = z.strictObject({ order_id: z.string() });
    const refused = await validate(strict, { order_id: 'A1', note: 'x' });
    expect(refused.ok).toBe(false);
    expect(compileSchema(strict).jsonSchema).toMatchObject({ additionalProperties: false });
  });

  it('runs async refinements (validate answers a promise)', async () => {
    const taken = new Set(['alice']);
    const signup = z.object({
      user: z.string().refine(async (name) => !taken.has(name), { message: 'is taken' }),
    });
    const register = tool({ name: 'register', description: 'd', schema: signup, run: ({ user }) => `hello ${user}` });
    expect(
      await call([register], { id: 'c', name: 'register', arguments: { user: 'bob' } }, contextOptions()),
    ).toMatchObject({
      type: 'ok',
      value: 'hello bob',
    });
    const refused = await call(
      [register],
      { id: 'c', name: 'register', arguments: { user: 'alice' } },
      contextOptions(),
    );
    expect(refused).toMatchObject({
      type: 'error',
      code: 'invalid_arguments',
      issues: [{ path: 'user', message: 'is taken' }],
    });
  });

  it('uses the transformed output as run’s arguments', async () => {
    const trimmed = z.object({ name: z.string().trim() });
    expect(await validate(trimmed, { name: '  Ada ' })).toEqual({ ok: true, value: { name: 'Ada' } });
  });

  it('rejects a schema that is not an object', () => {
    for (const schema of [z.string(), z.array(z.string()), z.union([z.object({ a: z.string() }), z.string()])]) {
      const error = thrown(() => compileSchema(schema));
      expect(ToolDefinitionError.isInstance(error)).toBe(true);
      expect(error.message).toContain('must be an object schema');
    }
  });

  it('rejects a schema that cannot be given to the model as JSON Schema, saying why', () => {
    const error = thrown(() => compileSchema(z.object({ when: z.date() })));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/could not turn the zod schema into JSON Schema: .*Date/);
  });

  it('rejects a Standard Schema without a JSON Schema converter, naming its vendor', () => {
    const bare: StandardSchemaV1 = {
      '~standard': { version: 1, vendor: 'homemade', validate: (value) => ({ value }) },
    };
    expect(thrown(() => compileSchema(bare)).message).toContain(
      'this Standard Schema (from homemade) cannot produce a JSON Schema',
    );
  });
});
