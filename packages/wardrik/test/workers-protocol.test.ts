/*
 * Bad input from workers, fed by a raw `ws` client speaking JSON-RPC by hand: refused tokens,
 * malformed frames, unknown ids, answers to cancelled calls, oversized frames, workers that keep
 * misbehaving or never initialize. Wardrik answers with protocol errors, drops or disconnects —
 * and keeps serving its other workers and HTTP.
 */
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/index.js';
import { ECHO_TOOL, RawWorker } from './fixtures/workers/raw-worker.js';
import {
  answersOf,
  type Credentials,
  type WorkersEnv as Env,
  plan,
  sleep,
  until,
  WorkersEnv,
  workerCall,
  workerOf,
} from './workers-env.js';

const FRAME_LIMIT = 64 * 1024;
const MAX_FAULTS = 3;

let env: Env;
let principal: Credentials;
const raws: RawWorker[] = [];

async function raw(options: Parameters<typeof RawWorker.connect>[2] = { tools: [ECHO_TOOL] }): Promise<RawWorker> {
  const worker = await RawWorker.connect(env.url, principal.token, options);
  raws.push(worker);
  return worker;
}

/** Connects a raw worker offering echo and waits until Wardrik has listed it. */
async function listedRaw(): Promise<RawWorker> {
  const before = env.wardrik.workers.list().length;
  const worker = await raw();
  await until(() => env.wardrik.workers.list().filter((each) => each.tools.includes('echo')).length > before);
  return worker;
}

/** Wardrik still serves: HTTP answers, and an SDK worker in its own process runs a call. */
async function stillServing(): Promise<void> {
  expect((await env.get('/v1/health')).status).toBe(200);
  const sdk = await env.principal(['*']);
  env.startWorker('healthy', sdk.token);
  await env.connected(sdk);
  const result = await env.wardrik.run('lookups', plan([workerCall('lookup', { key: 'still' })]));
  expect(workerOf(answersOf(result.output)[0])).toBe('healthy');
}

beforeAll(async () => {
  env = await WorkersEnv.start({
    workers: { maxFaults: MAX_FAULTS, handshakeTimeoutMs: 3_000, unavailableWaitMs: 1_000 },
    server: { maxWorkerFrameBytes: FRAME_LIMIT },
  });
  principal = await env.principal(['*']);
});
afterEach(async () => {
  for (const worker of raws.splice(0)) worker.socket.terminate();
  await env.killWorkers();
  env.logs.length = 0;
});
afterAll(async () => {
  await env?.close();
});

describe('who may connect', () => {
  it('a bad or missing token is refused with 401 and the reason; a user-role token with 403', async () => {
    const bad = await RawWorker.refused(env.url, 'wdk_not-a-real-token');
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body)).toMatchObject({ status: 401, detail: 'unknown token' });

    const missing = await RawWorker.refused(env.url, undefined);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body).detail).toBe('missing bearer token');

    const user = await env.principal(['*'], 'user');
    const forbidden = await RawWorker.refused(env.url, user.token);
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body).detail).toBe('role user may not serve agents');

    const operator = await env.principal(['*'], 'operator');
    expect((await RawWorker.refused(env.url, operator.token)).status).toBe(403);

    const elsewhere = await RawWorker.refused(env.url, principal.token, '/v1/runs');
    expect(elsewhere.status).toBe(404);
    expect(env.wardrik.workers.list()).toEqual([]);
  });

  it('the @wardrik/worker client is refused at once with the reason (not retried)', async () => {
    const refused = env.startWorker('refused', 'wdk_not-a-real-token');
    const exit = await refused.exited;
    expect(exit.code).toBe(3);
    expect(refused.stderr).toMatch(/unknown token/);
  });

  it('clients that reset their connection while the token is checked do not crash the server', async () => {
    const { port } = env.server;
    const upgrade = (token: string) =>
      `GET /v1/workers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    for (let round = 0; round < 30; round++) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(upgrade(round % 2 ? principal.token : 'wdk_bad'), () => {
            socket.resetAndDestroy();
            resolve();
          });
        });
        socket.on('error', () => resolve());
      });
    }
    await sleep(200);
    await stillServing();
  });
});

describe('a raw JSON-RPC worker', () => {
  it('is initialized, listed and called with _meta like any worker', async () => {
    const worker = await listedRaw();
    const started = await env.wardrik.start('support', plan([workerCall('echo', { text: 'hello' })]), {
      principal: 'bob',
    });
    const call = await worker.nextCall();
    expect(call.params).toMatchObject({
      name: 'echo',
      arguments: { text: 'hello' },
      _meta: { agent: 'support', run: started.runId, principal: 'bob', idempotencyKey: `${started.runId}:c1.0` },
    });
    // The attempt's fencing token: the seq of its intent in the run's journal.
    const intent = (await env.wardrik.getRun(started.runId)).journal.find(
      (stored) => stored.record.type === 'call-started',
    );
    expect((call.params as { _meta: { fencingToken?: number } })._meta.fencingToken).toBe(intent?.seq);
    worker.answer(call.id, { content: [{ type: 'text', text: 'hello back' }] });
    const result = await env.wardrik.wait(started.runId);
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: 'hello back', labels: ['outside'] });
  });

  it("a JSON-RPC error or a malformed result becomes an error answer; it doesn't break the connection", async () => {
    const worker = await listedRaw();
    const first = env.wardrik.run('support', plan([workerCall('echo', { text: 'a' })]));
    const call = await worker.nextCall();
    worker.send({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'the database is down' } });
    expect(answersOf((await first).output)[0]).toMatchObject({
      isError: true,
      content: { error: 'the database is down' },
    });

    const second = env.wardrik.run('support', plan([workerCall('echo', { text: 'b' })]));
    const again = await worker.nextCall();
    worker.answer(again.id, { content: 'not an array' });
    const [answer] = answersOf((await second).output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toMatch(/malformed tools\/call result/);
    expect(env.wardrik.workers.list()).toHaveLength(1);
  });

  it('malformed frames get protocol errors; the connection stays until too many', async () => {
    const worker = await listedRaw();
    worker.send('{ this is not json');
    expect(await worker.next((message) => message.error !== undefined)).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    worker.send([{ jsonrpc: '2.0', method: 'ping', id: 1 }]);
    expect((await worker.next((message) => message.error !== undefined)).error?.code).toBe(-32600);
    worker.send({ jsonrpc: '1.0', id: 7, method: 'ping' });
    expect(await worker.next((message) => message.error !== undefined)).toMatchObject({
      id: 7,
      error: { code: -32600, message: expect.stringMatching(/jsonrpc/) },
    });
    expect(env.logs.filter((line) => line.includes('protocol error'))).toHaveLength(3);
    expect(env.wardrik.workers.list()).toHaveLength(1);

    // Requests Wardrik does not serve get "method not found"; pings are answered; other
    // notifications are ignored. None of these is a fault.
    worker.send({ jsonrpc: '2.0', id: 'x', method: 'sampling/createMessage', params: {} });
    expect(await worker.next((message) => message.id === 'x')).toMatchObject({ error: { code: -32601 } });
    worker.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    expect(await worker.next((message) => message.id === 'p')).toMatchObject({ result: {} });
    worker.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });

    // Calls still work.
    const run = env.wardrik.run('support', plan([workerCall('echo', { text: 'ok' })]));
    const call = await worker.nextCall();
    worker.answer(call.id, { content: [{ type: 'text', text: 'ok' }] });
    expect(answersOf((await run).output)[0]).toMatchObject({ isError: false, content: 'ok' });

    // One more fault (the fourth) is too many: disconnected with 1008.
    worker.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    const closed = await worker.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/too many protocol errors/);
    await until(() => env.wardrik.workers.list().length === 0);
  });

  it('progress for the call in flight is passed on; late, unknown, malformed or shrinking progress is ignored, never a fault', async () => {
    const worker = await listedRaw();
    const { runId } = await env.wardrik.start('support', plan([workerCall('echo', { text: 'p' })]));
    const events: Array<Extract<RunEvent, { type: 'call-progress' }>> = [];
    env.wardrik.subscribe(runId, (event) => {
      if (event.type === 'call-progress') events.push(event);
    });
    const call = await worker.nextCall();
    const token = call.params?._meta?.progressToken;
    expect(token).toBe(call.id);
    const progress = (params: Record<string, unknown>) =>
      worker.send({ jsonrpc: '2.0', method: 'notifications/progress', params });
    progress({ progressToken: token, progress: 1, total: 4, message: 'one' });
    progress({ progressToken: token, progress: 1 }); // did not grow
    progress({ progressToken: token, progress: 'two' }); // not a number
    progress({ progressToken: token, progress: 2, total: 'x' });
    progress({ progressToken: token, progress: 2, message: 7 });
    progress({ progressToken: 424_242, progress: 9 }); // no such call
    progress({ progressToken: String(token), progress: 9 }); // not the token Wardrik sent
    progress({ progress: 9 });
    progress({ progressToken: token, progress: 3, message: 'three' });
    await until(() => events.some((event) => event.progress === 3));
    worker.answer(call.id, { content: [{ type: 'text', text: 'done' }] });
    progress({ progressToken: token, progress: 4 }); // after the answer
    const result = await env.wardrik.wait(runId);
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: 'done' });

    expect(events.map((event) => [event.progress, event.total, event.message])).toEqual([
      [1, 4, 'one'],
      [3, undefined, 'three'],
    ]);
    expect(events[0]).toMatchObject({ runId, name: 'workers__echo' });
    expect(env.logs.filter((line) => line.includes('progress for call'))).toEqual([
      expect.stringMatching(/progress must be a number, got "two"/),
      expect.stringMatching(/total must be a number/),
      expect.stringMatching(/message must be a string/),
    ]);
    expect(env.logs.filter((line) => line.includes('protocol error'))).toEqual([]);
    expect(worker.received.filter((message) => message.error !== undefined)).toEqual([]);
    expect(env.wardrik.workers.list()).toHaveLength(1);
  });

  it('answers with unknown ids are dropped and logged; enough of them disconnect the worker', async () => {
    const worker = await listedRaw();
    worker.answer(999_999, { content: [] });
    await until(() => env.logs.some((line) => line.includes('no request has id 999999')));
    worker.send({ jsonrpc: '2.0', id: 'nope', error: { code: 1, message: 'x' } });
    await until(() => env.logs.filter((line) => line.includes('no request has id')).length === 2);
    // No reply is sent to a response.
    await sleep(100);
    expect(worker.received.filter((message) => message.error !== undefined)).toEqual([]);

    // A call in flight when the worker is disconnected is lost; for a read-only tool it is
    // retried on whichever worker offers it then (none here: Unavailable).
    const run = env.wardrik.run('support', plan([workerCall('echo', { text: 'x' })]));
    await worker.nextCall();
    worker.answer(1_000_001, {});
    worker.answer(1_000_002, {});
    const closed = await worker.closed;
    expect(closed.code).toBe(1008);
    const [answer] = answersOf((await run).output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toMatch(/Unavailable/);
  });

  it('an answer to a call Wardrik stopped waiting for is dropped quietly', async () => {
    const worker = await listedRaw();
    const started = await env.wardrik.start('support', plan([workerCall('echo', { text: 'slow' })]));
    const call = await worker.nextCall();
    await env.wardrik.cancel(started.runId, 'changed my mind');
    const cancelled = await worker.next((message) => message.method === 'notifications/cancelled');
    expect(cancelled.params).toMatchObject({ requestId: call.id, reason: 'changed my mind' });

    worker.answer(call.id, { content: [{ type: 'text', text: 'too late' }] });
    await sleep(200);
    expect(env.logs.filter((line) => line.includes('protocol error'))).toEqual([]);
    expect(worker.received.filter((message) => message.error !== undefined)).toEqual([]);
    expect((await env.wardrik.getRunSummary(started.runId)).status).toBe('cancelled');
    expect(env.wardrik.workers.list()[0]?.inflight).toBe(0);
  });

  it('a frame over the limit closes the connection with 1009; the server keeps serving', async () => {
    const big = await listedRaw();
    const other = await listedRaw();
    const run = env.wardrik.run('support', plan([workerCall('echo', { text: 'x' })]));
    const call = await big.nextCall();
    big.answer(call.id, { content: [{ type: 'text', text: 'x'.repeat(FRAME_LIMIT + 1) }] });
    const closed = await big.closed;
    expect(closed.code).toBe(1009);
    // The call was lost with the connection and retried on the other worker (echo is read-only).
    const retried = await other.nextCall();
    // The same meta (each attempt has a progress token of its own, and a higher fencing token).
    const { progressToken: _first, fencingToken: firstToken, ...meta } = call.params?._meta ?? {};
    const { progressToken: _second, fencingToken: retriedToken, ...retriedMeta } = retried.params?._meta ?? {};
    expect(retriedMeta).toEqual(meta);
    expect(retriedToken).toBeGreaterThan(firstToken as number);
    other.answer(retried.id, { content: [{ type: 'text', text: 'from the other' }] });
    expect(answersOf((await run).output)[0]).toMatchObject({ isError: false, content: 'from the other' });
    await stillServing();
  });

  it('invalid tools are left out, the rest kept; a list that is not one closes the connection', async () => {
    await raw({
      tools: [
        ECHO_TOOL,
        { name: '', inputSchema: { type: 'object' } },
        { name: 'x'.repeat(200), inputSchema: { type: 'object' } },
        'not a tool',
        { name: 'bad_required', inputSchema: { type: 'object', required: 'text' } },
      ],
    });
    await until(() => env.wardrik.workers.list()[0]?.tools.includes('echo') === true);
    const [listed] = env.wardrik.workers.list();
    expect(listed?.rejected).toHaveLength(4);
    expect(listed?.rejected.map((each) => each.name)).toContain('(no name)');
    const api = await env.get('/v1/workers');
    expect(api.json.workers[0].rejected).toHaveLength(4);

    const broken = await raw({ listResult: { tools: 'nope' } });
    const closed = await broken.closed;
    expect(closed.code).toBe(1002);
    expect(closed.reason).toMatch(/tools/);
    expect(env.wardrik.workers.list()).toHaveLength(1);
  });

  it('a worker that never answers initialize is closed after handshakeTimeoutMs', async () => {
    const silent = await raw({ initialize: false });
    const initialize = await silent.next((message) => message.method === 'initialize');
    expect(initialize.params).toMatchObject({ protocolVersion: expect.any(String), clientInfo: { name: 'wardrik' } });
    const closed = await silent.closed;
    expect(closed.code).toBe(1002);
    expect(closed.reason).toMatch(/initialize/);
    await until(() => env.wardrik.workers.list().length === 0);
  });

  it('list_changed makes Wardrik list again; the new list replaces the old', async () => {
    let tools: unknown[] = [ECHO_TOOL];
    const worker = await RawWorker.connect(env.url, principal.token, {
      get tools() {
        return tools;
      },
    } as { tools: unknown[] });
    raws.push(worker);
    await until(() => env.wardrik.workers.list()[0]?.tools.includes('echo') === true);
    tools = [{ ...ECHO_TOOL, name: 'shout' }];
    worker.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await until(() => env.wardrik.workers.list()[0]?.tools.join() === 'shout');
  });
});
