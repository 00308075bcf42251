/*
 * Group commit on PostgreSQL (issue 13): concurrent runs' writes share one transaction; a durable
 * write is committed when it resolves; a write whose lease was lost is refused alone.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaseLostError, StoreError } from '../src/errors.js';
import type { StoredRecord } from '../src/journal/records.js';
import type { PostgresStore, PostgresStoreOptions } from '../src/store/postgres/postgres-store.js';
import type { Lease, RunRow } from '../src/store/store.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL } from './store-factories.js';

const A = { node: 'node-a', incarnation: 'a1', leaseMs: 60_000 };
const B = { node: 'node-b', incarnation: 'b1', leaseMs: 60_000 };

const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const each of opened.splice(0).reverse()) await each.close().catch(() => {});
});

async function open(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const store = openPostgresTestStore(options);
  opened.push(store);
  await store.migrate();
  return store;
}

/** A connection of the test's own: sees only what is committed. */
async function peek(store: PostgresStore) {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  opened.unshift({ close: () => client.end() }); // closed after the store, whose close drops the schema
  await client.query(`SET search_path TO "${store.schema}"`);
  return {
    journalCount: async (runId?: string) => {
      const { rows } = await client.query<{ count: string }>(
        'SELECT count(*) FROM journal WHERE $1::text IS NULL OR run_id = $1',
        [runId ?? null],
      );
      return Number(rows[0]?.count);
    },
  };
}

function record(runId: string, seq: number): StoredRecord {
  return {
    runId,
    seq,
    record: { type: 'labels-released', v: 1, at: seq, labels: [], by: 'bob', reason: `record ${seq}` },
  };
}

function row(id: string): RunRow {
  return {
    id,
    agent: 'support',
    principal: 'alice',
    status: 'running',
    createdAt: 1,
    updatedAt: 1,
    measures: {},
    labels: [],
  };
}

describe('PostgresStore group commit', () => {
  it('commits many concurrent durable writes made in one tick in a single transaction', async () => {
    const store = await open();
    const disk = await peek(store);
    const writes: Promise<void>[] = [];
    for (let index = 0; index < 64; index += 1) {
      const runId = `run-${index}`;
      writes.push(store.write({ runId, run: row(runId), records: [record(runId, 1)] }, { durable: false }));
      writes.push(store.write({ runId, records: [record(runId, 2), record(runId, 3)] }, { durable: true }));
    }
    await Promise.all(writes);
    expect(store.stats()).toEqual({ flushes: 1, recordsWritten: 64 * 3, writesRefused: 0 });
    expect(await disk.journalCount()).toBe(64 * 3);

    // A second wave, started after the first resolved, is one more transaction.
    await Promise.all([
      store.write({ runId: 'run-0', records: [record('run-0', 4)] }, { durable: true }),
      store.write({ runId: 'run-1', records: [record('run-1', 4)] }, { durable: true }),
    ]);
    expect(store.stats().flushes).toBe(2);
  });

  it('has a durable write committed when it resolves, and non-durable ones with it', async () => {
    const store = await open({ flushIntervalMs: 60_000 });
    const disk = await peek(store);
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await disk.journalCount()).toBe(0);
    await store.write({ runId: 'a', records: [record('a', 2)] }, { durable: true });
    expect(await disk.journalCount()).toBe(2);
    expect(store.stats().flushes).toBe(1);
  });

  it('flushes non-durable writes after the interval, and on close', async () => {
    const store = await open({ flushIntervalMs: 10 });
    const disk = await peek(store);
    await store.write({ runId: 'a', records: [record('a', 1), record('a', 2)] }, { durable: false });
    await vi.waitFor(async () => expect(await disk.journalCount()).toBe(2), { timeout: 10_000 });

    // A store closed before anything else: close migrates, then flushes.
    const slow = openPostgresTestStore({ flushIntervalMs: 60_000, keepSchema: true });
    opened.push({ close: () => dropTestSchema(slow.schema as string) });
    await slow.write({ runId: 'b', records: [record('b', 1)] }, { durable: false });
    await slow.close();
    const slowDisk = await peek(slow);
    expect(await slowDisk.journalCount('b')).toBe(1);
  });

  it('flushes at once when more than maxPendingRecords records are queued, and the write past it waits for them', async () => {
    const store = await open({ flushIntervalMs: 60_000, maxPendingRecords: 3 });
    const disk = await peek(store);
    await store.write({ runId: 'a', records: [record('a', 1), record('a', 2)] }, { durable: false });
    await store.write({ runId: 'a', records: [record('a', 3)] }, { durable: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await disk.journalCount()).toBe(0);
    // Backpressure: the write past the limit resolves once its batch is committed.
    await store.write({ runId: 'a', records: [record('a', 4)] }, { durable: false });
    expect(await disk.journalCount()).toBe(4);
    expect(store.stats().flushes).toBe(1);

    // Writers that never wait for I/O (zero-latency models, read-only tools) write batch after
    // batch: each flush runs while they fill the next, none waits for all of them.
    const runs = Array.from({ length: 4 }, async (_, index) => {
      const runId = `run-${index}`;
      for (let seq = 1; seq <= 10; seq += 1) {
        await store.write({ runId, records: [record(runId, seq)] }, { durable: false });
      }
    });
    await Promise.all(runs);
    expect(store.stats().flushes).toBeGreaterThan(5);
    await store.write({ runId: 'b', records: [record('b', 1)] }, { durable: true });
    expect(await disk.journalCount()).toBe(4 + 40 + 1);
  });

  it('refuses a write whose lease was lost, alone: the others of its transaction commit', async () => {
    const store = await open();
    const kept = (await store.claimRun('kept', A)) as Lease;
    const lost = (await store.claimRun('lost', A)) as Lease;
    await store.releaseLease(lost);
    const takenOver = (await store.claimRun('lost', B)) as Lease;
    const flushes = store.stats().flushes;

    const [first, second, third] = await Promise.allSettled([
      store.write({ runId: 'kept', run: row('kept'), records: [record('kept', 1)], lease: kept }, { durable: true }),
      store.write({ runId: 'lost', run: row('lost'), records: [record('lost', 1)], lease: lost }, { durable: true }),
      store.write({ runId: 'other', records: [record('other', 1)] }, { durable: true }),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(third.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    const refusal = (second as PromiseRejectedResult).reason;
    expect(LeaseLostError.isInstance(refusal)).toBe(true);
    expect((refusal as Error).message).toBe(
      'run lost: node node-a no longer holds it (its lease of epoch 1 was taken over by node-b, epoch 2)',
    );
    expect(store.stats()).toMatchObject({ flushes: flushes + 1, writesRefused: 1 });
    expect(await store.loadJournal('kept')).toEqual([record('kept', 1)]);
    expect(await store.loadJournal('lost')).toEqual([]);
    expect(await store.getRun('lost')).toBeUndefined();
    expect(await store.loadJournal('other')).toEqual([record('other', 1)]);
    // The new holder writes; the store never failed.
    await store.write({ runId: 'lost', records: [record('lost', 1)], lease: takenOver }, { durable: true });
    expect(await store.loadJournal('lost')).toEqual([record('lost', 1)]);
  });

  it('fences writes that only append records as any other: in one batch, each lease is judged alone', async () => {
    const store = await open();
    const kept = (await store.claimRun('kept', A)) as Lease;
    const old = (await store.claimRun('again', A)) as Lease;
    await store.releaseLease(old);
    const again = (await store.claimRun('again', A)) as Lease; // the same node, the next epoch
    const lost = (await store.claimRun('lost', A)) as Lease;
    await store.releaseLease(lost);
    await store.claimRun('lost', B);
    const flushes = store.stats().flushes;

    // Only records (no run row, park or answer): the lean statement applies them.
    const outcomes = await Promise.allSettled([
      store.write({ runId: 'kept', records: [record('kept', 1), record('kept', 2)], lease: kept }, { durable: true }),
      store.write({ runId: 'again', records: [record('again', 1)], lease: old }, { durable: true }),
      store.write({ runId: 'again', records: [record('again', 2)], lease: again }, { durable: true }),
      store.write({ runId: 'lost', records: [record('lost', 1)], lease: lost }, { durable: true }),
      store.write({ runId: 'free', records: [record('free', 1)] }, { durable: true }),
      store.write({ runId: 'kept', records: [], lease: kept }, { durable: true }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe(
      'run again: node node-a no longer holds it (its lease of epoch 1 was taken again by node-a with epoch 2)',
    );
    expect((outcomes[3] as PromiseRejectedResult).reason.message).toBe(
      'run lost: node node-a no longer holds it (its lease of epoch 1 was taken over by node-b, epoch 2)',
    );
    expect(store.stats()).toMatchObject({ flushes: flushes + 1, writesRefused: 2 });
    expect(await store.loadJournal('kept')).toEqual([record('kept', 1), record('kept', 2)]);
    expect(await store.loadJournal('again')).toEqual([record('again', 2)]);
    expect(await store.loadJournal('lost')).toEqual([]);
    expect(await store.loadJournal('free')).toEqual([record('free', 1)]);

    // Writes of one lease alone (the single-lease statement): all applied, or all refused, saying why.
    await Promise.all([
      store.write({ runId: 'again', records: [record('again', 3)], lease: again }, { durable: false }),
      store.write(
        { runId: 'again', records: [record('again', 4), record('again', 5)], lease: again },
        { durable: true },
      ),
    ]);
    expect(await store.lastSeq('again')).toBe(5);
    const alone = await Promise.allSettled([
      store.write({ runId: 'lost', records: [record('lost', 1)], lease: lost }, { durable: false }),
      store.write({ runId: 'lost', records: [record('lost', 2)], lease: lost }, { durable: true }),
    ]);
    expect(alone[0].status).toBe('fulfilled'); // acknowledged at once, refused at its commit
    expect((alone[1] as PromiseRejectedResult).reason.message).toBe(
      'run lost: node node-a no longer holds it (its lease of epoch 1 was taken over by node-b, epoch 2)',
    );
    expect(await store.loadJournal('lost')).toEqual([]);
    // A lease never claimed, or released: refused, saying so.
    const never: Lease = { runId: 'never', node: 'node-a', epoch: 1 };
    await expect(
      store.write({ runId: 'never', records: [record('never', 1)], lease: never }, { durable: true }),
    ).rejects.toThrow('run never: node node-a no longer holds it (its lease of epoch 1 was never claimed)');
    await store.releaseLease(kept);
    await expect(
      store.write({ runId: 'kept', records: [record('kept', 3)], lease: kept }, { durable: true }),
    ).rejects.toThrow('run kept: node node-a no longer holds it (its lease of epoch 1 was released)');
    // Appends mixed with a write of a run row: the full statement, the same outcomes.
    const [appended, rowWritten] = await Promise.allSettled([
      store.write({ runId: 'again', records: [record('again', 6)], lease: again }, { durable: true }),
      store.write({ runId: 'lost', run: row('lost'), records: [record('lost', 1)], lease: lost }, { durable: true }),
    ]);
    expect(appended.status).toBe('fulfilled');
    expect(rowWritten.status).toBe('rejected');
    expect(await store.lastSeq('again')).toBe(6);
  });

  it('after refusing an acknowledged non-durable write, refuses every later write of its lease at once', async () => {
    const store = await open({ flushIntervalMs: 60_000 });
    const lease = (await store.claimRun('r1', A)) as Lease;
    await store.releaseLease(lease);
    await store.claimRun('r1', B);
    // Acknowledged at once; refused when its batch commits (with a durable write of another run).
    await store.write({ runId: 'r1', records: [record('r1', 1)], lease }, { durable: false });
    await store.write({ runId: 'r2', records: [record('r2', 1)] }, { durable: true });
    const flushes = store.stats().flushes;
    await expect(store.write({ runId: 'r1', records: [record('r1', 2)], lease }, { durable: false })).rejects.toThrow(
      'run r1: node node-a no longer holds it (a write of its lease of epoch 1 was refused already)',
    );
    expect(store.stats()).toMatchObject({ flushes, writesRefused: 2 });
    expect(await store.loadJournal('r1')).toEqual([]);
  });

  it('answers a park with its write in one transaction, fenced by the lease: a lost lease leaves the park open', async () => {
    const store = await open();
    const lease = (await store.claimRun('r1', A)) as Lease;
    const park = {
      id: 'p1',
      runId: 'r1',
      kind: 'tool' as const,
      reason: 'ask',
      labels: [],
      callHash: 'h',
      createdAt: 2,
    };
    await store.write(
      { runId: 'r1', run: { ...row('r1'), status: 'parked' }, records: [record('r1', 1)], parks: [park], lease },
      { durable: true },
    );
    await store.releaseLease(lease);
    const answer = {
      parkId: 'p1',
      decision: { type: 'retry' as const },
      by: 'bob',
      at: 5,
      write: { runId: 'r1', run: row('r1'), records: [record('r1', 2)], lease },
    };
    await expect(store.answerPark(answer)).rejects.toSatisfy(LeaseLostError.isInstance);
    expect((await store.getPark('p1'))?.status).toBe('open');
    expect(await store.lastSeq('r1')).toBe(1);

    const again = (await store.claimRun('r1', A)) as Lease;
    await store.answerPark({ ...answer, write: { ...answer.write, lease: again } });
    expect(await store.getPark('p1')).toMatchObject({ status: 'answered', answeredBy: 'bob' });
    expect(await store.lastSeq('r1')).toBe(2);
  });

  it('refuses text PostgreSQL cannot hold (U+0000) without failing the store', async () => {
    const store = await open();
    await expect(store.write({ runId: 'a\u0000b', records: [] }, { durable: true })).rejects.toThrow(
      'runId must be text without U+0000',
    );
    await expect(
      store.write({ runId: 'a', run: { ...row('a'), agent: 'x\u0000' }, records: [] }, { durable: false }),
    ).rejects.toSatisfy(StoreError.isInstance);
    // Inside JSON it is fine: JSON escapes it.
    const nul: StoredRecord = { ...record('a', 1), record: { ...record('a', 1).record, reason: 'a\u0000b' } as never };
    await store.write({ runId: 'a', records: [nul] }, { durable: true });
    expect(await store.loadJournal('a')).toEqual([nul]);
  });
});
