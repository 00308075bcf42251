import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parseFrame } from '../src/frame.js';

describe('parseFrame', () => {
  it("reads plain requests by hand but accepts exactly what the SDK's JSON-RPC schema accepts", () => {
    const ids = [1, -3, 1.5, 2 ** 60, 'a', '', null, {}, [], true];
    const methods = ['tools/call', '', 5, null, undefined];
    const params = [
      undefined,
      {},
      [],
      null,
      'x',
      { a: 1 },
      { _meta: {} },
      { _meta: null },
      { _meta: [] },
      { _meta: { progressToken: 1 } },
      { _meta: { progressToken: 1.2 } },
      { _meta: { progressToken: 'p', agent: 'a' } },
      { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } },
      { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
    ];
    const versions = ['2.0', '1.0', 2, undefined];
    const extras = [{}, { result: {} }, { error: { code: 1, message: 'x' } }, { extra: 1 }];
    let compared = 0;
    for (const id of ids)
      for (const withId of [true, false])
        for (const method of methods)
          for (const param of params)
            for (const version of versions)
              for (const extra of extras) {
                const message: Record<string, unknown> = { ...extra };
                if (version !== undefined) message.jsonrpc = version;
                if (withId) message.id = id;
                if (method !== undefined) message.method = method;
                if (param !== undefined) message.params = param;
                const text = JSON.stringify(message);
                const expected = JSONRPCMessageSchema.safeParse(JSON.parse(text)).success;
                expect({ text, accepted: parseFrame(text).type === 'message' }).toEqual({ text, accepted: expected });
                compared += 1;
              }
    expect(compared).toBeGreaterThan(20_000);
  });
});
