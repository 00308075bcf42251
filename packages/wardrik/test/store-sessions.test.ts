import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_VERSION, type JournalRecord } from '../src/journal/records.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { RunRow, Store } from '../src/store/store.js';
import { tempDbPath } from './helpers.js';
import { storeFactories } from './store-factories.js';

const session = { agent: 'support', app: 'shop', principal: 'alice', createdAt: 1000, updatedAt: 1000, runs: 0 };

function row(id: string, status: RunRow['status']): RunRow {
  return { id, agent: 'support', principal: 'alice', status, createdAt: 1, updatedAt: 1, measures: {}, labels: [] };
}

function started(): JournalRecord {
  return {
    v: JOURNAL_VERSION,
    at: 1,
    type: 'run-started',
    agent: 'support',
    principal: 'alice',
    input: 'hi',
    budget: {},
    maxSteps: 5,
  };
}

describe.each(storeFactories)('$name: sessions and state', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('creates a session once, reads and lists it, newest first, filtered by principal and agents', async () => {
    expect(await store.createSession({ ...session, id: 's1' })).toBe(true);
    expect(await store.createSession({ ...session, id: 's1', principal: 'mallory' })).toBe(false);
    await store.createSession({ ...session, id: 's2', updatedAt: 2000 });
    await store.createSession({ ...session, id: 's3', principal: 'bob', agent: 'billing' });
    expect(await store.getSession('s1')).toEqual({ ...session, id: 's1' });
    expect(await store.getSession('nope')).toBeUndefined();
    expect((await store.listSessions({ principal: 'alice' })).map((each) => each.id)).toEqual(['s2', 's1']);
    expect((await store.listSessions({ agents: ['billing'] })).map((each) => each.id)).toEqual(['s3']);
    expect((await store.listSessions({ agents: [] })).map((each) => each.id)).toEqual([]);
    expect(await store.listSessions({ limit: 1 })).toHaveLength(1);
  });

  it('gives the turn to one run at a time: refused while the run before is running or parked, or being started', async () => {
    await store.createSession({ ...session, id: 's1' });
    expect(await store.claimTurn('nope', 'r0', 1, 30_000)).toEqual({ claimed: false, missing: true });
    expect(await store.claimTurn('s1', 'r1', 2000, 30_000)).toEqual({ claimed: true });
    // r1 has no row yet: it is being started.
    expect(await store.claimTurn('s1', 'r2', 2001, 30_000)).toEqual({ claimed: false, activeRun: 'r1' });
    await store.write(
      { runId: 'r1', records: [{ runId: 'r1', seq: 1, record: started() }], run: row('r1', 'running') },
      { durable: true },
    );
    expect(await store.claimTurn('s1', 'r2', 2002, 30_000)).toEqual({ claimed: false, activeRun: 'r1' });
    await store.write({ runId: 'r1', records: [], run: row('r1', 'parked') }, { durable: true });
    expect(await store.claimTurn('s1', 'r2', 2003, 30_000)).toEqual({ claimed: false, activeRun: 'r1' });
    await store.write({ runId: 'r1', records: [], run: row('r1', 'completed') }, { durable: true });
    expect(await store.claimTurn('s1', 'r2', 2004, 30_000)).toEqual({ claimed: true });
    expect(await store.claimTurn('s1', 'r2', 2005, 30_000)).toEqual({ claimed: true }); // asking again is fine
    // r2 never got a row (its process died starting it): after startingMs the turn is free again.
    expect(await store.claimTurn('s1', 'r3', 2006, 30_000)).toEqual({ claimed: false, activeRun: 'r2' });
    expect(await store.claimTurn('s1', 'r3', 40_000, 30_000)).toEqual({ claimed: true });
    expect(await store.sessionRuns('s1')).toEqual(['r1', 'r2', 'r3']);
    expect(await store.getSession('s1')).toMatchObject({ runs: 3, lastRun: 'r3', updatedAt: 40_000 });
  });

  it('of many runs claiming one turn at once, exactly one wins', async () => {
    await store.createSession({ ...session, id: 's1' });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, index) => store.claimTurn('s1', `r${index}`, 2000, 30_000)),
    );
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
    expect(await store.sessionRuns('s1')).toHaveLength(1);
  });

  it('applies state writes with the run write that holds them, in order, and loads them by scope', async () => {
    await store.write(
      {
        runId: 'r1',
        records: [{ runId: 'r1', seq: 1, record: started() }],
        run: row('r1', 'running'),
        state: {
          at: 5000,
          writes: [
            { scope: 'session:s1', key: 'cart', value: ['a'], labels: [] },
            { scope: 'user:shop:alice', key: 'user:name', value: { first: 'Ann' }, labels: ['outside'] },
            { scope: 'session:s1', key: 'cart', value: ['a', 'b'], labels: [] },
            { scope: 'app:shop', key: 'app:flag', value: true, labels: [] },
          ],
        },
      },
      { durable: false },
    );
    // A read sees every write made before it, durable or not.
    const loaded = await store.loadState(['session:s1', 'user:shop:alice']);
    expect(
      loaded.map(({ scope, key, value, labels, updatedAt, updatedBy }) => ({
        scope,
        key,
        value,
        labels,
        updatedAt,
        updatedBy,
      })),
    ).toEqual([
      { scope: 'session:s1', key: 'cart', value: ['a', 'b'], labels: [], updatedAt: 5000, updatedBy: 'r1' },
      {
        scope: 'user:shop:alice',
        key: 'user:name',
        value: { first: 'Ann' },
        labels: ['outside'],
        updatedAt: 5000,
        updatedBy: 'r1',
      },
    ]);
    await store.write(
      {
        runId: 'r1',
        records: [],
        state: { at: 6000, writes: [{ scope: 'session:s1', key: 'cart', deleted: true, labels: [] }] },
      },
      { durable: true },
    );
    expect((await store.loadState(['session:s1'])).map((each) => each.key)).toEqual([]);
    expect((await store.loadState(['app:shop'])).map((each) => each.value)).toEqual([true]);
  });

  it("keeps a person's edits with who and why; deleting a session drops its state but not its principal's", async () => {
    await store.createSession({ ...session, id: 's1' });
    await store.editState({
      writes: [
        { scope: 'session:s1', key: 'tier', value: 'gold', labels: [] },
        { scope: 'user:shop:alice', key: 'user:vip', value: true, labels: [] },
      ],
      by: 'olga',
      reason: 'support ticket 12',
      at: 7000,
    });
    expect(await store.loadState(['session:s1'])).toEqual([
      { scope: 'session:s1', key: 'tier', value: 'gold', labels: [], updatedAt: 7000, updatedBy: 'person:olga' },
    ]);
    expect(await store.listStateEdits('session:s1')).toEqual([
      {
        id: expect.any(Number),
        at: 7000,
        by: 'olga',
        reason: 'support ticket 12',
        writes: [{ scope: 'session:s1', key: 'tier', value: 'gold', labels: [] }],
      },
    ]);
    expect(await store.deleteSession('s1')).toBe(true);
    expect(await store.deleteSession('s1')).toBe(false);
    expect(await store.getSession('s1')).toBeUndefined();
    expect(await store.loadState(['session:s1'])).toEqual([]);
    expect((await store.loadState(['user:shop:alice'])).map((each) => each.key)).toEqual(['user:vip']);
  });
});

describe.each(storeFactories)('$name: state writes in one batch', ({ open }) => {
  it('the last write of a key wins, a deletion included, whatever the writes around it', async () => {
    const store = await open();
    try {
      await store.migrate();
      await store.write(
        {
          runId: 'r1',
          records: [],
          state: { at: 1, writes: [{ scope: 'app:a', key: 'app:gone', value: 1, labels: [] }] },
        },
        { durable: true },
      );
      // Non-durable writes share one commit (a group): put then delete, delete then put, put twice.
      const writes = [
        { scope: 'app:a', key: 'app:x', value: 1, labels: [] },
        { scope: 'app:a', key: 'app:x', deleted: true as const, labels: [] },
        { scope: 'app:a', key: 'app:gone', deleted: true as const, labels: [] },
      ];
      await Promise.all([
        store.write({ runId: 'r1', records: [], state: { at: 2, writes } }, { durable: false }),
        store.write(
          {
            runId: 'r2',
            records: [],
            state: {
              at: 3,
              writes: [
                { scope: 'app:a', key: 'app:gone', value: 'back', labels: ['outside'] },
                { scope: 'app:a', key: 'app:y', value: 1, labels: [] },
                { scope: 'app:a', key: 'app:y', value: 2, labels: [] },
              ],
            },
          },
          { durable: true },
        ),
      ]);
      const loaded = await store.loadState(['app:a']);
      expect(loaded.map(({ key, value, labels, updatedBy }) => ({ key, value, labels, updatedBy }))).toEqual([
        { key: 'app:gone', value: 'back', labels: ['outside'], updatedBy: 'r2' },
        { key: 'app:y', value: 2, labels: [], updatedBy: 'r2' },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('SqliteStore: reading state', () => {
  it('commits the queue first only when state writes wait in it (every run reads its state once)', async () => {
    const store = sqliteStore(tempDbPath());
    try {
      await store.migrate();
      await store.write({ runId: 'r1', records: [{ runId: 'r1', seq: 1, record: started() }] }, { durable: false });
      const before = store.stats().flushes;
      expect(await store.loadState(['app:shop'])).toEqual([]);
      expect(store.stats().flushes).toBe(before); // nothing to wait for: no commit (no fsync) for the read
      await store.write(
        {
          runId: 'r1',
          records: [],
          state: { at: 1, writes: [{ scope: 'app:shop', key: 'app:x', value: 1, labels: [] }] },
        },
        { durable: false },
      );
      expect((await store.loadState(['app:shop'])).map((each) => each.value)).toEqual([1]);
      expect(store.stats().flushes).toBe(before + 1);
    } finally {
      await store.close();
    }
  });
});
