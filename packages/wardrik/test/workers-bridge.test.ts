/*
 * The stdio bridge end to end: `wardrik-worker --url URL --token TOKEN -- node stdio-server.ts`
 * run as a process, offering a stdio MCP server (official SDK) to a real Wardrik.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  answersOf,
  type WorkersEnv as Env,
  FIXTURES,
  plan,
  ROOT,
  until,
  WorkersEnv,
  workerCall,
} from './workers-env.js';

const BRIDGE = join(ROOT, 'packages/worker/src/bridge-cli.ts');
const SERVER = join(FIXTURES, 'stdio-server.ts');

let env: Env;
beforeAll(async () => {
  env = await WorkersEnv.start();
});
afterEach(async () => {
  await env.killWorkers();
});
afterAll(async () => {
  await env?.close();
});

function startBridge(token: string) {
  return env.spawn('bridge', [
    BRIDGE,
    '--url',
    env.url,
    '--token',
    token,
    '--',
    process.execPath,
    '--conditions=@wardrik/source',
    '--import',
    'tsx',
    SERVER,
    env.record,
  ]);
}

describe('the stdio bridge', () => {
  it("offers a stdio MCP server's tools; calls carry _meta; cancels reach the server", async () => {
    const worker = await env.principal(['*']);
    const bridge = startBridge(worker.token);
    await env.connected(worker, 1, 'add');
    expect(bridge.stderr).toMatch(/connected to/);

    const input = plan([workerCall('add', { a: 2, b: 40 })]);
    const result = await env.wardrik.run('support', input, { principal: 'carol' });
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: { sum: 42 }, labels: ['outside'] });
    const add = env.seen.find((seen) => seen.input === input)?.tools.find((each) => each.name === 'workers__add');
    expect(add?.inputSchema).toMatchObject({ properties: { a: { type: 'number' }, b: { type: 'number' } } });
    const [call] = env.records('add', 'call');
    expect(call?.meta).toEqual({
      agent: 'support',
      run: result.runId,
      principal: 'carol',
      idempotencyKey: `${result.runId}:c1.0`,
      fencingToken: expect.any(Number),
      // The model read the worker's tool definitions, which nobody pinned: outside text already.
      labels: ['outside'],
    });
    // The stdio server is the bridge's child, not the bridge itself.
    expect(call?.pid).not.toBe(bridge.pid);

    const waiting = await env.wardrik.start('support', plan([workerCall('wait_forever', {})]));
    await until(() => env.records('wait_forever', 'call').length === 1);
    await env.wardrik.cancel(waiting.runId);
    await until(() => env.records('wait_forever', 'cancelled').length === 1);
  });

  it('stopping the bridge (SIGTERM) disconnects it; Wardrik notices', async () => {
    const worker = await env.principal(['*']);
    const bridge = startBridge(worker.token);
    await env.connected(worker, 1, 'add');
    await bridge.kill('SIGTERM');
    const exit = await bridge.exited;
    expect(exit.code === 143 || exit.signal === 'SIGTERM').toBe(true);
    await until(() => env.wardrik.workers.list().length === 0);
  });
});
