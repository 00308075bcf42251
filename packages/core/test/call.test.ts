import { type Answer, call, findTool, type Tool, tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { context } from './helpers.js';

const seen: unknown[] = [];
const orderStatus = tool({
  name: 'order_status',
  description: 'Say where an order is.',
  schema: { order_id: { type: 'string', required: true } },
  run: (args) => {
    seen.push(args);
    return { order_id: args.order_id, status: 'shipped' };
  },
});
const addItems = tool({
  name: 'add_items',
  description: 'Add items to a cart.',
  schema: {
    cart: { type: 'string', required: true },
    items: {
      type: 'list',
      required: true,
      of: {
        type: 'object',
        fields: { sku: { type: 'string', required: true }, qty: { type: 'integer', required: true } },
      },
    },
    note: { type: 'string' },
    gift: { type: 'boolean' },
  },
  run: () => 'added',
});
const tools = [orderStatus, addItems];

function reasonOf(answer: Answer): string {
  if (answer.type !== 'error') throw new Error(`expected an error answer, got ${answer.type}`);
  return answer.reason;
}

describe('call() finds the tool', () => {
  it('runs the named tool with the checked arguments', async () => {
    seen.length = 0;
    expect(await call(tools, { id: 'c1', name: 'order_status', arguments: { order_id: 'A1' } }, context())).toEqual({
      type: 'ok',
      value: { order_id: 'A1', status: 'shipped' },
      measures: {},
      labels: [],
    });
    expect(seen).toEqual([{ order_id: 'A1' }]);
  });

  it('takes a Map from name to tool', async () => {
    const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));
    expect(
      await call(byName, { id: 'c1', name: 'order_status', arguments: { order_id: 'A1' } }, context()),
    ).toMatchObject({
      type: 'ok',
    });
    expect(findTool(byName, 'add_items')).toBe(addItems);
  });

  it('an unknown tool is an error naming it and listing the available ones', async () => {
    const answer = await call(tools, { id: 'c1', name: 'order_stat', arguments: {} }, context());
    expect(answer).toMatchObject({ type: 'error', code: 'unknown_tool' });
    expect(reasonOf(answer)).toBe('Unknown tool "order_stat"; available tools: order_status, add_items');
    const viaMap = await call(new Map([['order_status', orderStatus]]), { id: 'c1', name: 'nope' }, context());
    expect(reasonOf(viaMap)).toBe('Unknown tool "nope"; available tools: order_status');
  });

  it('says so when no tools are available', async () => {
    expect(reasonOf(await call([], { id: 'c1', name: 'anything' }, context()))).toBe(
      'Unknown tool "anything"; no tools are available',
    );
  });

  it('does not run a tool whose name only differs in case', async () => {
    expect(
      await call(tools, { id: 'c1', name: 'Order_Status', arguments: { order_id: 'A1' } }, context()),
    ).toMatchObject({
      type: 'error',
      code: 'unknown_tool',
    });
  });
});

describe('call() checks the arguments', () => {
  it('names the field and the expected type', async () => {
    const answer = await call(tools, { id: 'c1', name: 'order_status', arguments: { order_id: 1001 } }, context());
    expect(answer).toMatchObject({
      type: 'error',
      code: 'invalid_arguments',
      issues: [{ path: 'order_id', message: 'expected string, got integer 1001' }],
    });
    expect(reasonOf(answer)).toBe(
      'Invalid arguments for tool "order_status": order_id: expected string, got integer 1001',
    );
  });

  it('reports every problem, not just the first, nested ones with their path', async () => {
    const answer = await call(
      tools,
      {
        id: 'c1',
        name: 'add_items',
        arguments: {
          items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 'two' }, { qty: 3 }],
          note: 7,
          gift: 'yes',
          colour: 'red',
        },
      },
      context(),
    );
    expect(answer.type === 'error' && answer.issues).toEqual([
      { path: 'cart', message: 'is required (expected string)' },
      { path: 'colour', message: 'is not an expected field (expected: cart, items, note, gift)' },
      { path: 'items[1].qty', message: 'expected integer, got string "two"' },
      { path: 'items[2].sku', message: 'is required (expected string)' },
      { path: 'note', message: 'expected string, got integer 7' },
      { path: 'gift', message: 'expected boolean, got string "yes"' },
    ]);
    const reason = reasonOf(answer);
    for (const part of [
      'cart: is required',
      'colour: is not an expected field',
      'items[1].qty: expected integer',
      'items[2].sku: is required',
      'note: expected string',
      'gift: expected boolean',
    ]) {
      expect(reason).toContain(part);
    }
    expect(reason.startsWith('Invalid arguments for tool "add_items": ')).toBe(true);
  });

  it('does not run the tool when the arguments are wrong', async () => {
    seen.length = 0;
    await call(tools, { id: 'c1', name: 'order_status', arguments: {} }, context());
    expect(seen).toEqual([]);
  });

  it('takes the arguments as a JSON string', async () => {
    seen.length = 0;
    expect(
      await call(tools, { id: 'c1', name: 'order_status', arguments: '{"order_id":"A7"}' }, context()),
    ).toMatchObject({
      type: 'ok',
      value: { order_id: 'A7' },
    });
    expect(seen).toEqual([{ order_id: 'A7' }]);
    expect(await call(tools, { id: 'c1', name: 'order_status', arguments: '{"order_id":7}' }, context())).toMatchObject(
      {
        type: 'error',
        issues: [{ path: 'order_id' }],
      },
    );
  });

  it('an invalid JSON string is an error saying so', async () => {
    const answer = await call(tools, { id: 'c1', name: 'order_status', arguments: '{"order_id": "A7"' }, context());
    expect(answer).toMatchObject({ type: 'error', code: 'invalid_arguments' });
    expect(reasonOf(answer)).toMatch(/^Invalid arguments for tool "order_status": arguments are not valid JSON \(/);
  });

  it('no arguments, null or an empty string mean an empty object', async () => {
    const noArgs = tool({ name: 'ping', description: 'd', run: (args) => args });
    for (const args of [undefined, null, '']) {
      expect(await call([noArgs], { id: 'c1', name: 'ping', arguments: args }, context())).toMatchObject({
        type: 'ok',
        value: {},
      });
    }
    expect(await call(tools, { id: 'c1', name: 'order_status' }, context())).toMatchObject({
      type: 'error',
      issues: [{ path: 'order_id', message: 'is required (expected string)' }],
    });
  });

  it('never throws for bad model input', async () => {
    const bad: unknown[] = [
      42,
      true,
      'null',
      '"just a string"',
      '[1,2]',
      [],
      [{ order_id: 'A1' }],
      { order_id: { nested: true } },
      { order_id: null },
      { order_id: 'A1', ['__proto__']: { polluted: true } },
      JSON.parse('{"order_id":"A1","__proto__":{"polluted":true}}'),
      '{"constructor":{"prototype":{"polluted":true}}}',
      '\u0000',
      'x'.repeat(10_000),
    ];
    for (const args of bad) {
      const answer = await call(tools, { id: 'c1', name: 'order_status', arguments: args }, context());
      expect(answer.type).toBe('error');
      expect(reasonOf(answer)).toMatch(/^Invalid arguments for tool "order_status": /);
    }
    for (const name of ['', ' ', '../etc/passwd', 'constructor', '__proto__', 'toString']) {
      expect(await call(tools, { id: 'c1', name, arguments: {} }, context())).toMatchObject({
        type: 'error',
        code: 'unknown_tool',
      });
      expect(
        await call(new Map(tools.map((t) => [t.name, t])), { id: 'c1', name, arguments: {} }, context()),
      ).toMatchObject({
        type: 'error',
        code: 'unknown_tool',
      });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
