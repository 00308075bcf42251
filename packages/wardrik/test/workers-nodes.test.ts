/*
 * Workers across nodes (issue 13): a worker connected to one node serves runs driven on another,
 * with the routing rules of one node applied to the whole cluster — the tools of workers whose
 * principal may serve the agent; the principal whose worker connected first (by the store's
 * clock) wins a tool; one principal's workers share its calls, least busy first — and the
 * listing (`GET /v1/workers`, `wardrik workers`) shows every node's workers with their node.
 * Nodes are runtimes in this process, each with its own server, on one MemoryStore and on one
 * PostgreSQL schema; workers are MCP SDK servers in their own processes, over real WebSockets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/index.js';
import { answersOf, plan, SLOW, until, workerCall, workerOf } from './workers-env.js';
import { NodesEnv, storeKinds, wardrikCli } from './workers-nodes-env.js';

describe.each(storeKinds)('workers across nodes on $name', ({ make }) => {
  let env: NodesEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('a worker connected to node A serves a run driven on node B; B lists it with its node', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['support']);
    env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a');

    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('lookup', { key: 'k1' })]));
    const result = await wardrik.wait(runId);
    expect(result.status).toBe('completed');
    const [answer] = answersOf(result.output);
    expect(answer).toMatchObject({ isError: false, labels: ['outside'] });
    expect(workerOf(answer)).toBe('w1');
    const [call] = env.records('lookup', 'call');
    // The model read the worker's tool definitions (unpinned), listed on node B: outside text already.
    expect(call?.meta).toMatchObject({ agent: 'support', run: runId, principal: 'local', labels: ['outside'] });
    expect(call?.meta.idempotencyKey).toEqual(expect.any(String));

    const api = await env.get('node-b', '/v1/workers');
    expect(api.status).toBe(200);
    expect(api.json.workers).toEqual([
      expect.objectContaining({ principal: worker.name, node: 'node-a', tools: expect.arrayContaining(['lookup']) }),
    ]);
    expect(env.node('node-a').wardrik.workers.list()[0]?.node).toBe('node-a');
    const table = await wardrikCli(['workers', '--url', env.node('node-b').url, '--token', env.adminToken]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/NODE/);
    expect(table.stdout).toMatch(/node-a/);
  });

  it("the principal whose worker connected first (by the store's clock) wins a tool on every node, until it has none", async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const first = await env.principal(['*']);
    const second = await env.principal(['*']);
    const older = env.startWorker('node-a', 'older', first.token);
    await env.listed('node-b', first, 'node-a');
    env.startWorker('node-b', 'newer', second.token);
    await env.listed('node-a', second, 'node-b');
    await env.listed('node-b', second, 'node-b');

    // On node B the newer worker is connected locally, yet the older one's principal wins.
    const onB = await env.node('node-b').wardrik.run('support', plan([workerCall('lookup', { key: 'b' })]));
    expect(workerOf(answersOf(onB.output)[0])).toBe('older');
    const onA = await env.node('node-a').wardrik.run('support', plan([workerCall('lookup', { key: 'a' })]));
    expect(workerOf(answersOf(onA.output)[0])).toBe('older');

    await older.kill();
    await until(
      () =>
        !env
          ?.node('node-b')
          .wardrik.workers.list()
          .some((each) => each.principal === first.name),
      SLOW,
      () => 'node B to forget the older worker',
    );
    const after = await env.node('node-b').wardrik.run('support', plan([workerCall('lookup', { key: 'c' })]));
    expect(workerOf(answersOf(after.output)[0])).toBe('newer');
  });

  it("one principal's workers on two other nodes share a run's calls, least busy first", async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b', 'node-c']);
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'wa', worker.token);
    await env.listed('node-b', worker, 'node-a');
    env.startWorker('node-c', 'wc', worker.token);
    await env.listed('node-b', worker, 'node-c');

    const calls = [workerCall('slow_lookup', { key: '1', ms: 300 }), workerCall('slow_lookup', { key: '2', ms: 300 })];
    const result = await env.node('node-b').wardrik.run('support', plan(calls));
    expect(result.status).toBe('completed');
    expect(answersOf(result.output).map(workerOf).sort()).toEqual(['wa', 'wc']);
    expect(
      env
        .records('slow_lookup', 'call')
        .map((line) => line.worker)
        .sort(),
    ).toEqual(['wa', 'wc']);
  });

  it('a worker busy with calls from runs on its own node is passed over by runs on another (its load, as its node says)', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b', 'node-c'], { leaseMs: 3_000 });
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'wa', worker.token);
    await env.listed('node-b', worker, 'node-a');
    env.startWorker('node-c', 'wc', worker.token);
    await env.listed('node-b', worker, 'node-c');

    // wa connected first, so it gets the call of a run on node A (its own node).
    const busy = await env
      .node('node-a')
      .wardrik.start('support', plan([workerCall('slow_lookup', { key: 'x', ms: 60_000 })]));
    await until(() => env?.records('slow_lookup', 'call').length === 1);
    expect(env.records('slow_lookup', 'call')[0]?.worker).toBe('wa');
    // Node A says so at its next beat; node B learns it at its own.
    await until(
      async () =>
        (await env?.node('node-b').wardrik.workers.listCluster())?.find((each) => each.node === 'node-a')?.inflight ===
        1,
      SLOW,
      () => `node B to see wa busy: ${JSON.stringify(env?.node('node-b').wardrik.workers.list())}`,
    );
    const api = await env.get('node-b', '/v1/workers');
    expect(api.json.workers.map((each: { node: string; inflight: number }) => [each.node, each.inflight])).toEqual([
      ['node-a', 1],
      ['node-c', 0],
    ]);
    const result = await env.node('node-b').wardrik.run('support', plan([workerCall('lookup', { key: 'y' })]));
    expect(workerOf(answersOf(result.output)[0])).toBe('wc');

    await env.node('node-a').wardrik.cancel(busy.runId);
    await until(() => env?.records('slow_lookup', 'cancelled').length === 1);
  });

  it("a remote worker's progress reaches the run's followers, and starts the call's idle timeout again", async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token, ['--timeout-ms', '1000']);
    await env.listed('node-b', worker, 'node-a', 'progress');
    const { wardrik } = env.node('node-b');

    const { runId } = await wardrik.start('support', plan([workerCall('progress', { steps: 5 })]));
    const progress: Extract<RunEvent, { type: 'call-progress' }>[] = [];
    wardrik.subscribe(runId, (event) => {
      if (event.type === 'call-progress') progress.push(event);
    });
    const result = await wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: { steps: 5, worker: 'w1' } });
    // Notes are best effort (the latest report goes when several come at once): some arrive, in order.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({
      name: 'workers__progress',
      total: 5,
      message: expect.stringMatching(/^step \d of 5$/),
    });
    const values = progress.map((event) => event.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));

    // progress_timed reports every 50 ms for 2.5 times its 1 s timeout: on node A each report
    // starts the timeout again, so the call driven on node B completes.
    const timed = await wardrik.run('support', plan([workerCall('progress_timed', {})]));
    expect(timed.status).toBe('completed');
    const [answer] = answersOf(timed.output);
    expect(answer).toMatchObject({ isError: false, content: { timeoutMs: 1000, worker: 'w1' } });
    expect((answer?.content as { elapsedMs?: number } | undefined)?.elapsedMs).toBeGreaterThan(2_000);
    expect(env.records('progress_timed', 'cancelled')).toEqual([]);
  });

  it('a tool a worker on node A registers while running a call of a run on node B is offered to that run from its next step', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a', 'add_tool');
    const input = plan([workerCall('add_tool', {})], [workerCall('late', { x: 21 })]);
    const result = await env.node('node-b').wardrik.run('support', input);
    expect(result.status).toBe('completed');
    const steps = env.seen.filter((seen) => seen.input === input);
    expect(steps[0]?.tools.map((each) => each.name)).not.toContain('workers__late');
    expect(steps[1]?.tools.map((each) => each.name)).toContain('workers__late');
    expect(answersOf(result.output)[1]).toMatchObject({ isError: false, content: { doubled: 42, worker: 'w1' } });
  });
});
