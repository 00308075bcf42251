import {
  annotate,
  answerToMcpResult,
  call,
  error,
  fromMcpTool,
  type McpTool,
  META,
  mcpResultToAnswer,
  ok,
  park,
  repeatable,
  ToolDefinitionError,
  toMcpTool,
  tool,
} from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { contextOptions, thrown } from './helpers.js';

const refund = tool({
  name: 'refund',
  title: 'Refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', doc: 'In euros' } },
  annotations: { destructive: true, idempotent: true, readOnly: false, timeout: 5_000, labels: ['payments'] },
  run: ({ order_id }) => `refunded ${order_id}`,
});

describe('toMcpTool', () => {
  it('gives name, title, description, inputSchema and the hints', () => {
    expect(toMcpTool(refund)).toEqual({
      name: 'refund',
      title: 'Refund',
      description: 'Refund an order.',
      inputSchema: {
        type: 'object',
        properties: { order_id: { type: 'string' }, amount: { type: 'number', description: 'In euros' } },
        additionalProperties: false,
        required: ['order_id'],
      },
      annotations: { destructiveHint: true, idempotentHint: true, readOnlyHint: false },
      _meta: { [META.timeout]: 5_000, [META.labels]: ['payments'] },
    });
  });

  it('maps each of the four annotations to its hint', () => {
    const all = annotate(tool({ name: 't', description: 'd', run: () => 1 }), {
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: true,
    });
    expect(toMcpTool(all).annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it('leaves absent hints absent (MCP would read a missing one as destructive and open-world)', () => {
    const bare = tool({ name: 'bare', description: 'd', run: () => 1 });
    const listed = toMcpTool(bare);
    expect(listed).toEqual({
      name: 'bare',
      description: 'd',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    });
    expect('annotations' in listed).toBe(false);
    expect('title' in listed).toBe(false);
    expect('_meta' in listed).toBe(false);
    const partly = toMcpTool(annotate(bare, { openWorld: true }));
    expect(partly.annotations).toEqual({ openWorldHint: true });
  });

  it('is plain JSON', () => {
    const listed = toMcpTool(annotate(refund, { resources: (args) => [String(args.order_id)] }));
    expect(JSON.parse(JSON.stringify(listed))).toEqual(listed);
  });
});

describe('fromMcpTool', () => {
  const listed: McpTool = {
    name: 'search_web',
    title: 'Search the web',
    description: 'Search the web.',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    annotations: { readOnlyHint: true, openWorldHint: true },
  };

  it('keeps name, title, description and schema, and runs through run with checked arguments', async () => {
    const calls: unknown[] = [];
    const search = fromMcpTool(listed, (args) => {
      calls.push(args);
      return 'results';
    });
    expect(search.name).toBe('search_web');
    expect(search.title).toBe('Search the web');
    expect(search.description).toBe('Search the web.');
    expect(search.schema.form).toBe('json-schema');
    expect(search.schema.jsonSchema).toEqual(listed.inputSchema);
    expect(
      await call([search], { id: 'c', name: 'search_web', arguments: { q: 'wardrik' } }, contextOptions()),
    ).toMatchObject({
      type: 'ok',
      value: 'results',
    });
    expect(await call([search], { id: 'c', name: 'search_web', arguments: {} }, contextOptions())).toMatchObject({
      type: 'error',
      issues: [{ path: 'q', message: 'is required (expected string)' }],
    });
    expect(calls).toEqual([{ q: 'wardrik' }]);
  });

  it('turns hints into annotations only where present', () => {
    expect(fromMcpTool(listed, () => 1).annotations).toEqual({ readOnly: true, openWorld: true });
    const noHints = fromMcpTool({ ...listed, annotations: undefined }, () => 1);
    expect(noHints.annotations).toEqual({});
    expect(repeatable(noHints)).toBe(false);
    const someFalse = fromMcpTool(
      { ...listed, annotations: { destructiveHint: false, idempotentHint: true } },
      () => 1,
    );
    expect(someFalse.annotations).toEqual({ destructive: false, idempotent: true });
    expect(repeatable(someFalse)).toBe(true);
  });

  it('reads timeout and labels from _meta', () => {
    const remote = fromMcpTool({ ...listed, _meta: { [META.timeout]: 1_500, [META.labels]: ['outside'] } }, () => 1);
    expect(remote.annotations).toMatchObject({ timeout: 1_500, labels: ['outside'] });
  });

  it('takes the title from annotations.title when there is no title, and an empty description when none', () => {
    const remote = fromMcpTool(
      { name: 'x', inputSchema: { type: 'object' }, annotations: { title: 'X marks' } },
      () => 1,
    );
    expect(remote.title).toBe('X marks');
    expect(remote.description).toBe('');
  });

  it('treats an inputSchema without a type as an object schema', () => {
    expect(
      fromMcpTool({ name: 'x', inputSchema: { properties: { a: { type: 'string' } } } }, () => 1).schema.jsonSchema,
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it.each([
    ['an empty name', { ...listed, name: '' }, 'is invalid'],
    ['a name with a space', { ...listed, name: 'search web' }, 'is invalid'],
    ['a name with a slash', { ...listed, name: 'web/search' }, 'is invalid'],
    ['no name', { ...listed, name: undefined }, 'missing required option name'],
    ['no inputSchema', { ...listed, inputSchema: undefined }, 'inputSchema is required'],
    [
      'an inputSchema that is not an object',
      { ...listed, inputSchema: 'object' },
      'inputSchema is required and must be an object',
    ],
    ['a non-object inputSchema type', { ...listed, inputSchema: { type: 'string' } }, 'must be an object schema'],
    [
      'an invalid inputSchema',
      { ...listed, inputSchema: { type: 'object', properties: { q: { type: 'text' } } } },
      'not a valid JSON Schema',
    ],
    [
      'a hint that is not a boolean',
      { ...listed, annotations: { readOnlyHint: 'yes' } },
      'annotations.readOnly: expected a boolean',
    ],
    ['a bad timeout in _meta', { ...listed, _meta: { [META.timeout]: 'soon' } }, 'annotations.timeout'],
  ])('throws for %s', (_what, bad, message) => {
    const err = thrown(() => fromMcpTool(bad as unknown as McpTool, () => 1));
    expect(ToolDefinitionError.isInstance(err)).toBe(true);
    expect(err.message).toContain(message);
  });

  it('throws for something that is not an object', () => {
    expect(() => fromMcpTool(null as never, () => 1)).toThrow('MCP tool: expected an object, got null');
  });

  it('a tool survives the round trip to MCP and back (except resources, which is code)', () => {
    const back = fromMcpTool(toMcpTool(refund), refund.run);
    expect(back.name).toBe(refund.name);
    expect(back.title).toBe(refund.title);
    expect(back.description).toBe(refund.description);
    expect(back.schema.jsonSchema).toEqual(refund.schema.jsonSchema);
    expect(back.annotations).toEqual(refund.annotations);
    expect(toMcpTool(back)).toEqual(toMcpTool(refund));
  });
});

describe('answerToMcpResult', () => {
  it('ok with text gives a text block', () => {
    expect(answerToMcpResult(ok('shipped'))).toEqual({ content: [{ type: 'text', text: 'shipped' }] });
  });

  it('ok with an object gives its JSON as text and the object as structuredContent', () => {
    expect(answerToMcpResult(ok({ status: 'shipped', eta: 2 }))).toEqual({
      content: [{ type: 'text', text: '{"status":"shipped","eta":2}' }],
      structuredContent: { status: 'shipped', eta: 2 },
    });
  });

  it('ok with another value gives its JSON as text and no structuredContent (MCP wants an object there)', () => {
    expect(answerToMcpResult(ok([1, 2]))).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(answerToMcpResult(ok(42))).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(answerToMcpResult(ok(null))).toEqual({ content: [{ type: 'text', text: 'null' }] });
    expect(answerToMcpResult(ok(undefined))).toEqual({ content: [{ type: 'text', text: 'null' }] });
  });

  it('ok with a value JSON cannot hold still gives text, and never throws', () => {
    const big = answerToMcpResult(ok({ count: 10n }));
    expect(big.content).toEqual([{ type: 'text', text: '{"count":"10"}' }]);
    expect('structuredContent' in big).toBe(false);
    expect(() => JSON.stringify(big)).not.toThrow();
    expect(answerToMcpResult(ok(10n)).content).toEqual([{ type: 'text', text: '"10"' }]);
    const fn = answerToMcpResult(ok(() => 1));
    expect(typeof (fn.content[0] as { text: unknown }).text).toBe('string');
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const looped = answerToMcpResult(ok(cyclic));
    expect(looped.content).toEqual([{ type: 'text', text: '[object Object]' }]);
    expect(() => JSON.stringify(looped)).not.toThrow();
  });

  it('error gives isError and the reason as text', () => {
    expect(answerToMcpResult(error('no order A1'))).toEqual({
      content: [{ type: 'text', text: 'no order A1' }],
      isError: true,
    });
  });

  it('carries labels and measures in _meta', () => {
    const result = answerToMcpResult(ok('page', { labels: ['outside'], measures: { usd: 0.01 } }));
    expect(result._meta).toEqual({ [META.labels]: ['outside'], [META.measures]: { usd: 0.01 } });
    expect(answerToMcpResult(error('x', { measures: { usd: 0.02 } }))._meta).toEqual({
      [META.measures]: { usd: 0.02 },
    });
  });

  it('park gives isError, a text a model understands, and the park in _meta', () => {
    expect(
      answerToMcpResult(park('refund over 500 needs a manager', { details: { amount: 700 }, labels: ['outside'] })),
    ).toEqual({
      content: [{ type: 'text', text: 'Waiting for a person: refund over 500 needs a manager' }],
      isError: true,
      _meta: {
        [META.labels]: ['outside'],
        [META.park]: { reason: 'refund over 500 needs a manager', details: { amount: 700 } },
      },
    });
  });
});

describe('mcpResultToAnswer', () => {
  it('a lone text block is ok with the text', () => {
    expect(mcpResultToAnswer({ content: [{ type: 'text', text: 'shipped' }] })).toEqual(ok('shipped'));
  });

  it('structuredContent is the value when present', () => {
    expect(mcpResultToAnswer({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } })).toEqual(
      ok({ a: 1 }),
    );
  });

  it('other content is the value as blocks', () => {
    const content = [
      { type: 'text', text: 'see image' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
    ];
    expect(mcpResultToAnswer({ content })).toEqual(ok(content));
    expect(mcpResultToAnswer({ content: [] })).toEqual(ok([]));
  });

  it('isError is an error with the text blocks as its reason', () => {
    expect(
      mcpResultToAnswer({
        content: [
          { type: 'text', text: 'card declined' },
          { type: 'text', text: 'try another card' },
        ],
        isError: true,
      }),
    ).toEqual(error('card declined\ntry another card'));
    expect(mcpResultToAnswer({ content: [], isError: true })).toEqual(error('the tool reported an error'));
  });

  it('reads labels, measures and parks from _meta, dropping malformed ones', () => {
    expect(
      mcpResultToAnswer({
        content: [{ type: 'text', text: 'page' }],
        _meta: {
          [META.labels]: ['outside', '', 3],
          [META.measures]: { usd: 0.01, bad: 'x', inf: Number.POSITIVE_INFINITY },
        },
      }),
    ).toEqual(ok('page', { labels: ['outside'], measures: { usd: 0.01 } }));
    expect(
      mcpResultToAnswer({
        content: [],
        isError: true,
        _meta: { [META.park]: { reason: 'needs a manager', details: 1 } },
      }),
    ).toEqual(park('needs a manager', { details: 1 }));
    expect(mcpResultToAnswer({ content: [{ type: 'text', text: 'x' }], _meta: { [META.labels]: 'outside' } })).toEqual(
      ok('x'),
    );
    expect(mcpResultToAnswer({ content: [{ type: 'text', text: 'x' }], _meta: 'nonsense' })).toEqual(ok('x'));
  });

  it.each([
    ['null', null, 'expected an object, got null'],
    ['a string', 'done', 'expected an object, got string'],
    ['no content', {}, 'content must be an array, got undefined'],
    ['content that is not an array', { content: 'done' }, 'content must be an array, got string'],
  ])('a malformed result (%s) is an error answer', (_what, result, message) => {
    const answer = mcpResultToAnswer(result);
    expect(answer.type).toBe('error');
    expect(answer.type === 'error' && answer.reason).toBe(`malformed tools/call result: ${message}`);
  });

  it('ignores content blocks that are not text when looking for text', () => {
    expect(mcpResultToAnswer({ content: [null, 5, { type: 'text' }], isError: true })).toEqual(
      error('the tool reported an error'),
    );
  });
});

describe('answers round trip through MCP', () => {
  it.each([
    ['ok with text', ok('shipped')],
    [
      'ok with an object, labels and measures',
      ok({ status: 'shipped' }, { labels: ['outside'], measures: { usd: 0.01 } }),
    ],
    ['error with labels and measures', error('card declined', { labels: ['payments'], measures: { usd: 0.3 } })],
    ['park with details', park('needs a manager', { details: { amount: 700 }, measures: { usd: 1 } })],
  ])('%s', (_what, answer) => {
    const result = answerToMcpResult(answer);
    expect(mcpResultToAnswer(JSON.parse(JSON.stringify(result)))).toEqual(answer);
  });

  it('ok with a value that is not an object comes back as its JSON text (what the model reads)', () => {
    expect(mcpResultToAnswer(answerToMcpResult(ok([1, 2])))).toEqual(ok('[1,2]'));
  });
});
