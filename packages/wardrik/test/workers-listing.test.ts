/*
 * What Wardrik makes of a worker's `tools/list`: the names the model sees (always ones every model
 * provider accepts), tools that need MCP tasks, and input schemas in older JSON Schema dialects.
 * Workers are raw JSON-RPC over real WebSockets, and @modelcontextprotocol/server-everything (a
 * real MCP server from npm) through the stdio bridge.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { Principal } from '../src/auth/types.js';
import { workerModelName } from '../src/workers/model-name.js';
import type { WorkerConnection } from '../src/workers/worker-connection.js';
import { WorkerHub } from '../src/workers/worker-hub.js';
import { DRAFT_04, DRAFT_06, DRAFT_2019_09, ZOD_TUPLES } from './fixtures/workers/listed-schemas.js';
import { ECHO_TOOL, RawWorker } from './fixtures/workers/raw-worker.js';
import {
  answersOf,
  type Credentials,
  type WorkersEnv as Env,
  plan,
  ROOT,
  until,
  WorkersEnv,
  workerCall,
} from './workers-env.js';

/** What OpenAI (function names) and Anthropic (tool names) accept. */
const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const BRIDGE = join(ROOT, 'packages/worker/src/bridge-cli.ts');
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

let env: Env;
let principal: Credentials;
const raws: RawWorker[] = [];

/** A raw worker listing `tools`, once Wardrik has listed them. */
async function rawWorker(tools: readonly unknown[]): Promise<RawWorker> {
  const before = new Set(env.wardrik.workers.list().map((each) => each.id));
  const worker = await RawWorker.connect(env.url, principal.token, { tools });
  raws.push(worker);
  await until(() =>
    env.wardrik.workers
      .list()
      .some((each) => !before.has(each.id) && each.tools.length + each.rejected.length === tools.length),
  );
  return worker;
}

/** The worker's next call, or a failure saying how the run ended if it ends first. */
function nextCallOf(worker: RawWorker, run: Promise<{ status: string; error?: string }>) {
  const ended = run.then((result) => {
    throw new Error(`the run ended (${result.status}: ${result.error ?? ''}) before the call came`);
  });
  return Promise.race([worker.nextCall(), ended]);
}

/** A read-only tool taking anything, named `name`. */
function readOnly(name: string, extra: Record<string, unknown> = {}) {
  return { ...ECHO_TOOL, name, ...extra };
}

beforeAll(async () => {
  env = await WorkersEnv.start({ workers: { unavailableWaitMs: 30_000, handshakeTimeoutMs: 5_000 } });
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

describe('the names the model sees', () => {
  it('are fixed by the worker name alone: workers__NAME, or a safe name with a hash', () => {
    // Journals keep these names and recovery finds calls by them: they must never change.
    expect(workerModelName('refund_order')).toBe('workers__refund_order');
    expect(workerModelName('get-sum')).toBe('workers__get-sum');
    expect(workerModelName('orders.refund')).toBe('workers__orders_refund_63eeb2f9');
    expect(workerModelName('orders_refund')).toBe('workers__orders_refund');
    expect(workerModelName('a'.repeat(55))).toBe(`workers__${'a'.repeat(55)}`);
    expect(workerModelName('a'.repeat(56))).toBe(`workers__${'a'.repeat(46)}_b35439a4`);
    expect(workerModelName('x'.repeat(125))).toBe(`workers__${'x'.repeat(46)}_102be737`);
    for (const name of ['a.b', 'a_b', 'a-b', 'x'.repeat(128), `${'x'.repeat(127)}y`, 'ümlaut tool']) {
      expect(workerModelName(name)).toMatch(PROVIDER_NAME);
    }
    expect(new Set(['a.b', 'a_b', 'a-b'].map(workerModelName)).size).toBe(3);
    expect(workerModelName('x'.repeat(128))).not.toBe(workerModelName(`${'x'.repeat(127)}y`));
  });

  it('valid MCP names that providers refuse (over 55 characters, dots) are offered under safe names, and runs work', async () => {
    const long = 'x'.repeat(125);
    const sixty = 'a'.repeat(60);
    const worker = await rawWorker([ECHO_TOOL, readOnly(long), readOnly('orders.refund'), readOnly(sixty)]);

    const input = plan([
      { name: workerModelName('orders.refund'), arguments: { text: 'dotted' } },
      { name: workerModelName(long), arguments: { text: 'long' } },
    ]);
    const run = env.wardrik.run('support', input);
    const calls = [await nextCallOf(worker, run), await nextCallOf(worker, run)];
    // The worker is called by its own names.
    expect(calls.map((call) => call.params?.name).sort()).toEqual([long, 'orders.refund'].sort());
    for (const call of calls) worker.answer(call.id, { content: [{ type: 'text', text: `ran ${call.params?.name}` }] });
    const result = await run;
    expect(result.status).toBe('completed');
    expect(answersOf(result.output).map((answer) => answer.isError)).toEqual([false, false]);

    const [listed] = env.wardrik.workers.list();
    expect(listed?.rejected).toEqual([]);
    expect(listed?.modelNames).toEqual({
      echo: 'workers__echo',
      [long]: workerModelName(long),
      'orders.refund': 'workers__orders_refund_63eeb2f9',
      [sixty]: workerModelName(sixty),
    });
    const api = await env.get('/v1/workers');
    expect(api.json.workers[0].modelNames).toEqual(listed?.modelNames);

    const offered = env.seen.find((seen) => seen.input === input)?.tools.map((tool) => tool.name) ?? [];
    expect(offered).toHaveLength(4);
    for (const name of offered) expect(name).toMatch(PROVIDER_NAME);
  });

  it('a call journaled under a mapped name finds its tool again after a restart', async () => {
    // Not read-only: the call waits for approval, across a restart of Wardrik.
    await rawWorker([{ ...ECHO_TOOL, name: 'orders.refund', annotations: {} }]);
    const modelName = workerModelName('orders.refund');
    const { runId } = await env.wardrik.start('support', plan([{ name: modelName, arguments: { text: 'A1' } }]));
    await until(async () => (await env.wardrik.listParks({ runId, status: 'open' })).length === 1);
    for (const worker of raws.splice(0)) worker.socket.terminate();
    await env.stop();
    await env.open();

    // Approved while no worker offers the tool: the call waits for one, known only by its model name.
    expect(await env.approve(runId)).toBe(1);
    const worker = await RawWorker.connect(env.url, principal.token, {
      tools: [{ ...ECHO_TOOL, name: 'orders.refund', annotations: {} }],
    });
    raws.push(worker);
    const call = await worker.nextCall();
    expect(call.params?.name).toBe('orders.refund');
    worker.answer(call.id, { content: [{ type: 'text', text: 'refunded' }] });
    const result = await env.wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ name: modelName, isError: false, content: 'refunded' });
  });

  it('two tools of one worker whose names map to one model name: the second is left out, with why', async () => {
    const clash = 'workers__orders_refund_63eeb2f9'.slice('workers__'.length); // what orders.refund maps to
    await rawWorker([readOnly('orders.refund'), readOnly(clash)]);
    const [listed] = env.wardrik.workers.list();
    expect(listed?.tools).toEqual(['orders.refund']);
    expect(listed?.rejected).toEqual([
      { name: clash, reason: expect.stringMatching(/model name workers__orders_refund_63eeb2f9 .*"orders\.refund"/) },
    ]);
  });
});

describe('a tool the hub cannot build', () => {
  it('is left out with why (logged, in rejected); asking for the tools never throws into a run', async () => {
    const logs: string[] = [];
    const hub = new WorkerHub({ log: (message) => logs.push(message), handshakeTimeoutMs: 5_000 });
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const guard: Principal = {
      id: 'p-guard',
      name: 'guard',
      kind: 'worker',
      role: 'worker',
      agents: ['*'],
      createdAt: 0,
    };
    const accepted = new Promise<WorkerConnection>((resolve) =>
      server.once('connection', (socket) => resolve(hub.accept(socket, guard))),
    );
    const { port } = server.address() as { port: number };
    const worker = await RawWorker.connect(`http://127.0.0.1:${port}`, 'no token here', { tools: [ECHO_TOOL] });
    try {
      const connection = await accepted;
      // A listing the worker's own check would refuse, put straight into the connection: whatever
      // slips past that check must still not reach a run.
      connection.tools.set('broken', {
        name: 'broken',
        inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } },
      });
      connection.modelNames.set('broken', 'workers__broken');

      const tools = hub.toolsFor('support', ['workers/*']);
      expect([...tools.keys()]).toEqual(['workers__echo']);
      expect(hub.toolFor('support', ['workers/*'], 'workers__echo')).toBe(tools.get('workers__echo'));
      const [listed] = hub.list();
      expect(listed?.tools).toEqual(['echo']);
      expect(listed?.rejected).toEqual([
        { name: 'broken', reason: expect.stringMatching(/could not be offered to the model: .*schema/) },
      ]);
      expect(logs.filter((line) => line.includes('broken'))).toHaveLength(1);
    } finally {
      worker.socket.terminate();
      hub.close();
      server.close();
    }
  });
});

describe('MCP tasks', () => {
  it('a tool that requires task augmentation is offered (it runs as a task: workers-tasks.test.ts); optional ones are called as usual', async () => {
    const worker = await rawWorker([
      readOnly('research', { execution: { taskSupport: 'required' } }),
      readOnly('maybe_task', { execution: { taskSupport: 'optional' } }),
    ]);
    const [listed] = env.wardrik.workers.list();
    expect(listed?.tools).toEqual(['research', 'maybe_task']);
    expect(listed?.rejected).toEqual([]);

    const run = env.wardrik.run('support', plan([workerCall('maybe_task', { text: 'hi' })]));
    const call = await worker.nextCall();
    expect(call.params).not.toHaveProperty('task');
    worker.answer(call.id, { content: [{ type: 'text', text: 'done' }] });
    expect(answersOf((await run).output)[0]).toMatchObject({ isError: false, content: 'done' });
  });

  it('server-everything through the bridge: every tool is offered (simulate-research-query as a task), and they work', async () => {
    const worker = await env.principal(['*']);
    env.spawn('everything', [
      BRIDGE,
      '--url',
      env.url,
      '--token',
      worker.token,
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ]);
    await env.connected(worker, 1, 'get-sum');
    const [listed] = env.wardrik.workers.list();
    expect(listed?.rejected).toEqual([]);
    expect(listed?.tools).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation', 'simulate-research-query']),
    );

    const result = await env.wardrik.run('support', plan([workerCall('get-sum', { a: 2, b: 40 })]));
    expect(result.status).toBe('completed');
    expect(JSON.stringify(answersOf(result.output)[0]?.content)).toContain('42');
  });
});

describe('JSON Schema dialects', () => {
  it('draft-04, draft-06, draft-07 tuples and 2019-09 are offered, checked in their dialect, shown to the model in 2020-12', async () => {
    const worker = await rawWorker([
      readOnly('search', { inputSchema: DRAFT_04 }),
      readOnly('ticket', { inputSchema: DRAFT_06 }),
      readOnly('plot', { inputSchema: ZOD_TUPLES }),
      readOnly('range', { inputSchema: DRAFT_2019_09 }),
    ]);
    const [listed] = env.wardrik.workers.list();
    expect(listed?.rejected).toEqual([]);
    expect(listed?.tools).toEqual(['search', 'ticket', 'plot', 'range']);

    // Arguments the dialect refuses never reach the worker; the model reads why.
    const refused = plan([
      workerCall('search', { query: 'q', limit: 0 }),
      workerCall('ticket', { kind: 'ticket', priority: 5 }),
      workerCall('plot', { point: [1, 'x'], tagged: ['a'] }),
      workerCall('range', { range: [1, 2, 3] }),
    ]);
    const answers = answersOf((await env.wardrik.run('support', refused)).output);
    expect(answers.map((answer) => answer.isError)).toEqual([true, true, true, true]);
    expect(JSON.stringify(answers[0]?.content)).toMatch(/limit.*> 0/);
    expect(JSON.stringify(answers[2]?.content)).toMatch(/point\[1\]/);
    expect(worker.received.filter((message) => message.method === 'tools/call')).toHaveLength(0);

    // Valid ones do.
    const run = env.wardrik.run('support', plan([workerCall('plot', { point: [1, 2], tagged: ['a', 3] })]));
    const call = await worker.nextCall();
    expect(call.params?.arguments).toEqual({ point: [1, 2], tagged: ['a', 3] });
    worker.answer(call.id, { content: [{ type: 'text', text: 'plotted' }] });
    expect(answersOf((await run).output)[0]).toMatchObject({ isError: false, content: 'plotted' });

    // The model is given draft 2020-12.
    const tools = env.seen.find((seen) => seen.input === refused)?.tools ?? [];
    const schema = (name: string) => tools.find((tool) => tool.name === `workers__${name}`)?.inputSchema;
    expect(schema('plot')).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: { point: { prefixItems: [{ type: 'number' }, { type: 'number' }] } },
    });
    expect(schema('search')).toMatchObject({
      $id: 'http://example.com/schemas/search.json',
      definitions: { Search: { properties: { limit: { exclusiveMinimum: 0, maximum: 100 } } } },
    });
    expect(schema('range')).toMatchObject({ properties: { range: { prefixItems: expect.any(Array), items: false } } });
    for (const name of ['search', 'ticket', 'plot', 'range']) {
      expect(JSON.stringify(schema(name))).not.toMatch(/"additionalItems"|"exclusiveMinimum":true|"id":/);
    }
  });
});
