import { call, compileSchema, isJsonSchema, type JsonSchema, ToolDefinitionError, tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { contextOptions, thrown } from './helpers.js';

function validate(schema: JsonSchema, value: unknown) {
  const result = compileSchema(schema).validate(value);
  if (result instanceof Promise) throw new Error('JSON Schema validates synchronously');
  return result;
}

const order = {
  type: 'object',
  properties: {
    order_id: { type: 'string', description: 'The order id' },
    qty: { type: 'integer', minimum: 1, default: 1 },
    email: { type: 'string', format: 'email' },
  },
  required: ['order_id'],
} as const satisfies JsonSchema;

describe('JSON Schema', () => {
  it('is recognised as JSON Schema and given to the model as it is', () => {
    const compiled = compileSchema(order);
    expect(compiled.form).toBe('json-schema');
    expect(compiled.jsonSchema).toEqual(order);
    expect(isJsonSchema(order)).toBe(true);
    expect(isJsonSchema({ order_id: { type: 'string' } })).toBe(false);
    expect(isJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' })).toBe(true);
    expect(isJsonSchema({ anyOf: [] })).toBe(true);
  });

  it('a shorthand field named "type" is still shorthand', () => {
    const compiled = compileSchema({ type: { type: 'string', required: true } });
    expect(compiled.form).toBe('shorthand');
    expect(compiled.jsonSchema).toMatchObject({ properties: { type: { type: 'string' } }, required: ['type'] });
  });

  it('checks arguments, reporting every problem with its path', () => {
    expect(validate(order, { order_id: 'A1', qty: 2, email: 'a@example.com' })).toEqual({
      ok: true,
      value: { order_id: 'A1', qty: 2, email: 'a@example.com' },
    });
    const result = validate(order, { qty: 0, email: 'not-an-email' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues).toEqual([
      { path: 'order_id', message: 'is required (expected string)' },
      { path: 'qty', message: 'must be >= 1, got integer 0' },
      { path: 'email', message: 'must match format "email", got string "not-an-email"' },
    ]);
  });

  it('fills defaults before run sees the arguments, without changing the caller’s object', async () => {
    let seen: unknown;
    const lookup = tool({
      name: 'lookup',
      description: 'd',
      schema: order,
      run: (args) => {
        seen = args;
        return null;
      },
    });
    const args = { order_id: 'A1' };
    await call([lookup], { id: 'c', name: 'lookup', arguments: args }, contextOptions());
    expect(seen).toEqual({ order_id: 'A1', qty: 1 });
    expect(args).toEqual({ order_id: 'A1' });
  });

  it('fills nested defaults and defaults inside $defs references', () => {
    const schema = {
      type: 'object',
      $defs: { line: { type: 'object', properties: { qty: { type: 'integer', default: 1 } } } },
      properties: { lines: { type: 'array', items: { $ref: '#/$defs/line' } } },
    };
    const args = { lines: [{}, { qty: 3 }] };
    expect(validate(schema, args)).toEqual({ ok: true, value: { lines: [{ qty: 1 }, { qty: 3 }] } });
    expect(args).toEqual({ lines: [{}, { qty: 3 }] });
  });

  it('unknown fields are allowed unless the schema says additionalProperties: false', () => {
    expect(validate(order, { order_id: 'A1', note: 'x' })).toEqual({
      ok: true,
      value: { order_id: 'A1', qty: 1, note: 'x' },
    });
    const closed = { ...order, additionalProperties: false };
    expect(validate(closed, { order_id: 'A1', note: 'x' })).toEqual({
      ok: false,
      issues: [{ path: 'note', message: 'is not an expected field (expected: order_id, qty, email)' }],
    });
  });

  it('names nested problems with their full path', () => {
    const cart = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
            required: ['sku'],
          },
        },
        'ship/to': { type: 'object', properties: { 'zip~code': { type: 'string' } } },
      },
    };
    expect(
      validate(cart, { items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 1.5 }, {}], 'ship/to': { 'zip~code': 1 } }),
    ).toEqual({
      ok: false,
      issues: [
        { path: 'items[1].qty', message: 'expected integer, got number 1.5' },
        { path: 'items[2].sku', message: 'is required (expected string)' },
        { path: 'ship/to.zip~code', message: 'expected string, got integer 1' },
      ],
    });
  });

  it('explains enum and union type problems', () => {
    const schema = {
      type: 'object',
      properties: { speed: { enum: ['standard', 'express'] }, id: { type: ['string', 'integer'] } },
    };
    expect(validate(schema, { speed: 'rocket', id: true })).toEqual({
      ok: false,
      issues: [
        { path: 'speed', message: 'expected one of "standard", "express", got string "rocket"' },
        { path: 'id', message: 'expected string or integer, got boolean true' },
      ],
    });
  });

  it.each([
    ['a string schema', { type: 'string' }, 'must be an object schema'],
    ['an array schema', { type: 'array', items: { type: 'string' } }, 'must be an object schema'],
    ['a union with object', { type: ['object', 'null'] }, 'must be an object schema'],
    ['no type but a combinator', { anyOf: [{ type: 'object' }] }, 'must be an object schema'],
  ])('rejects %s: a tool takes an object of arguments', (_what, schema, message) => {
    const error = thrown(() => compileSchema(schema));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toContain(message);
  });

  it.each([
    ['an unknown type', { type: 'object', properties: { a: { type: 'strin' } } }],
    ['a required that is not a list', { type: 'object', required: 'a' }],
    ['a bad minimum', { type: 'object', properties: { n: { type: 'number', minimum: 'zero' } } }],
    ['a dangling $ref', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }],
  ])('rejects an invalid JSON Schema (%s), saying so', (_what, schema) => {
    const error = thrown(() => compileSchema(schema));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^schema: not a valid JSON Schema: /);
  });

  it('two tools may share a schema with the same $id', () => {
    const schema = { $id: 'https://example.com/schemas/args', type: 'object', properties: { a: { type: 'string' } } };
    const a = tool({ name: 'a', description: 'd', run: () => 1, schema });
    const b = tool({ name: 'b', description: 'd', run: () => 1, schema: { ...schema } });
    expect(a.schema.validate({ a: 1 })).toMatchObject({ ok: false });
    expect(b.schema.validate({ a: 'x' })).toMatchObject({ ok: true });
  });
});
