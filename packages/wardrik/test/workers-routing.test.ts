/*
 * Workers end to end: a real Wardrik (SQLite, AuthService, HTTP server) and workers built with the
 * official MCP SDK running as separate processes, connected through @wardrik/worker. Listing,
 * `_meta`, routing (least busy, first-connected principal, scope), Unavailable, list_changed,
 * gating and labels, and the API and CLI listing of workers.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  answersOf,
  type WorkersEnv as Env,
  FIXTURES,
  plan,
  ROOT,
  SLOW,
  sleep,
  until,
  WorkersEnv,
  withoutWardrikVariables,
  workerCall,
  workerOf,
} from './workers-env.js';

let env: Env;
beforeAll(async () => {
  env = await WorkersEnv.start({ workers: { unavailableWaitMs: 1_000 } });
});
afterEach(async () => {
  await env.killWorkers();
});
afterAll(async () => {
  await env?.close();
});

describe('listing', () => {
  it("offers each worker's tools to the model as workers__NAME, with their input schemas", async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);
    const input = plan();
    const result = await env.wardrik.run('support', input);
    expect(result.status).toBe('completed');
    const tools = env.seen.find((seen) => seen.input === input)?.tools ?? [];
    const names = tools.map((each) => each.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'workers__lookup',
        'workers__refund',
        'workers__charge',
        'workers__slow_lookup',
        'workers__hang',
        'workers__add_tool',
      ]),
    );
    const refund = tools.find((each) => each.name === 'workers__refund');
    expect(refund?.description).toBe('Refunds an order.');
    expect(refund?.inputSchema).toMatchObject({
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      required: ['orderId', 'amount'],
    });
    const lookup = tools.find((each) => each.name === 'workers__lookup');
    expect(lookup?.inputSchema).toMatchObject({
      properties: { key: { type: 'string', description: 'what to look up' } },
      required: ['key'],
    });

    // An agent naming `workers/NAME` gets only those.
    const only = plan();
    await env.wardrik.run('lookups', only);
    const narrowed = env.seen.find((seen) => seen.input === only)?.tools.map((each) => each.name);
    expect(narrowed?.sort()).toEqual(['workers__lookup', 'workers__slow_lookup']);
  });

  it('checks arguments against the listed schema before anything reaches the worker', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);
    const result = await env.wardrik.run('support', plan([workerCall('lookup', { key: 42 })]));
    const [answer] = answersOf(result.output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toContain('key');
    expect(env.records('lookup')).toHaveLength(0);
  });

  it('leaves invalid tools out with the reason: logged, in GET /v1/workers and in `wardrik workers`', async () => {
    const worker = await env.principal(['*']);
    env.spawn('invalid', [join(FIXTURES, 'invalid-tools-worker.ts'), env.url, worker.token, env.record, 'invalid']);
    await env.connected(worker, 1, 'echo');

    const [listed] = env.wardrik.workers.list();
    expect(listed?.tools).toEqual(['echo']);
    const reasons = Object.fromEntries((listed?.rejected ?? []).map((each) => [each.name, each.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['bad name!', 'bad_schema', 'echo', 'no_schema']);
    expect(reasons['bad name!']).toMatch(/invalid name/);
    expect(reasons.no_schema).toMatch(/inputSchema/);
    expect(reasons.bad_schema).toMatch(/n|type/);
    expect(reasons.echo).toMatch(/twice/);
    for (const name of ['bad name!', 'no_schema', 'bad_schema']) {
      expect(env.logs.some((line) => line.includes(worker.name) && line.includes(name))).toBe(true);
    }

    // The good tool is kept and works.
    const result = await env.wardrik.run('support', plan([workerCall('echo', { text: 'hi' })]));
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: 'hi' });

    // The API shows the worker with its principal, tools, what was left out and its load.
    const api = await env.get('/v1/workers');
    expect(api.status).toBe(200);
    expect(api.json.workers).toHaveLength(1);
    expect(api.json.workers[0]).toMatchObject({
      principal: worker.name,
      tools: ['echo'],
      inflight: 0,
      rejected: expect.arrayContaining([{ name: 'bad name!', reason: expect.stringMatching(/invalid name/) }]),
    });

    // So does the CLI, as a table and as JSON.
    const table = await wardrikCli(['workers', '--url', env.url, '--token', env.adminToken]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/PRINCIPAL/);
    expect(table.stdout).toContain(worker.name);
    expect(table.stdout).toContain('echo');
    expect(table.stdout).toMatch(/Left out/);
    expect(table.stdout).toContain('bad name!');
    expect(table.stdout).toMatch(/invalid name/);
    const json = await wardrikCli(['workers', '--json', '--url', env.url, '--token', env.adminToken]);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout);
    expect(rows[0]).toMatchObject({ principal: worker.name, tools: ['echo'], inflight: 0 });
    expect(rows[0].rejected).toHaveLength(4);
  });

  it('`wardrik workers` says when none are connected, and a user may not list them', async () => {
    const none = await wardrikCli(['workers', '--url', env.url, '--token', env.adminToken]);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/No workers/);
    const user = await env.principal(['*'], 'user');
    const refused = await wardrikCli(['workers', '--url', env.url, '--token', user.token]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/list workers/);
  });
});

describe('calls', () => {
  it('carry agent, run, principal, idempotencyKey and the run’s labels in _meta; answers are labelled outside', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);
    const result = await env.wardrik.run(
      'support',
      plan([workerCall('lookup', { key: 'k1' })], [workerCall('lookup', { key: 'k2' })]),
      { principal: 'alice' },
    );
    expect(result.status).toBe('completed');
    const [recorded, second] = env.records('lookup', 'call');
    expect(recorded?.meta).toEqual({
      agent: 'support',
      run: result.runId,
      principal: 'alice',
      idempotencyKey: `${result.runId}:c1.0`,
      // The attempt's fencing token: the seq of its intent in the run's journal.
      fencingToken: expect.any(Number),
      // The model read the worker's tool definitions, which nobody pinned: outside text already.
      labels: ['outside'],
    });
    const tokenOf = (meta: unknown) => (meta as { fencingToken: number }).fencingToken;
    expect(tokenOf(second?.meta)).toBeGreaterThan(tokenOf(recorded?.meta));
    // The second call is made by a run that has also read the first (outside) answer.
    expect(second?.meta).toMatchObject({ idempotencyKey: `${result.runId}:c2.0`, labels: ['outside'] });
    expect(recorded?.args).toEqual({ key: 'k1' });
    const [answer] = answersOf(result.output);
    expect(answer).toMatchObject({ name: 'workers__lookup', isError: false, labels: ['outside'] });
    expect(answer?.content).toMatchObject({ key: 'k1', worker: 'a' });
    expect(result.labels).toContain('outside');
    // The journal keeps the worker's answer with its label.
    const run = await env.wardrik.getRun(result.runId);
    const answered = run.journal.find((stored) => stored.record.type === 'call-answered')?.record;
    expect(answered).toMatchObject({ answer: { type: 'ok', labels: ['outside'] } });
  });

  it('a worker tool error comes back as an error answer the model reads', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);
    const result = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'missing' })]));
    const [answer] = answersOf(result.output);
    expect(answer).toMatchObject({ isError: true, labels: ['outside'] });
    expect(JSON.stringify(answer?.content)).toMatch(/no such key: missing/);
    expect(env.records('lookup', 'call')).toHaveLength(1);
  });
});

describe('routing', () => {
  it('workers of one principal share a tool: the least busy gets the call', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    env.startWorker('b', worker.token);
    await env.connected(worker, 2);

    // A long call keeps one worker busy; a call meanwhile goes to the other one.
    const long = await env.wardrik.start('support', plan([workerCall('slow_lookup', { key: 'long', ms: 60_000 })]));
    await until(() => env.records('slow_lookup', 'call').length === 1);
    const busy = env.records('slow_lookup', 'call')[0]?.worker;
    const quick = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'quick' })]));
    const [answer] = answersOf(quick.output);
    expect(workerOf(answer)).not.toBe(busy);
    expect(
      env.wardrik.workers
        .list()
        .map((each) => each.inflight)
        .sort(),
    ).toEqual([0, 1]);
    await env.wardrik.cancel(long.runId);

    // Four calls at once: two each.
    await until(() => env.wardrik.workers.list().every((each) => each.inflight === 0));
    const four = await env.wardrik.start(
      'support',
      plan([1, 2, 3, 4].map((index) => workerCall('slow_lookup', { key: `k${index}`, ms: 600_000 }))),
    );
    await until(() => env.records('slow_lookup', 'call').length === 5);
    const shared = env
      .records('slow_lookup', 'call')
      .slice(1)
      .map((each) => each.worker);
    expect(shared.filter((name) => name === 'a')).toHaveLength(2);
    expect(shared.filter((name) => name === 'b')).toHaveLength(2);
    expect(env.wardrik.workers.list().map((each) => each.inflight)).toEqual([2, 2]);
    await env.wardrik.cancel(four.runId);
  });

  it('several principals offer a tool: the one whose worker connected first gets every call', async () => {
    const first = await env.principal(['*']);
    const second = await env.principal(['*']);
    const firstWorker = env.startWorker('first', first.token);
    await env.connected(first);
    env.startWorker('second', second.token);
    await env.connected(second);

    const result = await env.wardrik.run(
      'support',
      plan([1, 2, 3, 4].map((index) => workerCall('slow_lookup', { key: `k${index}`, ms: 200 }))),
    );
    expect(result.status).toBe('completed');
    expect(env.records('slow_lookup', 'call').map((each) => each.worker)).toEqual(['first', 'first', 'first', 'first']);

    // Once the first principal's worker is gone, the other principal's gets the calls.
    await firstWorker.kill();
    await until(() => env.wardrik.workers.list().length === 1);
    const after = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'after' })]));
    expect(workerOf(answersOf(after.output)[0])).toBe('second');
  });

  it("a worker whose principal's scope does not include the agent is not used", async () => {
    const billingOnly = await env.principal(['billing']);
    env.startWorker('billing-worker', billingOnly.token);
    await env.connected(billingOnly);

    const support = plan([workerCall('lookup', { key: 'k' })]);
    const started = await env.wardrik.start('support', support);
    const supportTools = () => env.seen.find((seen) => seen.input === support && seen.step === 1)?.tools;
    await until(() => supportTools() !== undefined);
    expect(supportTools()?.filter((each) => each.name.startsWith('workers__'))).toEqual([]);
    // No worker offers it to this agent: after waiting for one, the call is Unavailable (nothing ran).
    const refused = await env.wardrik.wait(started.runId);
    expect(answersOf(refused.output)[0]).toMatchObject({ isError: true });
    expect(JSON.stringify(answersOf(refused.output)[0]?.content)).toMatch(/Unavailable/);

    const billing = await env.wardrik.run('billing', plan([workerCall('lookup', { key: 'k' })]));
    expect(workerOf(answersOf(billing.output)[0])).toBe('billing-worker');
    expect(env.records('lookup', 'call').map((each) => each.meta.agent)).toEqual(['billing']);
  });
});

describe('Unavailable', () => {
  it('no worker offers the tool: waits unavailableWaitMs, then an error answer', async () => {
    const began = Date.now();
    const started = await env.wardrik.start('support', plan([workerCall('lookup', { key: 'k' })]));
    // The call waits for a worker before its policy is decided (nothing is known of a tool no
    // worker offers); none comes, so it is Unavailable, with no person asked and nothing run.
    const result = await env.wardrik.wait(started.runId);
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    expect(result.parks).toEqual([]);
    expect(result.status).toBe('completed');
    const [answer] = answersOf(result.output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toMatch(/Unavailable: no worker offers lookup/);
  });

  it('a worker that connects during the wait gets the call', async () => {
    const waiting = await WorkersEnv.start({ workers: { unavailableWaitMs: SLOW } });
    try {
      const worker = await waiting.principal(['*']);
      const started = await waiting.wardrik.start('support', plan([workerCall('lookup', { key: 'late' })]));
      await until(async () =>
        (await waiting.wardrik.getRun(started.runId)).journal.some((each) => each.record.type === 'model-step'),
      );
      await sleep(200);
      expect(waiting.records()).toEqual([]);
      waiting.startWorker('latecomer', worker.token);
      const result = await waiting.wardrik.wait(started.runId);
      expect(result.status).toBe('completed');
      // Its worker marks it read-only: once offered, it ran without waiting for a person.
      expect(result.parks).toEqual([]);
      expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: { worker: 'latecomer' } });
    } finally {
      await waiting.close();
    }
  });
});

describe('list_changed', () => {
  it('a tool registered after connecting is offered from the next step on', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);
    const input = plan([workerCall('add_tool', {})], [workerCall('late', { x: 21 })]);
    const result = await env.wardrik.run('support', input);
    expect(result.status).toBe('completed');
    const steps = env.seen.filter((seen) => seen.input === input);
    expect(steps[0]?.tools.map((each) => each.name)).not.toContain('workers__late');
    expect(steps[1]?.tools.map((each) => each.name)).toContain('workers__late');
    expect(answersOf(result.output)[1]).toMatchObject({ isError: false, content: { doubled: 42 } });
    expect(env.wardrik.workers.list()[0]?.tools).toContain('late');
  });
});

describe('trust', () => {
  it('a tool not every offering worker marks read-only waits for a person; read-only ones run at once', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);

    const read = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'k' })]));
    expect(read.status).toBe('completed');

    const started = await env.wardrik.start('support', plan([workerCall('refund', { orderId: 'A1', amount: 5 })]));
    const parked = await env.wardrik.wait(started.runId);
    expect(parked.status).toBe('parked');
    expect(parked.parks[0]).toMatchObject({ kind: 'approval', call: { name: 'workers__refund' } });
    expect(parked.parks[0]?.reason).toMatch(/read-only/);
    await sleep(100);
    expect(env.records('refund')).toEqual([]);
    const park = parked.parks[0];
    if (!park) throw new Error('no park');
    await env.wardrik.answerPark(park.id, { type: 'retry' }, { callHash: park.callHash, by: 'alice' });
    const approved = await env.wardrik.wait(started.runId);
    expect(approved.status).toBe('completed');
    expect(answersOf(approved.output)[0]).toMatchObject({ isError: false, content: { refunded: 5 } });
    expect(env.records('refund', 'call')).toHaveLength(1);

    // Denied: it never reaches the worker.
    const denied = await env.wardrik.start('support', plan([workerCall('refund', { orderId: 'A2', amount: 6 })]));
    const deniedPark = (await env.wardrik.wait(denied.runId)).parks[0];
    if (!deniedPark) throw new Error('no park');
    await env.wardrik.answerPark(deniedPark.id, { type: 'fail' }, { callHash: deniedPark.callHash, by: 'alice' });
    const declined = await env.wardrik.wait(denied.runId);
    expect(answersOf(declined.output)[0]).toMatchObject({ isError: true });
    expect(env.records('refund', 'call')).toHaveLength(1);
  });

  it('read-only counts only if every offering worker says so', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    env.startWorker('b', worker.token, ['--not-read-only']);
    await env.connected(worker, 2);
    const started = await env.wardrik.start('support', plan([workerCall('lookup', { key: 'k' })]));
    const parked = await env.wardrik.wait(started.runId);
    expect(parked.status).toBe('parked');
    expect(parked.parks[0]).toMatchObject({ kind: 'approval' });
    await env.approve(started.runId);
    expect((await env.wardrik.wait(started.runId)).status).toBe('completed');
  });

  it('with trustedWorkers, answers are not labelled outside', async () => {
    const trusted = await WorkersEnv.start({ workers: { trustedWorkers: true } });
    try {
      const worker = await trusted.principal(['*']);
      trusted.startWorker('a', worker.token);
      await trusted.connected(worker);
      const result = await trusted.wardrik.run('support', plan([workerCall('lookup', { key: 'k' })]));
      expect(result.status).toBe('completed');
      expect(answersOf(result.output)[0]).toMatchObject({ isError: false, labels: [] });
      expect(result.labels).not.toContain('outside');
    } finally {
      await trusted.close();
    }
  });
});

/** Runs the `wardrik` CLI from source. */
function wardrikCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@wardrik/source', '--import', 'tsx', join(ROOT, 'packages/wardrik/src/cli/main.ts'), ...args],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: withoutWardrikVariables(process.env) },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), SLOW);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}
