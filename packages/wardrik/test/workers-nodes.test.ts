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
    expect(call?.meta).toMatchObject({ agent: 'support', run: runId, principal: 'local', labels: [] });
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
});
