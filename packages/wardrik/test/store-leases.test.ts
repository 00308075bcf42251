/*
 * The store contract for ownership (issue 13): leases with an epoch that fences every write,
 * claiming runs that need driving, and the requests a node leaves for the one holding a run.
 * Runs on every adapter (store-factories.ts); several "nodes" are several node names on one store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaseLostError, ParkAlreadyAnsweredError, StaleParkAnswerError } from '../src/errors.js';
import type { Park, StoredRecord } from '../src/journal/records.js';
import type { Lease, RunRow, RunSignal, Store } from '../src/store/store.js';
import { until } from './helpers.js';
import { storeFactories } from './store-factories.js';

const A = { node: 'node-a', incarnation: 'a1', leaseMs: 60_000 };
const B = { node: 'node-b', incarnation: 'b1', leaseMs: 60_000 };

function row(id: string, status: RunRow['status'] = 'running'): RunRow {
  return { id, agent: 'support', principal: 'alice', status, createdAt: 1, updatedAt: 1, measures: {}, labels: [] };
}

function started(runId: string, seq = 1): StoredRecord {
  return {
    runId,
    seq,
    record: {
      v: 1,
      at: 1,
      type: 'run-started',
      agent: 'support',
      principal: 'alice',
      input: 'hi',
      budget: {},
      maxSteps: 5,
    },
  };
}

function park(runId: string, id: string): Park {
  return { id, runId, kind: 'tool', reason: 'needs a person', labels: [], callHash: `hash-${id}`, createdAt: 2 };
}

describe.each(storeFactories)('$name: leases and requests', ({ open, leasesExpire }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  /** A run created by `terms.node`, which holds its lease. */
  async function createRun(runId: string, terms = A, status: RunRow['status'] = 'running'): Promise<Lease> {
    const lease = await store.claimRun(runId, terms);
    if (!lease) throw new Error(`could not claim ${runId}`);
    await store.write({ runId, records: [started(runId)], run: row(runId, status), lease }, { durable: true });
    return lease;
  }

  it('a node claims a new run (epoch 1); claiming again gives the same lease; another node gets none', async () => {
    const lease = await createRun('r1');
    expect(lease).toEqual({ runId: 'r1', node: 'node-a', epoch: 1 });
    expect(await store.claimRun('r1', A)).toEqual(lease);
    expect(await store.claimRun('r1', B)).toBeUndefined();
  });

  it('after a release another node takes the run over with the next epoch; the old lease can no longer write', async () => {
    const first = await createRun('r1');
    await store.releaseLease(first);
    const second = await store.claimRun('r1', B);
    expect(second).toEqual({ runId: 'r1', node: 'node-b', epoch: 2 });
    await expect(
      store.write({ runId: 'r1', records: [started('r1', 2)], lease: first }, { durable: true }),
    ).rejects.toSatisfy((thrown) => LeaseLostError.isInstance(thrown));
    // The store is fine, and the new holder writes.
    await store.write({ runId: 'r1', records: [started('r1', 2)], lease: second as Lease }, { durable: true });
    expect((await store.loadJournal('r1')).map((each) => each.seq)).toEqual([1, 2]);
    // Releasing the old lease again changes nothing.
    await store.releaseLease(first);
    expect(await store.claimRun('r1', A)).toBeUndefined();
  });

  it.runIf(!leasesExpire)('a lease of a one-process store is held until released, however long', async () => {
    const short = { node: 'node-a', incarnation: 'a1', leaseMs: 1 };
    const lease = await createRun('r1', short);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.claimRun('r1', B)).toBeUndefined();
    expect(await store.claimRuns(B, 10)).toEqual([]);
    expect(await store.renewLeases(short)).toEqual(new Set(['r1']));
    await store.write({ runId: 'r1', records: [started('r1', 2)], lease }, { durable: true });
  });

  it.runIf(leasesExpire)(
    'a lease that expires is taken over by another node; the old holder renews nothing and cannot write',
    async () => {
      // Long enough that a busy machine can't let it expire between the claim and the renewal.
      const short = { node: 'node-a', incarnation: 'a1', leaseMs: 1_000 };
      const lease = await createRun('r1', short);
      expect(await store.renewLeases(short)).toEqual(new Set(['r1']));
      let taken: Lease | undefined;
      await until(async () => {
        taken = await store.claimRun('r1', B);
        return taken !== undefined;
      }, 10_000);
      expect(taken?.epoch).toBe(2);
      expect(await store.renewLeases(short)).toEqual(new Set());
      await expect(
        store
          .write({ runId: 'r1', records: [started('r1', 2)], lease }, { durable: false })
          .then(() => store.write({ runId: 'r1', records: [], lease }, { durable: true })),
      ).rejects.toSatisfy((thrown) => LeaseLostError.isInstance(thrown));
      expect(await store.renewLeases(B)).toEqual(new Set(['r1']));
    },
  );

  it('claimRuns takes the running runs nobody holds, each by one node however many ask at once', async () => {
    for (const id of ['r1', 'r2', 'r3', 'r4']) await store.releaseLease(await createRun(id));
    await store.releaseLease(await createRun('ended', A, 'completed'));
    const held = await createRun('held'); // still held by node-a
    const [byA, byB] = await Promise.all([store.claimRuns(A, 3), store.claimRuns(B, 10)]);
    const ids = [...byA, ...byB].map((lease) => lease.runId).sort();
    expect(ids).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(byA.length).toBeLessThanOrEqual(3);
    for (const lease of [...byA, ...byB]) expect(lease.epoch).toBe(2);
    expect(await store.claimRuns(B, 10)).toEqual([]);
    expect(held.epoch).toBe(1);
  });

  it('claimRuns takes only runs of the agents named, when named (a node takes what it can drive)', async () => {
    await store.releaseLease(await createRun('r1'));
    const other = await store.claimRun('r2', A);
    await store.write(
      { runId: 'r2', records: [started('r2')], run: { ...row('r2'), agent: 'billing' }, lease: other as Lease },
      { durable: true },
    );
    await store.releaseLease(other as Lease);
    expect((await store.claimRuns(B, 10, { agents: ['billing'] })).map((lease) => lease.runId)).toEqual(['r2']);
    expect(await store.claimRuns(B, 10, { agents: ['shipping'] })).toEqual([]);
    expect((await store.claimRuns(B, 10)).map((lease) => lease.runId)).toEqual(['r1']);
  });

  it('an answer sent while another node holds the run waits for its holder, who journals it', async () => {
    const lease = await createRun('r1');
    await store.write(
      { runId: 'r1', records: [], run: row('r1', 'parked'), parks: [park('r1', 'p1'), park('r1', 'p2')], lease },
      { durable: true },
    );
    const signals: RunSignal[] = [];
    const stop = store.onRunSignal((signal) => signals.push(signal));
    await expect(
      store.requestAnswer({ parkId: 'p1', decision: { type: 'retry' }, by: 'bob', at: 5, callHash: 'wrong' }),
    ).rejects.toSatisfy((thrown) => StaleParkAnswerError.isInstance(thrown));
    expect((await store.getPark('p1'))?.status).toBe('open');

    await store.requestAnswer({ parkId: 'p1', decision: { type: 'retry' }, by: 'bob', at: 5, callHash: 'hash-p1' });
    expect(await store.getPark('p1')).toMatchObject({
      status: 'answered',
      decision: { type: 'retry' },
      answeredBy: 'bob',
    });
    await expect(
      store.requestAnswer({ parkId: 'p1', decision: { type: 'fail' }, by: 'carol', at: 6, callHash: 'hash-p1' }),
    ).rejects.toSatisfy((thrown) => ParkAlreadyAnsweredError.isInstance(thrown));
    expect(await store.requests('r1')).toEqual({
      answers: [{ parkId: 'p1', decision: { type: 'retry' }, by: 'bob', at: 5 }],
    });
    await until(() => signals.some((signal) => signal.type === 'requested' && signal.runId === 'r1'));

    // The holder journals it; the request is then gone.
    await store.write({ runId: 'r1', records: [started('r1', 2)], recordedAnswers: ['p1'], lease }, { durable: true });
    expect(await store.requests('r1')).toEqual({ answers: [] });
    stop();
  });

  it('a parked run with a request waiting is claimable once released; a cancel request is kept until taken', async () => {
    const lease = await createRun('r1', A, 'parked');
    await store.requestCancel('r1', 'stop it', 7);
    await store.requestCancel('r1', 'again', 8); // the first request stands
    expect(await store.requests('r1')).toEqual({ answers: [], cancel: { reason: 'stop it', at: 7 } });
    expect(await store.claimRuns(B, 10)).toEqual([]); // node-a still holds it
    await store.releaseLease(lease);
    const [claimed] = await store.claimRuns(B, 10);
    expect(claimed).toEqual({ runId: 'r1', node: 'node-b', epoch: 2 });
    await store.write(
      {
        runId: 'r1',
        records: [started('r1', 2)],
        run: row('r1', 'cancelled'),
        cancelTaken: true,
        lease: claimed as Lease,
      },
      { durable: true },
    );
    expect(await store.requests('r1')).toEqual({ answers: [] });
    await store.releaseLease(claimed as Lease);
    expect(await store.claimRuns(A, 10)).toEqual([]);
  });
});
