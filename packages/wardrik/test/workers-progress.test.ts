/*
 * Progress of worker calls: every tools/call carries a progressToken; the worker's
 * notifications/progress reach the run's followers as call-progress events and start the call's
 * idle timeout again, up to maxCallMs. Workers are official MCP SDK servers in their own processes
 * (through connectWorker, and through the stdio bridge), with a real Wardrik on SQLite.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/index.js';
import { answersOf, type WorkersEnv as Env, plan, ROOT, until, WorkersEnv, workerCall } from './workers-env.js';

/** The idle timeout of the fixture's progress_timed, progress_forever and hang_timed tools. */
const IDLE_MS = 1_000;
const MAX_CALL_MS = 6_000;
const BRIDGE = join(ROOT, 'packages/worker/src/bridge-cli.ts');
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

type CallProgress = Extract<RunEvent, { type: 'call-progress' }>;

let env: Env;
beforeAll(async () => {
  env = await WorkersEnv.start({ workers: { maxCallMs: MAX_CALL_MS } });
});
afterEach(async () => {
  await env.killWorkers();
});
afterAll(async () => {
  await env?.close();
});

/** Starts a run and follows it, collecting its call-progress events. */
async function followed(input: string) {
  const { runId } = await env.wardrik.start('support', input);
  const progress: CallProgress[] = [];
  env.wardrik.subscribe(runId, (event) => {
    if (event.type === 'call-progress') progress.push(event);
  });
  return { runId, progress };
}

async function sdkWorker(): Promise<void> {
  const worker = await env.principal(['*']);
  env.startWorker('p', worker.token, ['--timeout-ms', String(IDLE_MS)]);
  await env.connected(worker, 1, 'progress');
}

describe('progress of worker calls', () => {
  it('an MCP SDK tool reporting progress: followers of the run see call-progress events', async () => {
    await sdkWorker();
    const { runId, progress } = await followed(plan([workerCall('progress', { steps: 5 })]));
    const result = await env.wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: { steps: 5 } });

    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({
      type: 'call-progress',
      runId,
      name: 'workers__progress',
      callId: expect.any(String),
      progress: 5,
      total: 5,
      message: 'step 5 of 5',
    });
    const values = progress.map((event) => event.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    // The token is Wardrik's business: the worker's _meta is otherwise as before.
    const [call] = env.records('progress', 'call');
    expect(Object.keys(call?.meta ?? {}).sort()).toEqual([
      'agent',
      'fencingToken',
      'idempotencyKey',
      'labels',
      'principal',
      'run',
    ]);
  });

  it('progress keeps a call alive past its idle timeout; a silent call is Lost', async () => {
    await sdkWorker();
    const busy = await env.wardrik.run('support', plan([workerCall('progress_timed', {})]));
    expect(busy.status).toBe('completed');
    const [answer] = answersOf(busy.output);
    expect(answer).toMatchObject({ isError: false, content: { timeoutMs: IDLE_MS } });
    expect((answer?.content as { elapsedMs?: number } | undefined)?.elapsedMs).toBeGreaterThan(IDLE_MS * 2);
    expect(env.records('progress_timed', 'cancelled')).toEqual([]);

    const silent = await env.wardrik.start('support', plan([workerCall('hang_timed', { orderId: 'A1' })]));
    await until(async () => (await env.approve(silent.runId)) > 0);
    const parked = await env.wardrik.wait(silent.runId);
    expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__hang_timed' } });
    expect(parked.parks[0]?.reason).toMatch(new RegExp(`no answer within ${IDLE_MS} ms`));
    await until(() => env.records('hang_timed', 'cancelled').length === 1);
  });

  it('progress cannot keep a call alive past maxCallMs', async () => {
    await sdkWorker();
    const started = await env.wardrik.start('support', plan([workerCall('progress_forever', {})]));
    await until(async () => (await env.approve(started.runId)) > 0);
    const parked = await env.wardrik.wait(started.runId);
    expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__progress_forever' } });
    expect(parked.parks[0]?.reason).toMatch(
      new RegExp(`no answer within ${MAX_CALL_MS} ms, the most a call may take, progress or not`),
    );
    await until(() => env.records('progress_forever', 'cancelled').length === 1);
  });

  it("a stdio server's progress comes through the bridge (server-everything's long-running operation)", async () => {
    const worker = await env.principal(['*']);
    env.spawn('everything', [BRIDGE, '--url', env.url, '--token', worker.token, '--', process.execPath, EVERYTHING]);
    await env.connected(worker, 1, 'trigger-long-running-operation');
    const { runId, progress } = await followed(
      plan([workerCall('trigger-long-running-operation', { duration: 0.3, steps: 3 })]),
    );
    const result = await env.wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(progress.map((event) => [event.progress, event.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(progress[0]).toMatchObject({ name: 'workers__trigger-long-running-operation' });
  });
});
