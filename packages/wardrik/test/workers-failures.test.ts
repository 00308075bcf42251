/*
 * Workers that fail: killed with SIGKILL mid-call (a read-only call is retried on another worker,
 * a plain one parks in_doubt), never answering (Lost after the tool's timeout or callTimeoutMs, and
 * the worker receives notifications/cancelled), frozen so that pings go unanswered, and Wardrik
 * restarting under connected workers (they come back and serve). Workers are MCP SDK servers in
 * separate processes, connected through @wardrik/worker.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  answersOf,
  type WorkersEnv as Env,
  plan,
  SLOW,
  sleep,
  until,
  WorkersEnv,
  workerCall,
  workerOf,
} from './workers-env.js';

let env: Env;
beforeAll(async () => {
  env = await WorkersEnv.start({ workers: { unavailableWaitMs: 2_000 } });
});
afterEach(async () => {
  await env.killWorkers();
});
afterAll(async () => {
  await env?.close();
});

describe('a worker killed with SIGKILL mid-call', () => {
  it('read-only tool: the call is retried on another worker and completes, with the same idempotency key', async () => {
    const worker = await env.principal(['*']);
    const slow = env.startWorker('slow', worker.token);
    await env.connected(worker);
    env.startWorker('fast', worker.token, ['--fast']);
    await env.connected(worker, 2);

    const started = await env.wardrik.start('support', plan([workerCall('slow_lookup', { key: 'k', ms: 600_000 })]));
    await until(() => env.records('slow_lookup', 'call').length === 1);
    expect(env.records('slow_lookup', 'call')[0]?.worker).toBe('slow');
    await slow.kill('SIGKILL');

    const result = await env.wardrik.wait(started.runId);
    expect(result.status).toBe('completed');
    const [answer] = answersOf(result.output);
    expect(answer).toMatchObject({ isError: false, labels: ['outside'] });
    expect(workerOf(answer)).toBe('fast');

    const calls = env.records('slow_lookup', 'call');
    expect(calls.map((each) => each.worker)).toEqual(['slow', 'fast']);
    // The same meta, but for the fencing token: the retry's is higher (a later intent in the journal).
    const { fencingToken: first, ...meta } = calls[0]?.meta ?? {};
    const { fencingToken: retried, ...retriedMeta } = calls[1]?.meta ?? {};
    expect(retriedMeta).toEqual(meta);
    expect(retried).toBeGreaterThan(first as number);
    expect(calls[0]?.meta.idempotencyKey).toBe(`${started.runId}:c1.0`);
    const run = await env.wardrik.getRun(started.runId);
    const attempts = run.journal.filter((each) => each.record.type === 'call-started');
    expect(attempts).toHaveLength(2);
    expect(attempts.map((each) => (each.record as { idempotencyKey: string }).idempotencyKey)).toEqual([
      `${started.runId}:c1.0`,
      `${started.runId}:c1.0`,
    ]);
  });

  it('plain tool: the call parks in_doubt and is never run again on its own', async () => {
    const worker = await env.principal(['*']);
    const slow = env.startWorker('slow', worker.token);
    await env.connected(worker);
    env.startWorker('fast', worker.token, ['--fast']);
    await env.connected(worker, 2);

    const started = await env.wardrik.start(
      'support',
      plan([workerCall('slow_refund', { orderId: 'A1', ms: 600_000 })]),
    );
    await until(async () => (await env.approve(started.runId)) > 0);
    await until(() => env.records('slow_refund', 'call').length === 1);
    await slow.kill('SIGKILL');

    const parked = await env.wardrik.wait(started.runId);
    expect(parked.status).toBe('parked');
    expect(parked.parks).toHaveLength(1);
    const park = parked.parks[0];
    if (!park) throw new Error('no park');
    expect(park).toMatchObject({
      kind: 'in_doubt',
      call: { name: 'workers__slow_refund', idempotencyKey: `${started.runId}:c1.0` },
    });
    expect(park.reason).toMatch(/worker .*lost|disconnected/);

    // Another worker offers the tool all along: the call still does not run again by itself.
    await sleep(1_000);
    expect(env.records('slow_refund', 'call')).toHaveLength(1);
    expect((await env.wardrik.getRunSummary(started.runId)).status).toBe('parked');

    // A person says it ran: the run goes on with that answer, and nothing runs again.
    await env.wardrik.answerPark(
      park.id,
      { type: 'answer', value: { refunded: 'A1' } },
      { callHash: park.callHash, by: 'alice' },
    );
    const result = await env.wardrik.wait(started.runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: { refunded: 'A1' } });
    expect(env.records('slow_refund', 'call')).toHaveLength(1);
  });
});

describe('a worker that never answers', () => {
  it('callTimeoutMs passes: Lost, the worker receives notifications/cancelled, and a plain call parks in_doubt', async () => {
    const impatient = await WorkersEnv.start({ workers: { callTimeoutMs: 1_500 } });
    try {
      const worker = await impatient.principal(['*']);
      impatient.startWorker('a', worker.token);
      await impatient.connected(worker);

      const started = await impatient.wardrik.start('support', plan([workerCall('hang', { orderId: 'A1' })]));
      await until(async () => (await impatient.approve(started.runId)) > 0);
      const parked = await impatient.wardrik.wait(started.runId);
      expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__hang' } });
      expect(parked.parks[0]?.reason).toMatch(/no answer within 1500 ms/);

      await until(() => impatient.records('hang', 'cancelled').length === 1);
      const [call] = impatient.records('hang', 'call');
      const [cancelled] = impatient.records('hang', 'cancelled');
      expect(cancelled?.requestId).toBe(call?.requestId);
      expect(cancelled?.meta.idempotencyKey).toBe(`${started.runId}:c1.0`);
      expect(impatient.wardrik.workers.list()[0]?.inflight).toBe(0);

      // The worker is still connected and serves.
      const after = await impatient.wardrik.run('support', plan([workerCall('lookup', { key: 'after' })]));
      expect(workerOf(answersOf(after.output)[0])).toBe('a');
    } finally {
      await impatient.close();
    }
  });

  it("the tool's own timeout (_meta wardrik/timeout) passes first: Lost and cancelled", async () => {
    const patient = await WorkersEnv.start({ workers: { callTimeoutMs: 600_000 } });
    try {
      const worker = await patient.principal(['*']);
      patient.startWorker('a', worker.token, ['--timeout-ms', '300']);
      await patient.connected(worker, 1, 'hang_timed');
      const started = await patient.wardrik.start('support', plan([workerCall('hang_timed', { orderId: 'A1' })]));
      await until(async () => (await patient.approve(started.runId)) > 0);
      const parked = await patient.wardrik.wait(started.runId);
      expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__hang_timed' } });
      expect(parked.parks[0]?.reason).toMatch(/no answer within 300 ms/);
      await until(() => patient.records('hang_timed', 'cancelled').length === 1);
    } finally {
      await patient.close();
    }
  });

  it('a run cancelled during a call: the worker receives notifications/cancelled', async () => {
    const worker = await env.principal(['*']);
    env.startWorker('a', worker.token);
    await env.connected(worker);
    const started = await env.wardrik.start('support', plan([workerCall('slow_lookup', { key: 'k', ms: 600_000 })]));
    await until(() => env.records('slow_lookup', 'call').length === 1);
    const result = await env.wardrik.cancel(started.runId, 'no longer needed');
    expect(result.status).toBe('cancelled');
    await until(() => env.records('slow_lookup', 'cancelled').length === 1);
    expect(env.records('slow_lookup', 'done')).toHaveLength(0);
    await until(() => env.wardrik.workers.list()[0]?.inflight === 0);
  });
});

describe('connections that drop', () => {
  it('a worker that stops answering pings is Lost; once it wakes up it reconnects and serves', async () => {
    const pinging = await WorkersEnv.start({
      workers: { pingIntervalMs: 300, pingTimeoutMs: 3_000, unavailableWaitMs: SLOW },
    });
    try {
      const worker = await pinging.principal(['*']);
      const frozen = pinging.startWorker('frozen', worker.token);
      await pinging.connected(worker);
      const first = pinging.wardrik.workers.list()[0]?.id;

      const started = await pinging.wardrik.start(
        'support',
        plan([workerCall('slow_lookup', { key: 'k', ms: 600_000 })]),
      );
      await until(() => pinging.records('slow_lookup', 'call').length === 1);
      frozen.child.kill('SIGSTOP');
      await until(() => pinging.wardrik.workers.list().length === 0);
      expect(pinging.logs.join('\n')).not.toMatch(/protocol error/);
      frozen.child.kill('SIGCONT');

      // The read-only call is retried, and waits until the worker is back.
      await pinging.connected(worker);
      expect(pinging.wardrik.workers.list()[0]?.id).not.toBe(first);
      await until(() => pinging.records('slow_lookup', 'call').length === 2);
      const calls = pinging.records('slow_lookup', 'call');
      expect(calls[1]?.meta.idempotencyKey).toBe(calls[0]?.meta.idempotencyKey);
      expect(calls[1]?.pid).toBe(frozen.pid);
      await pinging.wardrik.cancel(started.runId);
    } finally {
      await pinging.close();
    }
  });

  it('Wardrik restarts: its workers reconnect and serve', async () => {
    const worker = await env.principal(['*']);
    const a = env.startWorker('a', worker.token);
    await env.connected(worker);
    const before = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'before' })]));
    expect(workerOf(answersOf(before.output)[0])).toBe('a');

    const port = env.server.port;
    await env.stop();
    await sleep(300);
    await env.open(port);
    await env.connected(worker);
    const after = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'after' })]));
    expect(answersOf(after.output)[0]).toMatchObject({ isError: false, content: { worker: 'a', pid: a.pid } });
    expect(a.running).toBe(true);
  });

  // A repeatable call lost in a crash is repeated: recovery re-drives it as it was journaled (its
  // `repeatable`, its rule), waiting for a worker to offer it, without judging it again.
  it('Wardrik restarts with a read-only worker call in flight: the call is repeated once a worker is back', async () => {
    const restarting = await WorkersEnv.start({ workers: { unavailableWaitMs: SLOW } });
    try {
      const worker = await restarting.principal(['*']);
      const slow = restarting.startWorker('slow', worker.token);
      await restarting.connected(worker);
      const started = await restarting.wardrik.start(
        'support',
        plan([workerCall('slow_lookup', { key: 'k', ms: 600_000 })]),
      );
      await until(() => restarting.records('slow_lookup', 'call').length === 1);
      const port = restarting.server.port;
      await restarting.stop();
      await slow.kill();
      await restarting.open(port);
      restarting.startWorker('fast', worker.token, ['--fast']);
      const result = await restarting.wardrik.wait(started.runId);
      expect(result.parks).toEqual([]);
      expect(result.status).toBe('completed');
      expect(restarting.records('slow_lookup', 'call').map((each) => each.worker)).toEqual(['slow', 'fast']);
    } finally {
      await restarting.close();
    }
  });
});
