import { call, compileSchema, type Shorthand, shorthandToJsonSchema, ToolDefinitionError, tool } from '@wardrik/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { contextOptions, thrown } from './helpers.js';

const metaValidator = new Ajv2020({ strict: false });

/** Whether `schema` is a valid draft 2020-12 JSON Schema (checked against the meta-schema). */
function isDraft2020(schema: object): boolean {
  return metaValidator.validateSchema(schema) === true;
}

function validate(shorthand: Shorthand, value: unknown) {
  const result = compileSchema(shorthand).validate(value);
  if (result instanceof Promise) throw new Error('shorthand validates synchronously');
  return result;
}

describe('shorthand → JSON Schema (draft 2020-12)', () => {
  it('turns every type, required, default, doc and enum into JSON Schema', () => {
    const jsonSchema = compileSchema({
      order_id: { type: 'string', required: true, doc: 'The order id, e.g. A-1001' },
      qty: { type: 'integer', default: 1 },
      price: { type: 'number' },
      gift: { type: 'boolean', default: false },
      tags: { type: 'list', of: 'string' },
      stock: { type: 'map', of: 'integer' },
      speed: { enum: ['standard', 'express'], default: 'standard' },
      address: {
        type: 'object',
        required: true,
        fields: { street: { type: 'string', required: true }, zip: { type: 'string' } },
      },
      items: { type: 'list', of: { type: 'object', fields: { sku: { type: 'string', required: true } } } },
      extra: { type: 'any' },
    }).jsonSchema;
    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        order_id: { type: 'string', description: 'The order id, e.g. A-1001' },
        qty: { type: 'integer', default: 1 },
        price: { type: 'number' },
        gift: { type: 'boolean', default: false },
        tags: { type: 'array', items: { type: 'string' } },
        stock: { type: 'object', additionalProperties: { type: 'integer' } },
        speed: { type: 'string', enum: ['standard', 'express'], default: 'standard' },
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, zip: { type: 'string' } },
          additionalProperties: false,
          required: ['street'],
        },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string' } },
            additionalProperties: false,
            required: ['sku'],
          },
        },
        extra: {},
      },
      additionalProperties: false,
      required: ['order_id', 'address'],
    });
    expect(isDraft2020(jsonSchema)).toBe(true);
  });

  it('infers the type of an enum from its values', () => {
    const { properties } = shorthandToJsonSchema({
      words: { enum: ['a', 'b'] },
      whole: { enum: [1, 2] },
      mixed: { enum: ['a', 1] },
      flag: { enum: [true] },
    }) as { properties: Record<string, unknown> };
    expect(properties).toEqual({
      words: { type: 'string', enum: ['a', 'b'] },
      whole: { type: 'integer', enum: [1, 2] },
      mixed: { enum: ['a', 1] },
      flag: { type: 'boolean', enum: [true] },
    });
  });

  it('an empty shorthand takes no arguments', () => {
    expect(compileSchema({}).jsonSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(compileSchema({}).form).toBe('shorthand');
  });
});

describe('shorthand checks arguments', () => {
  const order: Shorthand = {
    order_id: { type: 'string', required: true },
    qty: { type: 'integer' },
    price: { type: 'number' },
    gift: { type: 'boolean' },
    tags: { type: 'list', of: 'string' },
    stock: { type: 'map', of: 'integer' },
    speed: { enum: ['standard', 'express'] },
  };

  it('accepts matching arguments as they are', () => {
    const args = { order_id: 'A1', qty: 2, price: 9.5, gift: true, tags: ['x'], stock: { eu: 3 }, speed: 'express' };
    expect(validate(order, args)).toEqual({ ok: true, value: args });
  });

  it('an integer is a number, but a number is not an integer', () => {
    expect(validate(order, { order_id: 'A1', price: 10 }).ok).toBe(true);
    expect(validate(order, { order_id: 'A1', qty: 1.5 })).toEqual({
      ok: false,
      issues: [{ path: 'qty', message: 'expected integer, got number 1.5' }],
    });
  });

  it('does not coerce: "2" is not an integer, "true" is not a boolean', () => {
    const result = validate(order, { order_id: 'A1', qty: '2', gift: 'true' });
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: 'qty', message: 'expected integer, got string "2"' },
        { path: 'gift', message: 'expected boolean, got string "true"' },
      ],
    });
  });

  it('names a missing required field and its type', () => {
    expect(validate(order, {})).toEqual({
      ok: false,
      issues: [{ path: 'order_id', message: 'is required (expected string)' }],
    });
  });

  it('names wrong list items, map values and enum values by their path', () => {
    expect(validate(order, { order_id: 'A1', tags: ['ok', 5], stock: { eu: 'many' }, speed: 'rocket' })).toEqual({
      ok: false,
      issues: [
        { path: 'tags[1]', message: 'expected string, got integer 5' },
        { path: 'stock.eu', message: 'expected integer, got string "many"' },
        { path: 'speed', message: 'expected one of "standard", "express", got string "rocket"' },
      ],
    });
  });

  it('rejects arguments that are not an object', () => {
    for (const value of [[], 'A1', 7, null]) {
      const result = validate(order, value);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.issues[0]?.message).toMatch(/^expected object, got/);
    }
  });

  it('refuses unknown extra fields (a decision: a misspelt argument is reported, not dropped)', () => {
    expect(validate(order, { order_id: 'A1', orderId: 'A1', qnty: 2 })).toEqual({
      ok: false,
      issues: [
        {
          path: 'orderId',
          message: 'is not an expected field (expected: order_id, qty, price, gift, tags, stock, speed)',
        },
        {
          path: 'qnty',
          message: 'is not an expected field (expected: order_id, qty, price, gift, tags, stock, speed)',
        },
      ],
    });
    expect(validate({}, { anything: 1 })).toEqual({
      ok: false,
      issues: [{ path: 'anything', message: 'is not an expected field (this takes no fields here)' }],
    });
  });

  it('refuses unknown fields in nested objects too, but not in maps', () => {
    const nested: Shorthand = {
      address: { type: 'object', fields: { street: { type: 'string' } } },
      stock: { type: 'map', of: 'integer' },
    };
    expect(validate(nested, { address: { street: 'Main', city: 'X' }, stock: { anywhere: 1 } })).toEqual({
      ok: false,
      issues: [{ path: 'address.city', message: 'is not an expected field (expected: street)' }],
    });
  });

  it('names nested problems with their full path', () => {
    const cart: Shorthand = {
      items: {
        type: 'list',
        required: true,
        of: { type: 'object', fields: { sku: { type: 'string', required: true }, qty: { type: 'integer' } } },
      },
    };
    expect(validate(cart, { items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 'two' }, { qty: 3 }] })).toEqual({
      ok: false,
      issues: [
        { path: 'items[1].qty', message: 'expected integer, got string "two"' },
        { path: 'items[2].sku', message: 'is required (expected string)' },
      ],
    });
  });

  it('a field of type any takes anything', () => {
    for (const value of [1, 'x', null, [1], { a: 1 }])
      expect(validate({ extra: { type: 'any' } }, { extra: value }).ok).toBe(true);
  });
});

describe('shorthand defaults', () => {
  const schema: Shorthand = {
    order_id: { type: 'string', required: true },
    qty: { type: 'integer', default: 1 },
    tags: { type: 'list', of: 'string', default: [] },
    address: { type: 'object', fields: { country: { type: 'string', default: 'DE' } }, default: {} },
  };

  it('are filled in before run sees the arguments, and given values win', async () => {
    const seen: unknown[] = [];
    const order = tool({ name: 'order', description: 'd', schema, run: (args) => seen.push(args) });
    await call([order], { id: 'c', name: 'order', arguments: { order_id: 'A1' } }, contextOptions());
    await call(
      [order],
      { id: 'c', name: 'order', arguments: { order_id: 'A2', qty: 5, address: { country: 'FR' } } },
      contextOptions(),
    );
    expect(seen).toEqual([
      { order_id: 'A1', qty: 1, tags: [], address: { country: 'DE' } },
      { order_id: 'A2', qty: 5, tags: [], address: { country: 'FR' } },
    ]);
  });

  it("do not change the caller's arguments object", () => {
    const args = { order_id: 'A1', address: {} };
    const result = validate(schema, args);
    expect(result).toEqual({ ok: true, value: { order_id: 'A1', qty: 1, tags: [], address: { country: 'DE' } } });
    expect(args).toEqual({ order_id: 'A1', address: {} });
  });

  it('are fresh for every call: a run that changes a default does not change the next one', async () => {
    const seen: unknown[] = [];
    const order = tool({
      name: 'order',
      description: 'd',
      schema,
      run: (args) => {
        (args.tags as string[]).push('changed');
        seen.push(structuredClone(args.tags));
      },
    });
    await call([order], { id: 'c', name: 'order', arguments: { order_id: 'A1' } }, contextOptions());
    await call([order], { id: 'c', name: 'order', arguments: { order_id: 'A1' } }, contextOptions());
    expect(seen).toEqual([['changed'], ['changed']]);
  });

  it('fill a required field that is absent (so it is not reported missing)', () => {
    expect(validate({ id: { type: 'string', required: true, default: 'x' } }, {}).ok).toBe(true);
  });

  it('a "__proto__" key in the arguments is an unknown field, with or without defaults', () => {
    const json = '{"__proto__": {"order_id": "X"}}';
    for (const shorthand of [schema, { order_id: { type: 'string', required: true } } satisfies Shorthand]) {
      const result = validate(shorthand, JSON.parse(json));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.issues).toContainEqual({
        path: 'order_id',
        message: 'is required (expected string)',
      });
      expect(!result.ok && result.issues.map((issue) => issue.path)).toContain('__proto__');
    }
  });
});

describe('malformed shorthand throws at once, naming the field', () => {
  it.each([
    ['an unknown type', { id: { type: 'text' } }, 'schema.id.type: unknown type "text"'],
    ['no type', { id: { doc: 'x' } }, 'schema.id.type: required'],
    ['an unknown key', { id: { type: 'string', requried: true } }, 'schema.id.requried: unknown key'],
    ['a list without of', { tags: { type: 'list' } }, 'schema.tags.of: lists and maps need the type of their items'],
    ['a map without of', { stock: { type: 'map' } }, 'schema.stock.of: lists and maps need'],
    [
      'a list of an unknown type',
      { tags: { type: 'list', of: 'strings' } },
      'schema.tags.of.type: unknown type "strings"',
    ],
    [
      'an object without fields',
      { address: { type: 'object' } },
      'schema.address.fields: an object field needs its fields',
    ],
    [
      'a bad nested field',
      { address: { type: 'object', fields: { zip: { type: 'zip' } } } },
      'schema.address.fields.zip.type: unknown type "zip"',
    ],
    [
      'a field that is not a spec',
      { id: 'string' },
      "schema.id: expected a field spec such as { type: 'string' }, got string",
    ],
    ['a field that is null', { id: null }, 'schema.id: expected a field spec'],
    [
      'required that is not a boolean',
      { id: { type: 'string', required: 'yes' } },
      'schema.id.required: expected a boolean',
    ],
    ['doc that is not a string', { id: { type: 'string', doc: 5 } }, 'schema.id.doc: expected a string'],
    ['an empty enum', { speed: { enum: [] } }, 'schema.speed.enum: expected a non-empty array'],
    [
      'an enum that is not an array',
      { speed: { type: 'string', enum: 'fast' } },
      'schema.speed.enum: expected a non-empty array',
    ],
    [
      'a default of the wrong type',
      { qty: { type: 'integer', default: 'one' } },
      'schema.qty.default: does not match its own type',
    ],
    [
      'a default outside the enum',
      { speed: { enum: ['a', 'b'], default: 'c' } },
      'schema.speed.default: does not match',
    ],
    [
      'a bad default in a nested object',
      { address: { type: 'object', fields: { zip: { type: 'string', default: 12345 } } } },
      'schema.address.fields.zip.default: does not match its own type',
    ],
    [
      'a bad default in the objects of a list',
      { items: { type: 'list', of: { type: 'object', fields: { qty: { type: 'integer', default: 'x' } } } } },
      'schema.items.of.fields.qty.default: does not match its own type',
    ],
    [
      'a bad default for a list item',
      { tags: { type: 'list', of: { type: 'string', default: 3 } } },
      'schema.tags.of.default',
    ],
  ])('%s', (_what, shorthand, message) => {
    const error = thrown(() => compileSchema(shorthand as unknown as Shorthand));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toContain(message);
  });

  it('tool() names the tool too', () => {
    expect(
      thrown(() => tool({ name: 'order', description: 'd', run: () => 1, schema: { qty: { type: 'int' as never } } }))
        .message,
    ).toBe(
      'tool order: schema.qty.type: unknown type "int" (expected one of string, integer, number, boolean, list, map, object, any)',
    );
  });

  it('rejects a schema that is neither shorthand, JSON Schema nor Standard Schema', () => {
    for (const input of ['string', 42, [], null]) {
      expect(() => compileSchema(input as never)).toThrow(ToolDefinitionError);
    }
  });
});
