/*
 * Workers across nodes (issue 13), when things go wrong: the failure rules of one node hold across
 * nodes. No worker: Unavailable after unavailableWaitMs, unless one connects to any node
 * meanwhile. A worker that goes (killed), a call that times out, a worker's node that stops (closed,
 * or its liveness lapses while its worker still runs the call): Lost — retried on whichever
 * worker offers the tool then if every offering worker marks it read-only or idempotent, else the
 * run parks the call in_doubt. A cancel reaches the worker on the other node. Bad messages and
 * offers from another node are logged and ignored; the node keeps serving.
 * Nodes are runtimes in this process on one MemoryStore and on one PostgreSQL schema; workers are
 * MCP SDK servers in their own processes.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/index.js';
import { answersOf, plan, SLOW, until, workerCall, workerOf } from './workers-env.js';
import { NodesEnv, storeKinds } from './workers-nodes-env.js';

/** A node's store whose beats fail once `dead` is set: for the others, its liveness lapses. */
function mortal(): { wrap: (store: Store) => Store; kill: () => void } {
  let dead = false;
  return {
    kill: () => {
      dead = true;
    },
    wrap: (store) =>
      new Proxy(store, {
        get(target, property) {
          if (property === 'beat' && dead) return () => Promise.reject(new Error('this node is dead'));
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
  };
}

describe.each(storeKinds)('workers across nodes on $name: failures', ({ make }) => {
  let env: NodesEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('no worker on any node: Unavailable after unavailableWaitMs; a worker connecting to another node meanwhile gets the call', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b'], { workers: { unavailableWaitMs: 300 } });
    const none = await env.node('node-b').wardrik.run('support', plan([workerCall('lookup', { key: 'x' })]));
    expect(none.status).toBe('completed');
    const [answer] = answersOf(none.output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toMatch(/Unavailable: no worker offers lookup/);

    const patient = await env.addNode('node-c', { workers: { unavailableWaitMs: SLOW } });
    const worker = await env.principal(['*']);
    const started = await patient.wardrik.start('support', plan([workerCall('lookup', { key: 'late' })]));
    await until(async () =>
      (await patient.wardrik.getRun(started.runId)).journal.some((each) => each.record.type === 'model-step'),
    );
    env.startWorker('node-a', 'latecomer', worker.token);
    const result = await patient.wardrik.wait(started.runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ isError: false, content: { worker: 'latecomer' } });
  });

  it('a worker killed while it runs a call for a run on another node: Lost; not repeatable, the run parks it in_doubt', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['*']);
    const w1 = env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a', 'slow_refund');
    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('slow_refund', { orderId: 'A1', ms: 60_000 })]));
    await until(async () => (await env?.approve('node-b', runId)) === 1);
    await until(() => env?.records('slow_refund', 'call').length === 1);
    await w1.kill();
    const parked = await wardrik.wait(runId);
    expect(parked.status).toBe('parked');
    expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__slow_refund' } });
    expect(parked.parks[0]?.reason).toMatch(/the worker running the call was lost \(the worker disconnected/);
    expect(env.records('slow_refund', 'call')).toHaveLength(1);
  });

  it('a worker killed while it runs a read-only call: retried on a worker connected to a third node', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b', 'node-c']);
    const worker = await env.principal(['*']);
    const w1 = env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a', 'slow_lookup');
    env.startWorker('node-c', 'w2', worker.token, ['--fast']);
    await env.listed('node-b', worker, 'node-c', 'slow_lookup');
    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('slow_lookup', { key: 'k', ms: 60_000 })]));
    await until(() => env?.records('slow_lookup', 'call').length === 1);
    expect(env.records('slow_lookup', 'call')[0]?.worker).toBe('w1');
    await w1.kill();
    const result = await wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(workerOf(answersOf(result.output)[0])).toBe('w2');
    const calls = env.records('slow_lookup', 'call');
    expect(calls.map((line) => line.worker)).toEqual(['w1', 'w2']);
    expect(calls[0]?.meta.idempotencyKey).toBe(calls[1]?.meta.idempotencyKey);
  });

  it("the worker's node dies (its liveness lapses) mid-call: not repeatable, in_doubt; read-only, retried on another node", async () => {
    const a = mortal();
    env = await NodesEnv.start(make(), ['node-b', 'node-c'], { leaseMs: 2_000 });
    await env.addNode('node-a', { leaseMs: 2_000, wrap: a.wrap });
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a', 'slow_refund');
    const { wardrik } = env.node('node-b');

    const refund = await wardrik.start('support', plan([workerCall('slow_refund', { orderId: 'A1', ms: 60_000 })]));
    await until(async () => (await env?.approve('node-b', refund.runId)) === 1);
    const lookup = await wardrik.start('support', plan([workerCall('slow_lookup', { key: 'k', ms: 60_000 })]));
    await until(
      () => env?.records('slow_refund', 'call').length === 1 && env.records('slow_lookup', 'call').length === 1,
    );
    expect(env.records(undefined, 'call').map((line) => line.worker)).toEqual(['w1', 'w1']);
    // Another worker of the same principal, on a third node, offers the read-only tool too.
    env.startWorker('node-c', 'w2', worker.token, ['--fast']);
    await env.listed('node-b', worker, 'node-c', 'slow_lookup');
    a.kill();

    const parked = await wardrik.wait(refund.runId);
    expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__slow_refund' } });
    expect(parked.parks[0]?.reason).toMatch(
      /node node-a, where worker \S+ is connected, stopped renewing its liveness/,
    );
    const retried = await wardrik.wait(lookup.runId);
    expect(retried.status).toBe('completed');
    expect(workerOf(answersOf(retried.output)[0])).toBe('w2');
    // Node B no longer routes to node A's worker.
    expect(wardrik.workers.list().map((each) => each.node)).toEqual(['node-c']);
  });

  it('a node that closes while its worker runs a call for a run on another node: Lost, in_doubt', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a', 'slow_refund');
    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('slow_refund', { orderId: 'A1', ms: 60_000 })]));
    await until(async () => (await env?.approve('node-b', runId)) === 1);
    await until(() => env?.records('slow_refund', 'call').length === 1);
    await env.closeNode('node-a');
    const parked = await wardrik.wait(runId);
    expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__slow_refund' } });
    expect(parked.parks[0]?.reason).toMatch(/Wardrik is shutting down/);
    expect(wardrik.workers.list()).toEqual([]);
  });

  it('cancelling a run on node B cancels its call on the worker connected to node A', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a', 'slow_lookup');
    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('slow_lookup', { key: 'k', ms: 60_000 })]));
    await until(() => env?.records('slow_lookup', 'call').length === 1);
    await wardrik.cancel(runId, 'changed my mind');
    await until(() => env?.records('slow_lookup', 'cancelled').length === 1);
    expect((await wardrik.wait(runId)).status).toBe('cancelled');
    await until(() => env?.node('node-a').wardrik.workers.list()[0]?.inflight === 0);
  });

  it('a call of a run on node B that times out on node A: Lost, in_doubt, and the worker is told to cancel', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token, ['--timeout-ms', '400']);
    await env.listed('node-b', worker, 'node-a', 'hang_timed');
    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('hang_timed', { orderId: 'A1' })]));
    await until(async () => (await env?.approve('node-b', runId)) === 1);
    const parked = await wardrik.wait(runId);
    expect(parked.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'workers__hang_timed' } });
    expect(parked.parks[0]?.reason).toMatch(/no answer within 400 ms/);
    await until(() => env?.records('hang_timed', 'cancelled').length === 1);
  });

  it('bad messages, offers and notes from another node are logged and ignored; the node keeps serving', async () => {
    env = await NodesEnv.start(make(), ['node-a', 'node-b']);
    const b = env.node('node-b');
    const store = b.wardrik.store;
    const rogue = { id: randomUUID(), name: 'rogue' };
    const pulse = await store.beat({ node: rogue, ttlMs: 60_000 });
    const target = [...pulse.nodes].find(([, name]) => name === 'node-b')?.[0] as string;
    expect(target).toEqual(expect.any(String));

    const post = (body: string) => store.post(target, { id: randomUUID(), from: rogue.id, body });
    await post('not json');
    await post('{"type":"nope","call":"c1"}');
    await post(
      '{"type":"call","call":"c2","worker":"w","name":"lookup","meta":{"agent":1},"idleTimeoutMs":1,"maxTimeMs":1}',
    );
    await post('{"type":"call","call":"c3","worker":"w","name":"lookup","idleTimeoutMs":-5,"maxTimeMs":1e99}');
    await post('{"type":"outcome","call":"unknown","outcome":{"type":"result","result":{}}}');
    await post('{"type":"outcome","call":"c4","outcome":{"type":"what"}}');
    await post('{"type":"cancel","call":"unknown"}');
    // A well-formed call for a worker that is not connected there: refused, in the rogue's mail.
    const meta = { agent: 'support', run: 'r', principal: 'p', idempotencyKey: 'k', labels: [] };
    await post(
      JSON.stringify({
        type: 'call',
        call: 'c5',
        worker: 'wkr_none',
        name: 'lookup',
        arguments: {},
        meta,
        idleTimeoutMs: 1000,
        maxTimeMs: 1000,
      }),
    );
    await store.note(target, 'not json');
    await store.note(target, '{"type":"progress","call":"unknown","progress":{"progress":"x"}}');
    const principal = {
      id: 'p',
      name: 'rogue-worker',
      kind: 'worker',
      role: 'worker',
      agents: ['*'],
      createdAt: 1,
    } as const;
    await store.putOffer({
      workerId: 'wkr_bad_principal',
      node: rogue,
      principal: { ...principal, role: 'god' as 'worker' },
      tools: [],
      rejected: [],
      revision: 1,
    });
    await store.putOffer({
      workerId: 'wkr_bad_tools',
      node: rogue,
      principal: { ...principal, agents: ['nobody'] },
      tools: [42, { name: 'bad name!', inputSchema: {} }, { name: 'fine', inputSchema: { type: 'nonsense' } }],
      rejected: [{ name: 7 }] as never,
      revision: 1,
    });

    let refusal: string | undefined;
    await until(async () => {
      for (const message of await store.takeMail(rogue.id)) refusal = message.body;
      return refusal !== undefined;
    });
    expect(JSON.parse(refusal as string)).toMatchObject({
      type: 'outcome',
      call: 'c5',
      outcome: { type: 'refused', reason: expect.stringMatching(/not connected to node node-b/) },
    });
    await until(() => b.logs.filter((line) => /is ignored/.test(line)).length >= 6);
    expect(b.logs.join('\n')).toMatch(/unknown message type "nope"/);
    expect(b.logs.join('\n')).toMatch(/the offer of worker wkr_bad_principal is ignored: its principal is malformed/);
    await until(() => b.wardrik.workers.list().some((each) => each.id === 'wkr_bad_tools'));
    const listed = b.wardrik.workers.list().find((each) => each.id === 'wkr_bad_tools');
    expect(listed).toMatchObject({ node: 'rogue', tools: [] });
    expect(listed?.rejected.map((each) => each.name)).toEqual(['(no name)', 'bad name!', 'fine']);

    // Node B still serves a run with a real worker on node A.
    const worker = await env.principal(['*']);
    env.startWorker('node-a', 'w1', worker.token);
    await env.listed('node-b', worker, 'node-a');
    const result = await b.wardrik.run('support', plan([workerCall('lookup', { key: 'ok' })]));
    expect(workerOf(answersOf(result.output)[0])).toBe('w1');
  });
});
