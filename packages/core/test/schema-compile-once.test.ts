import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { call, fromMcpTool, tool } from '@wardrik/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { contextOptions } from './helpers.js';

// Every Ajv compiles through this method (Ajv2020 inherits it from Ajv's core class).
const ajvCore = Object.getPrototypeOf(Ajv2020.prototype) as { compile: (...args: unknown[]) => unknown };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('schemas are compiled once, when the tool is built', () => {
  it('the spy sees the compiles tool() does (so its silence below means something)', () => {
    const compile = vi.spyOn(ajvCore, 'compile');
    tool({ name: 'a', description: 'd', run: () => 1, schema: { spied: { type: 'integer', default: 1 } } });
    expect(compile).toHaveBeenCalled();
  });

  it('tools with identical schemas share one compiled validator (Ajv keeps whatever it compiles)', () => {
    const schema = { shared: { type: 'string', required: true }, n: { type: 'integer', default: 2 } } as const;
    tool({ name: 'first', description: 'd', run: () => 1, schema });
    const compile = vi.spyOn(ajvCore, 'compile');
    for (let i = 0; i < 20; i++)
      tool({ name: `again${i}`, description: 'd', run: () => 1, schema: structuredClone(schema) });
    expect(compile).not.toHaveBeenCalled();
    const other = tool({ name: 'other', description: 'd', run: () => 1, schema: { shared: { type: 'integer' } } });
    expect(compile).toHaveBeenCalled();
    expect(other.schema.validate({ shared: 'x' })).toMatchObject({ ok: false });
  });

  it.each([
    ['shorthand', { order_id: { type: 'string', required: true }, qty: { type: 'integer', default: 1 } }],
    ['JSON Schema', { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }],
  ])('%s: no compile during calls, valid or not', async (_form, schema) => {
    const lookup = tool({ name: 'lookup', description: 'd', run: () => 'ok', schema: schema as never });
    const compiled = lookup.schema;
    const compile = vi.spyOn(ajvCore, 'compile');
    // Identical schemas share a validator, looked up by their JSON text: a per-call compile would
    // show as stringifying the schema even when Ajv's compile is skipped.
    const stringify = vi.spyOn(JSON, 'stringify');
    for (let i = 0; i < 50; i++) {
      await call([lookup], { id: `c${i}`, name: 'lookup', arguments: { order_id: `A${i}` } }, contextOptions());
      await call([lookup], { id: `c${i}`, name: 'lookup', arguments: { order_id: i } }, contextOptions());
      await call([lookup], { id: `c${i}`, name: 'lookup', arguments: '{"order_id": "A"}' }, contextOptions());
    }
    expect(compile).not.toHaveBeenCalled();
    expect(stringify.mock.calls.filter(([value]) => value === compiled.jsonSchema)).toEqual([]);
    expect(lookup.schema).toBe(compiled);
  });

  it('a tool from MCP compiles when it is made, not when it is called', async () => {
    const remote = fromMcpTool(
      { name: 'remote', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
      () => 'ok',
    );
    const compile = vi.spyOn(ajvCore, 'compile');
    const stringify = vi.spyOn(JSON, 'stringify');
    for (let i = 0; i < 20; i++)
      await call([remote], { id: 'c', name: 'remote', arguments: { q: 'x' } }, contextOptions());
    expect(compile).not.toHaveBeenCalled();
    expect(stringify.mock.calls.filter(([value]) => value === remote.schema.jsonSchema)).toEqual([]);
  });

  it('Standard Schema: the JSON Schema is produced once, validation runs per call', async () => {
    const inner = z.object({ order_id: z.string() });
    const counts = { jsonSchema: 0, validate: 0 };
    const props = inner['~standard'] as StandardSchemaV1.Props & StandardJSONSchemaV1.Props;
    const counted: StandardSchemaV1 & StandardJSONSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'counted-zod',
        validate: (value) => {
          counts.validate++;
          return props.validate(value);
        },
        jsonSchema: {
          input: (options) => {
            counts.jsonSchema++;
            return props.jsonSchema.input(options);
          },
          output: (options) => props.jsonSchema.output(options),
        },
      },
    };
    const lookup = tool({ name: 'lookup', description: 'd', run: () => 'ok', schema: counted });
    expect(counts).toEqual({ jsonSchema: 1, validate: 0 });
    for (let i = 0; i < 25; i++) {
      await call([lookup], { id: 'c', name: 'lookup', arguments: { order_id: 'A1' } }, contextOptions());
    }
    expect(counts).toEqual({ jsonSchema: 1, validate: 25 });
    expect(lookup.schema.jsonSchema).toMatchObject({ type: 'object', required: ['order_id'] });
  });
});
