import { describe, expect, it } from 'vitest';
import { backoffDelay, reconnectPolicy } from '../src/backoff.js';
import { workerEndpoint } from '../src/endpoint.js';
import { WorkerError } from '../src/errors.js';
import { parseFrame } from '../src/frame.js';

describe('workerEndpoint', () => {
  it.each([
    ['http://127.0.0.1:8080', 'ws://127.0.0.1:8080/v1/workers'],
    ['https://wardrik.example.com/', 'wss://wardrik.example.com/v1/workers'],
    ['https://example.com/wardrik', 'wss://example.com/wardrik/v1/workers'],
    ['http://h/base/?x=1#frag', 'ws://h/base/v1/workers?x=1'],
    ['ws://h/v1/workers', 'ws://h/v1/workers'],
    ['wss://h/base/v1/workers/', 'wss://h/base/v1/workers'],
  ])('%s → %s', (url, endpoint) => {
    expect(workerEndpoint(url).href).toBe(endpoint);
  });

  it('rejects other schemes and non-URLs', () => {
    expect(() => workerEndpoint('ftp://h')).toThrow(/must start with http/);
    expect(() => workerEndpoint('localhost:8080')).toThrow(/must start with http/);
    expect(() => workerEndpoint('')).toThrow(/not a valid URL/);
  });
});

describe('backoff', () => {
  it('doubles from the initial delay up to the cap, with jitter between half and all', () => {
    const policy = reconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1_000 });
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(policy, attempt, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect([1, 2, 3].map((attempt) => backoffDelay(policy, attempt, () => 0))).toEqual([50, 100, 200]);
  });

  it('checks the options', () => {
    expect(reconnectPolicy()).toEqual({
      initialDelayMs: 500,
      maxDelayMs: 30_000,
      maxAttempts: Number.POSITIVE_INFINITY,
    });
    expect(() => reconnectPolicy({ maxAttempts: 0 })).toThrow(/at least 1/);
    expect(() => reconnectPolicy({ initialDelayMs: -1 })).toThrow(/initialDelayMs/);
  });
});

describe('WorkerError', () => {
  it('is recognised by its brand and knows what is worth retrying', () => {
    const refused = new WorkerError('worker_unauthorized', 'no', { status: 401, reason: 'bad token' });
    expect(WorkerError.isInstance(refused)).toBe(true);
    expect(WorkerError.isInstance(new Error('x'))).toBe(false);
    expect(refused.fatal).toBe(true);
    expect(new WorkerError('worker_rejected', 'x', { status: 503 }).fatal).toBe(false);
    expect(new WorkerError('worker_rejected', 'x', { status: 429 }).fatal).toBe(false);
    expect(new WorkerError('worker_rejected', 'x', { status: 404 }).fatal).toBe(true);
  });
});

describe('parseFrame', () => {
  it('keeps the message exactly as it came', () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"custom":{"deep":[1]}}}}';
    expect(parseFrame(text)).toEqual({ type: 'message', message: JSON.parse(text) });
  });

  it('names what is wrong, and the id of a request it cannot read', () => {
    expect(parseFrame('nope')).toMatchObject({ type: 'malformed', reason: expect.stringContaining('not JSON') });
    expect(parseFrame('{"jsonrpc":"2.0","id":3,"method":7}')).toMatchObject({ type: 'malformed', requestId: 3 });
    expect(parseFrame('{"jsonrpc":"2.0","id":null,"method":"x"}')).not.toHaveProperty('requestId');
  });
});
