import { backoffDelay, isJsonObject, parseJsonRpcFrame, RPC, readJson } from '@wardrik/core/wire';
import { describe, expect, it } from 'vitest';

describe('backoffDelay', () => {
  const policy = { attempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles from the base delay up to the cap, with jitter between half and all', () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(policy, retry, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay(policy, retry, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect(backoffDelay(policy, 2, () => 0.5)).toBe(150);
  });

  it('waits the base delay before a retry numbered below 1', () => {
    expect(backoffDelay(policy, 0, () => 1)).toBe(100);
  });

  it('uses Math.random when not given a source, staying between half and all', () => {
    for (let i = 0; i < 50; i += 1) {
      const delay = backoffDelay(policy, 3);
      expect(delay).toBeGreaterThanOrEqual(200);
      expect(delay).toBeLessThanOrEqual(400);
    }
  });
});

describe('readJson', () => {
  it('gives the value, or what the parser said', () => {
    expect(readJson('{"a":[1]}')).toEqual({ ok: true, value: { a: [1] } });
    expect(readJson('null')).toEqual({ ok: true, value: null });
    const bad = readJson('hello');
    expect(bad.ok).toBe(false);
    expect(bad).toHaveProperty('reason', expect.stringMatching(/JSON|token/));
  });
});

describe('isJsonObject', () => {
  it('accepts objects only', () => {
    expect([{}, { a: 1 }, [], null, 'x', 1, true, undefined].map(isJsonObject)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('parseJsonRpcFrame', () => {
  it('reads requests, notifications and responses as they came', () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } };
    expect(parseJsonRpcFrame(JSON.stringify(request))).toEqual({ kind: 'request', message: request });
    const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } };
    expect(parseJsonRpcFrame(JSON.stringify(notification))).toEqual({ kind: 'request', message: notification });
    const result = { jsonrpc: '2.0', id: 'a', result: { tools: [] } };
    expect(parseJsonRpcFrame(JSON.stringify(result))).toEqual({ kind: 'response', message: result });
    const failure = { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'no' } };
    expect(parseJsonRpcFrame(JSON.stringify(failure))).toEqual({ kind: 'response', message: failure });
  });

  it.each([
    ['nope', RPC.parseError, /^not JSON: /, null],
    ['[]', RPC.invalidRequest, /batches are not used/, null],
    ['7', RPC.invalidRequest, /one JSON-RPC object/, null],
    ['{"jsonrpc":"1.0","id":4,"method":"x"}', RPC.invalidRequest, /jsonrpc must be "2.0"/, 4],
    ['{"jsonrpc":"2.0","id":{},"method":"x"}', RPC.invalidRequest, /id must be a string or a number/, null],
    ['{"jsonrpc":"2.0","id":5,"method":"x","params":"p"}', RPC.invalidParams, /params must be an object/, 5],
    ['{"jsonrpc":"2.0","id":6,"method":"x","params":null}', RPC.invalidParams, /params must be an object/, 6],
    ['{"jsonrpc":"2.0","result":{}}', RPC.invalidRequest, /needs the id of its request/, null],
    ['{"jsonrpc":"2.0","id":"k"}', RPC.invalidRequest, /neither a request/, 'k'],
  ])('names what is wrong with %s, the code to answer with and the id to answer to', (text, code, reason, id) => {
    const parsed = parseJsonRpcFrame(text);
    expect(parsed).toEqual({ kind: 'invalid', code, reason: expect.stringMatching(reason), id });
  });
});
