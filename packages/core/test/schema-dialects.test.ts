/*
 * JSON Schema dialects real servers emit: draft-04, draft-06, draft-07 (zod-to-json-schema's
 * default, with tuples as `items: [...]`), 2019-09 and 2020-12. Arguments are checked with the
 * dialect the schema names; the model is offered the same schema in draft 2020-12.
 */
import { compileSchema, fromMcpTool, type JsonSchema, ToolDefinitionError } from '@wardrik/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/v3';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { thrown } from './helpers.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

function check(schema: JsonSchema, value: unknown) {
  const result = compileSchema(schema).validate(value);
  if (result instanceof Promise) throw new Error('JSON Schema validates synchronously');
  return result;
}

/** Whether a schema is valid draft 2020-12 (checked against its meta-schema). */
function isDraft202012(schema: JsonSchema): boolean {
  const ajv = new Ajv2020({ strict: false });
  const { $schema: _dialect, ...rest } = schema;
  return ajv.validateSchema(rest) === true;
}

/** A draft 2020-12 validator of the schema the model is offered (to compare verdicts with). */
function offeredValidator(schema: JsonSchema) {
  const ajv = new Ajv2020({ strict: false });
  const { $schema: _dialect, ...rest } = compileSchema(schema).jsonSchema;
  return ajv.compile(rest);
}

/** Checks that the schema the model sees accepts and refuses exactly what the original does. */
function expectSameVerdicts(schema: JsonSchema, samples: readonly unknown[]): void {
  const offered = offeredValidator(schema);
  for (const sample of samples) {
    expect({ sample, ok: offered(sample) }).toEqual({ sample, ok: check(schema, sample).ok });
  }
}

// zod-to-json-schema's default output (draft-07): tuples as `items: [...]`, rest items as `additionalItems`.
const zodTuples = zodToJsonSchema(
  z.object({
    point: z.tuple([z.number(), z.number()]),
    tagged: z.tuple([z.string()]).rest(z.number()),
    id: z.string().optional(),
  }),
) as JsonSchema;

// A draft-04 schema as Go and older Python generators write it: `id`, `definitions` and `$ref`,
// boolean exclusiveMinimum/exclusiveMaximum.
const draft04 = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  id: 'http://example.com/schemas/search.json#',
  type: 'object',
  $ref: '#/definitions/Search',
  definitions: {
    Search: {
      type: 'object',
      required: ['query', 'limit'],
      properties: {
        query: { type: 'string', minLength: 1 },
        limit: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 100 },
        ratio: { type: 'number', minimum: 0, maximum: 1, exclusiveMaximum: true },
        id: { type: 'string', description: 'a field named id, not a keyword' },
        window: { type: 'array', items: [{ type: 'integer' }, { type: 'integer' }], additionalItems: false },
      },
      additionalProperties: false,
    },
  },
} as const satisfies JsonSchema;

const draft06 = {
  $schema: 'http://json-schema.org/draft-06/schema#',
  $id: 'http://example.com/schemas/ticket.json',
  type: 'object',
  properties: {
    kind: { const: 'ticket' },
    priority: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 5 },
    tags: { type: 'array', contains: { const: 'urgent' } },
    labels: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
  },
  required: ['kind', 'priority'],
  dependencies: { tags: ['labels'] },
} as const satisfies JsonSchema;

const draft2019 = {
  $schema: 'https://json-schema.org/draft/2019-09/schema',
  type: 'object',
  $defs: { money: { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' } } } },
  properties: {
    price: { $ref: '#/$defs/money' },
    range: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false },
    card: { type: 'string' },
    cvc: { type: 'string' },
  },
  dependentRequired: { card: ['cvc'] },
  unevaluatedProperties: false,
} as const satisfies JsonSchema;

describe('JSON Schema dialects', () => {
  it('draft-07 from zod-to-json-schema: tuples are checked, and offered as prefixItems', () => {
    expect(zodTuples.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(check(zodTuples, { point: [1, 2], tagged: ['a', 1, 2] })).toMatchObject({ ok: true });
    const wrong = check(zodTuples, { point: [1, 'x'], tagged: ['a', 'b'] });
    expect(!wrong.ok && wrong.issues.map((issue) => issue.path)).toEqual(['point[1]', 'tagged[1]']);
    expect(check(zodTuples, { point: [1, 2, 3], tagged: ['a'] })).toMatchObject({ ok: false });

    const offered = compileSchema(zodTuples).jsonSchema;
    expect(offered).toMatchObject({
      $schema: DRAFT_2020_12,
      properties: {
        point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], minItems: 2, maxItems: 2 },
        tagged: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } },
      },
    });
    expect(JSON.stringify(offered)).not.toContain('additionalItems');
    expect(isDraft202012(offered)).toBe(true);
    expectSameVerdicts(zodTuples, [
      { point: [1, 2], tagged: ['a'] },
      { point: [1, 2], tagged: ['a', 3, 4] },
      { point: [1, 2], tagged: ['a', 'b'] },
      { point: [1], tagged: ['a'] },
      { point: ['1', 2], tagged: [] },
    ]);
  });

  it('draft-04: boolean exclusive bounds, id, definitions and $ref', () => {
    expect(check(draft04, { query: 'q', limit: 1, ratio: 0.5 })).toMatchObject({ ok: true });
    const zero = check(draft04, { query: 'q', limit: 0 });
    expect(!zero.ok && zero.issues).toEqual([{ path: 'limit', message: 'must be > 0, got integer 0' }]);
    expect(check(draft04, { query: 'q', limit: 1, ratio: 1 })).toMatchObject({ ok: false });
    expect(check(draft04, { query: 'q', limit: 1, window: [1, 2, 3] })).toMatchObject({ ok: false });
    expect(check(draft04, { query: 'q', limit: 1, extra: true })).toMatchObject({ ok: false });

    const offered = compileSchema(draft04).jsonSchema;
    expect(offered).toMatchObject({
      $schema: DRAFT_2020_12,
      $id: 'http://example.com/schemas/search.json',
      definitions: {
        Search: {
          properties: {
            limit: { type: 'integer', exclusiveMinimum: 0, maximum: 100 },
            ratio: { type: 'number', minimum: 0, exclusiveMaximum: 1 },
            id: { type: 'string' },
            window: { prefixItems: [{ type: 'integer' }, { type: 'integer' }], items: false },
          },
        },
      },
    });
    expect(offered).not.toHaveProperty('id');
    const limit = (offered.definitions as { Search: { properties: { limit: object } } }).Search.properties.limit;
    expect(limit).not.toHaveProperty('minimum');
    expect(isDraft202012(offered)).toBe(true);
    expectSameVerdicts(draft04, [
      { query: 'q', limit: 1 },
      { query: 'q', limit: 0 },
      { query: 'q', limit: 100 },
      { query: 'q', limit: 101 },
      { query: 'q', limit: 1, ratio: 0 },
      { query: 'q', limit: 1, ratio: 1 },
      { query: 'q', limit: 1, id: 'x', window: [1, 2] },
      { query: 'q', limit: 1, window: [1, 2, 3] },
      { query: '', limit: 1 },
    ]);
  });

  it('draft-06: $id, const, numeric exclusive bounds, contains, propertyNames, dependencies', () => {
    expect(check(draft06, { kind: 'ticket', priority: 3 })).toMatchObject({ ok: true });
    expect(check(draft06, { kind: 'ticket', priority: 5 })).toMatchObject({ ok: false });
    expect(check(draft06, { kind: 'bug', priority: 3 })).toMatchObject({ ok: false });
    expect(check(draft06, { kind: 'ticket', priority: 1, tags: ['urgent'] })).toMatchObject({ ok: false });
    expect(check(draft06, { kind: 'ticket', priority: 1, tags: ['urgent'], labels: { a: 1 } })).toMatchObject({
      ok: true,
    });

    const offered = compileSchema(draft06).jsonSchema;
    expect(offered).toMatchObject({ $schema: DRAFT_2020_12, dependentRequired: { tags: ['labels'] } });
    expect(offered).not.toHaveProperty('dependencies');
    expect(isDraft202012(offered)).toBe(true);
    expectSameVerdicts(draft06, [
      { kind: 'ticket', priority: 1 },
      { kind: 'ticket', priority: 0 },
      { kind: 'ticket', priority: 1, tags: ['x'], labels: {} },
      { kind: 'ticket', priority: 1, tags: ['urgent'] },
      { kind: 'ticket', priority: 1, labels: { A: 1 } },
    ]);
  });

  it('draft 2019-09: $defs, dependentRequired, unevaluatedProperties, tuple items', () => {
    expect(check(draft2019, { price: { amount: 1 }, range: [1, 2] })).toMatchObject({ ok: true });
    expect(check(draft2019, { card: '4242' })).toMatchObject({ ok: false });
    expect(check(draft2019, { other: 1 })).toMatchObject({ ok: false });
    expect(check(draft2019, { range: [1, 2, 3] })).toMatchObject({ ok: false });

    const offered = compileSchema(draft2019).jsonSchema;
    expect(offered).toMatchObject({
      $schema: DRAFT_2020_12,
      properties: { range: { prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
    });
    expect(isDraft202012(offered)).toBe(true);
    expectSameVerdicts(draft2019, [
      { price: { amount: 1 }, range: [1, 2] },
      { price: { amount: 'x' } },
      { card: '4242', cvc: '1' },
      { card: '4242' },
      { range: [1] },
      { range: [1, 2, 3] },
      { unknown: true },
    ]);
  });

  it('draft 2020-12, named or not, is offered as it is', () => {
    const named = {
      $schema: DRAFT_2020_12,
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }], items: false } },
    } as const satisfies JsonSchema;
    expect(compileSchema(named).jsonSchema).toEqual(named);
    expect(check(named, { pair: ['a', 'b'] })).toMatchObject({ ok: false });
    const { $schema: _named, ...unnamed } = named;
    expect(compileSchema(unnamed).jsonSchema).toEqual(unnamed);
  });

  it('without $schema, tuple items: [...] (which 2020-12 has no form for) are read as draft 2019-09', () => {
    const { $schema: _dialect, ...openApi } = zodTuples;
    expect(check(openApi, { point: [1, 2], tagged: ['a', 1] })).toMatchObject({ ok: true });
    expect(check(openApi, { point: [1, 'x'], tagged: ['a'] })).toMatchObject({ ok: false });
    const offered = compileSchema(openApi).jsonSchema;
    expect(offered).not.toHaveProperty('$schema');
    expect(offered).toMatchObject({ properties: { point: { prefixItems: [{ type: 'number' }, { type: 'number' }] } } });
    expect(isDraft202012(offered)).toBe(true);
  });

  it('an unknown $schema is refused, naming the dialects that are understood', () => {
    const error = thrown(() => compileSchema({ $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' }));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/draft-03.*draft-04, draft-06, draft-07, 2019-09 or 2020-12/);
  });

  it('an MCP tool listed with an older dialect builds, and checks its arguments', () => {
    const listed = fromMcpTool({ name: 'search', inputSchema: draft04 }, () => 'ok');
    expect(listed.schema.validate({ query: 'q', limit: 0 })).toMatchObject({ ok: false });
    expect(listed.schema.jsonSchema).toMatchObject({ $schema: DRAFT_2020_12 });
    const tuples = fromMcpTool({ name: 'plot', inputSchema: zodTuples }, () => 'ok');
    expect(tuples.schema.validate({ point: [1, 2], tagged: ['a'] })).toMatchObject({ ok: true });
  });
});
