import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal, TokenInfo } from '../src/auth/types.js';
import {
  InvalidInputError,
  ParkAlreadyAnsweredError,
  ParkNotFoundError,
  PrincipalNotFoundError,
  StoreError,
} from '../src/errors.js';
import type { Park, StoredRecord } from '../src/journal/records.js';
import { migrateSqlite, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from '../src/store/sqlite/migrations.js';
import { type SqliteStoreOptions, sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { ParkAnswerWrite, RunRow, RunStatus, Store } from '../src/store/store.js';
import { storeFactories } from './store-factories.js';

const root = mkdtempSync(join(tmpdir(), 'wardrik-store-'));
let fileCount = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh database path in a directory that does not exist yet. */
function newPath(): string {
  fileCount += 1;
  return join(root, `case-${fileCount}`, 'nested', 'wardrik.db');
}

function record(runId: string, seq: number, callId = `c${seq}`): StoredRecord {
  return {
    runId,
    seq,
    record: {
      type: 'call-started',
      v: 1,
      at: 1_000 + seq,
      callId,
      name: 'lookup',
      arguments: { seq },
      idempotencyKey: `${runId}:${callId}`,
      repeatable: false,
      attempt: 1,
    },
  };
}

function run(id: string, overrides: Partial<RunRow> = {}): RunRow {
  return {
    id,
    agent: 'support',
    principal: 'alice',
    status: 'running',
    createdAt: 1_000,
    updatedAt: 1_000,
    measures: {},
    labels: [],
    ...overrides,
  };
}

function park(id: string, runId: string, createdAt = 2_000): Park {
  return {
    id,
    runId,
    kind: 'tool',
    reason: 'needs a person',
    call: { callId: 'c1', name: 'refund', arguments: { amount: 5 }, idempotencyKey: `${runId}:c1` },
    labels: ['outside'],
    callHash: `hash-${id}`,
    createdAt,
  };
}

/** Writes a parked run: its row, a run-parked record and the park. */
async function parkRun(store: Store, runId: string, parkId: string, principal = 'alice', createdAt = 2_000) {
  const open = park(parkId, runId, createdAt);
  await store.write(
    {
      runId,
      run: run(runId, { principal, status: 'parked' }),
      records: [{ runId, seq: 1, record: { type: 'run-parked', v: 1, at: createdAt, park: open } }],
      parks: [open],
    },
    { durable: true },
  );
  return open;
}

function answerOf(runId: string, parkId: string, seq = 2, at = Date.UTC(2025, 0, 2)): ParkAnswerWrite {
  return {
    parkId,
    decision: { type: 'answer', value: { refunded: true } },
    by: 'bob',
    at,
    write: {
      runId,
      run: run(runId, { status: 'running', updatedAt: at }),
      records: [
        {
          runId,
          seq,
          record: { type: 'park-answered', v: 1, at, parkId, decision: { type: 'retry' }, by: 'bob' },
        },
      ],
    },
  };
}

describe.each(storeFactories)('$name: shared behaviour', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('appends to the journal and loads it in seq order, from afterSeq exclusive', async () => {
    await store.write({ runId: 'a', records: [record('a', 1), record('a', 2), record('a', 3)] }, { durable: true });
    await store.write({ runId: 'b', records: [record('b', 1)] }, { durable: false });
    await store.write({ runId: 'a', records: [record('a', 5)] }, { durable: false });
    await store.write({ runId: 'a', records: [record('a', 4)] }, { durable: true });

    expect((await store.loadJournal('a')).map((stored) => stored.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.loadJournal('a', 3)).map((stored) => stored.seq)).toEqual([4, 5]);
    expect((await store.loadJournal('a', 0)).map((stored) => stored.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await store.loadJournal('a', 5)).toEqual([]);
    expect(await store.loadJournal('b')).toEqual([record('b', 1)]);
    expect(await store.loadJournal('unknown')).toEqual([]);
    expect((await store.loadJournal('a'))[0]).toEqual(record('a', 1));
  });

  it('lets reads see non-durable writes made before them', async () => {
    void store.write({ runId: 'a', run: run('a'), records: [record('a', 1)] }, { durable: false });
    expect(await store.getRun('a')).toEqual(run('a'));
    expect(await store.loadJournal('a')).toEqual([record('a', 1)]);
  });

  it('upserts run rows and keeps the latest', async () => {
    await store.write({ runId: 'a', run: run('a'), records: [] }, { durable: true });
    const ended = run('a', {
      status: 'completed',
      updatedAt: 1_500,
      output: 'done',
      measures: { usd: 0.25, input_tokens: 10 },
      labels: ['outside'],
    });
    await store.write({ runId: 'a', run: ended, records: [] }, { durable: false });
    expect(await store.getRun('a')).toEqual(ended);
    expect(await store.getRun('missing')).toBeUndefined();
    const failed = run('b', { status: 'failed', error: 'budget' });
    await store.write({ runId: 'b', run: failed, records: [] }, { durable: true });
    expect(await store.getRun('b')).toEqual(failed);
  });

  it('lists runs newest first, filtered by status (one or several), agent, principal and limit', async () => {
    const rows: RunRow[] = [
      run('r1', { createdAt: 1, status: 'running' }),
      run('r2', { createdAt: 2, status: 'parked', agent: 'billing' }),
      run('r3', { createdAt: 3, status: 'completed', principal: 'bob' }),
      run('r4', { createdAt: 3, status: 'running', principal: 'bob', agent: 'billing' }),
    ];
    for (const row of rows) await store.write({ runId: row.id, run: row, records: [] }, { durable: false });
    const ids = async (filter?: Parameters<Store['listRuns']>[0]) => (await store.listRuns(filter)).map((r) => r.id);

    expect(await ids()).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(await ids({ status: 'running' })).toEqual(['r4', 'r1']);
    expect(await ids({ status: ['running', 'parked'] satisfies RunStatus[] })).toEqual(['r4', 'r2', 'r1']);
    expect(await ids({ status: [] })).toEqual([]);
    expect(await ids({ agent: 'billing' })).toEqual(['r4', 'r2']);
    expect(await ids({ principal: 'bob', status: 'completed' })).toEqual(['r3']);
    expect(await ids({ limit: 2 })).toEqual(['r4', 'r3']);
    expect(await ids({ limit: 0 })).toEqual([]);
    await expect(store.listRuns({ limit: -1 })).rejects.toSatisfy(InvalidInputError.isInstance);
    await expect(store.listRuns({ limit: 1.5 })).rejects.toThrow(/limit must be a non-negative integer/);
  });

  it('stores parks with the run principal and lists them oldest first with filters', async () => {
    await parkRun(store, 'r1', 'p2', 'alice', 300);
    await parkRun(store, 'r2', 'p1', 'bob', 100);
    const late = { ...park('p3', 'r1', 200), kind: 'external' as const, handle: 'job-1' };
    await store.write({ runId: 'r1', records: [], parks: [late] }, { durable: false });

    expect(await store.getPark('p3')).toEqual({ ...late, status: 'open' });
    expect(await store.getPark('nope')).toBeUndefined();
    const ids = async (filter?: Parameters<Store['listParks']>[0]) =>
      (await store.listParks(filter)).map((row) => row.id);
    expect(await ids()).toEqual(['p1', 'p3', 'p2']);
    expect(await ids({ runId: 'r1' })).toEqual(['p3', 'p2']);
    expect(await ids({ principal: 'bob' })).toEqual(['p1']);
    expect(await ids({ principal: 'alice', limit: 1 })).toEqual(['p3']);
    expect(await ids({ status: 'answered' })).toEqual([]);
    expect(await ids({ status: 'open' })).toEqual(['p1', 'p3', 'p2']);
    expect(await ids({ status: 'open', kind: 'external' })).toEqual(['p3']);
    expect(await ids({ kind: 'tool' })).toEqual(['p1', 'p2']);
    expect(await store.countOpenParks()).toEqual({ tool: 2, external: 1 });
  });

  it('finds the parks waiting for a handle, among many open ones, with the other filters', async () => {
    await parkRun(store, 'r1', 'p1');
    const waits = Array.from({ length: 50 }, (_, index) => ({
      ...park(`w${index}`, 'r1', 1_000 + index),
      kind: 'external' as const,
      handle: `job-${index}`,
    }));
    // A handle that is a prefix, or holds quotes and LIKE's wildcards, matches only itself.
    const odd = { ...park('odd', 'r2', 5_000), kind: 'external' as const, handle: `job-1%_"'` };
    await store.write({ runId: 'r1', records: [], parks: waits }, { durable: false });
    await store.write({ runId: 'r2', records: [], parks: [odd] }, { durable: true });
    const ids = async (filter: Parameters<Store['listParks']>[0]) =>
      (await store.listParks(filter)).map((row) => row.id);
    expect(await ids({ handle: 'job-1' })).toEqual(['w1']);
    expect(await ids({ status: 'open', kind: 'external', handle: 'job-17' })).toEqual(['w17']);
    expect(await ids({ handle: `job-1%_"'` })).toEqual(['odd']);
    expect(await ids({ handle: 'job-1', runId: 'r2' })).toEqual([]);
    expect(await ids({ handle: 'job-1', status: 'answered' })).toEqual([]);
    expect(await ids({ handle: 'job-99' })).toEqual([]);
    expect((await store.listParks({ handle: 'job-3' }))[0]).toEqual({ ...waits[3], status: 'open' });
  });

  it('lists parks newest first, and a page at a time after the last one shown (ties by id)', async () => {
    await parkRun(store, 'r1', 'p2', 'alice', 300);
    await parkRun(store, 'r2', 'p1', 'bob', 100);
    await store.write(
      { runId: 'r1', records: [], parks: [park('p3', 'r1', 300), park('p4', 'r1', 200)] },
      { durable: false },
    );
    const ids = async (filter?: Parameters<Store['listParks']>[0]) =>
      (await store.listParks(filter)).map((row) => row.id);
    expect(await ids({ order: 'newest' })).toEqual(['p3', 'p2', 'p4', 'p1']);
    expect(await ids({ order: 'newest', status: 'open', limit: 2 })).toEqual(['p3', 'p2']);
    expect(await ids({ order: 'newest', after: { createdAt: 300, id: 'p2' } })).toEqual(['p4', 'p1']);
    expect(await ids({ order: 'newest', after: { createdAt: 300, id: 'p3' }, limit: 1 })).toEqual(['p2']);
    expect(await ids({ order: 'newest', after: { createdAt: 100, id: 'p1' } })).toEqual([]);
    expect(await ids({ order: 'oldest', after: { createdAt: 200, id: 'p4' } })).toEqual(['p2', 'p3']);
    expect(await ids({ order: 'newest', principal: 'bob' })).toEqual(['p1']);
  });

  it('answers an open park once, durably, with its write in the same step', async () => {
    const open = await parkRun(store, 'r1', 'p1');
    const answer = answerOf('r1', 'p1');
    await store.answerPark(answer);

    expect(await store.getPark('p1')).toEqual({
      ...open,
      status: 'answered',
      decision: answer.decision,
      answeredBy: 'bob',
      answeredAt: answer.at,
    });
    expect((await store.getRun('r1'))?.status).toBe('running');
    expect((await store.loadJournal('r1')).map((stored) => stored.record.type)).toEqual([
      'run-parked',
      'park-answered',
    ]);
    expect(await store.listParks({ status: 'open' })).toEqual([]);
    expect((await store.listParks({ status: 'answered' })).map((row) => row.id)).toEqual(['p1']);
    expect(await store.countOpenParks()).toEqual({});
  });

  it('refuses a second answer, saying when the first was given, and writes nothing of it', async () => {
    await parkRun(store, 'r1', 'p1');
    await store.answerPark(answerOf('r1', 'p1'));
    const second = store.answerPark(answerOf('r1', 'p1', 3));
    await expect(second).rejects.toSatisfy(ParkAlreadyAnsweredError.isInstance);
    await expect(store.answerPark(answerOf('r1', 'p1', 3))).rejects.toThrow(
      'park p1 was already answered by bob at 2025-01-02T00:00:00.000Z',
    );
    expect((await store.loadJournal('r1')).map((stored) => stored.seq)).toEqual([1, 2]);
  });

  it('refuses an answer to an unknown park', async () => {
    const answer = store.answerPark(answerOf('r1', 'ghost'));
    await expect(answer).rejects.toSatisfy(ParkNotFoundError.isInstance);
    await expect(store.answerPark(answerOf('r1', 'ghost'))).rejects.toThrow('no park has the id ghost');
    expect(await store.loadJournal('r1')).toEqual([]);
  });

  it('refuses an answer whose write belongs to another run, leaving the park open', async () => {
    await parkRun(store, 'r1', 'p1');
    await expect(store.answerPark({ ...answerOf('r2', 'p1') })).rejects.toThrow(
      'park p1 belongs to run r1, not to run r2',
    );
    expect((await store.getPark('p1'))?.status).toBe('open');
    expect(await store.loadJournal('r2')).toEqual([]);
  });

  it('closes the open parks of a run, and a closed park cannot be answered', async () => {
    await parkRun(store, 'r1', 'p1');
    await parkRun(store, 'r2', 'p2');
    await store.write({ runId: 'r1', records: [], parks: [park('p3', 'r1')] }, { durable: true });
    await store.answerPark(answerOf('r1', 'p3'));
    // p2 belongs to r2: closing it from r1 does nothing; p3 is answered and stays so.
    await store.write({ runId: 'r1', records: [], closeParks: ['p1', 'p2', 'p3', 'unknown'] }, { durable: true });

    expect((await store.getPark('p1'))?.status).toBe('closed');
    expect((await store.getPark('p2'))?.status).toBe('open');
    expect((await store.getPark('p3'))?.status).toBe('answered');
    await expect(store.answerPark(answerOf('r1', 'p1', 9))).rejects.toThrow(
      'park p1 is closed (its run was cancelled) and can no longer be answered',
    );
  });

  it('fails on a duplicate (run_id, seq): the durable write rejects and so does every later write', async () => {
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: true });
    const duplicate = store.write({ runId: 'a', records: [record('a', 1, 'other')] }, { durable: true });
    await expect(duplicate).rejects.toSatisfy(StoreError.isInstance);
    await expect(duplicate).rejects.toThrow(/lost/);
    const later = store.write({ runId: 'a', records: [record('a', 2)] }, { durable: false });
    await expect(later).rejects.toThrow(/failed and must be re/);
    await expect(store.write({ runId: 'b', records: [] }, { durable: true })).rejects.toSatisfy(StoreError.isInstance);
  });

  it('rejects a malformed write without failing the store', async () => {
    await expect(store.write({ runId: 'a', records: [record('b', 1)] }, { durable: true })).rejects.toThrow(
      'record seq 1 belongs to run b, not to run a',
    );
    await expect(store.write({ runId: 'a', records: [], run: run('b') }, { durable: false })).rejects.toThrow(
      'the run row of run b was written with run a',
    );
    await expect(store.write({ runId: 'a', records: [record('a', 1.5)] }, { durable: true })).rejects.toThrow(
      "a record's seq must be an integer",
    );
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const bad = { ...record('a', 1), record: { ...record('a', 1).record, arguments: circular } } as StoredRecord;
    await expect(store.write({ runId: 'a', records: [bad] }, { durable: true })).rejects.toThrow(
      /run a record 1 cannot be stored as JSON/,
    );
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: true });
    expect(await store.loadJournal('a')).toEqual([record('a', 1)]);
  });

  it('keeps its own copies: changing written or read objects does not change what is stored', async () => {
    const written = structuredClone(record('a', 1)) as { record: { arguments: { seq: number } } } & StoredRecord;
    const row = structuredClone(run('a')) as RunRow & { labels: string[] };
    await store.write({ runId: 'a', run: row, records: [written] }, { durable: false });
    written.record.arguments.seq = 99;
    row.labels.push('changed');
    const read = (await store.loadJournal('a'))[0] as { record: { arguments: { seq: number } } };
    read.record.arguments.seq = 42;
    ((await store.getRun('a'))!.labels as string[]).push('changed again');

    expect(await store.loadJournal('a')).toEqual([record('a', 1)]);
    expect(await store.getRun('a')).toEqual(run('a'));
  });

  it('closes idempotently and refuses work afterwards', async () => {
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    await store.close();
    await store.close();
    await expect(store.write({ runId: 'a', records: [] }, { durable: true })).rejects.toThrow(/closed/);
    await expect(store.getRun('a')).rejects.toSatisfy(StoreError.isInstance);
  });
});

function principal(id: string, overrides: Partial<Principal> = {}): Principal {
  return { id, name: `name-${id}`, kind: 'user', role: 'user', agents: ['support'], createdAt: 1_000, ...overrides };
}

function token(id: string, principalId: string, overrides: Partial<TokenInfo> = {}): TokenInfo & { hash: string } {
  return { id, principalId, createdAt: 2_000, hash: `hash-${id}`, ...overrides };
}

describe.each(storeFactories)('$name: principals and tokens', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('puts, gets and lists principals by name; a put with the same id replaces it', async () => {
    const zoe = principal('p1', { name: 'zoe', role: 'operator', agents: ['*'] });
    const bob = principal('p2', { name: 'bob', kind: 'worker', role: 'worker', agents: ['billing', 'support'] });
    await store.putPrincipal(zoe);
    await store.putPrincipal(bob);
    expect(await store.getPrincipal('p1')).toEqual(zoe);
    expect(await store.getPrincipal('missing')).toBeUndefined();
    expect(await store.listPrincipals()).toEqual([bob, zoe]);

    const renamed = { ...zoe, name: 'alice', role: 'admin' as const };
    await store.putPrincipal(renamed);
    expect(await store.listPrincipals()).toEqual([renamed, bob]);
  });

  it('refuses a second principal with a taken name, and stays usable', async () => {
    await store.putPrincipal(principal('p1', { name: 'alice' }));
    const refused = store.putPrincipal(principal('p2', { name: 'alice' }));
    await expect(refused).rejects.toThrow('a principal named alice exists');
    await expect(store.putPrincipal(principal('p2', { name: 'alice' }))).rejects.toSatisfy(
      InvalidInputError.isInstance,
    );
    await store.putPrincipal(principal('p2', { name: 'bob' }));
    expect((await store.listPrincipals()).map((each) => each.name)).toEqual(['alice', 'bob']);
  });

  it('refuses a malformed principal or token with a StoreError naming the problem', async () => {
    await expect(store.putPrincipal(principal('p1', { role: 'root' as 'admin' }))).rejects.toThrow(
      'principal p1: unknown role root',
    );
    await expect(store.putPrincipal(principal('p1', { kind: 'robot' as 'user' }))).rejects.toThrow(
      'principal p1: unknown kind robot',
    );
    await expect(store.putPrincipal(principal('p1', { agents: [''] }))).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.putPrincipal(principal(''))).rejects.toThrow('a principal id must be a non-empty string');
    await store.putPrincipal(principal('p1'));
    await expect(store.putToken(token('t1', 'p1', { hash: '' }))).rejects.toThrow('token t1: hash');
    await expect(store.putToken(token('t1', 'p1', { createdAt: 1.5 }))).rejects.toThrow('token t1: createdAt');
    expect(await store.listPrincipals()).toEqual([principal('p1')]);
    expect(await store.listTokens()).toEqual([]);
  });

  it('finds a token by its hash, with its principal', async () => {
    const alice = principal('p1', { name: 'alice' });
    await store.putPrincipal(alice);
    await store.putToken(token('t1', 'p1'));
    expect(await store.findTokenByHash('hash-t1')).toEqual({
      id: 't1',
      principalId: 'p1',
      createdAt: 2_000,
      hash: 'hash-t1',
      principal: alice,
    });
    expect(await store.findTokenByHash('hash-unknown')).toBeUndefined();
    expect(await store.findTokenByHash('')).toBeUndefined();
  });

  it('keeps when a token expires, found by hash and listed', async () => {
    await store.putPrincipal(principal('p1'));
    await store.putToken(token('t1', 'p1', { expiresAt: 90_000_000_000 }));
    await store.putToken(token('t2', 'p1'));
    expect(await store.findTokenByHash('hash-t1')).toMatchObject({ id: 't1', expiresAt: 90_000_000_000 });
    expect(await store.findTokenByHash('hash-t2')).not.toHaveProperty('expiresAt');
    expect(await store.listTokens()).toEqual([
      { id: 't1', principalId: 'p1', createdAt: 2_000, expiresAt: 90_000_000_000 },
      { id: 't2', principalId: 'p1', createdAt: 2_000 },
    ]);
    await expect(store.putToken(token('t3', 'p1', { expiresAt: 1.5 }))).rejects.toThrow('token t3: expiresAt');
  });

  it('refuses a token of an unknown principal, or with an id or hash in use, and stays usable', async () => {
    await expect(store.putToken(token('t1', 'nobody'))).rejects.toSatisfy(PrincipalNotFoundError.isInstance);
    await store.putPrincipal(principal('p1'));
    await store.putToken(token('t1', 'p1'));
    await expect(store.putToken(token('t1', 'p1', { hash: 'other' }))).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.putToken(token('t2', 'p1', { hash: 'hash-t1' }))).rejects.toSatisfy(StoreError.isInstance);
    await store.putToken(token('t2', 'p1'));
    expect((await store.listTokens()).map((each) => each.id)).toEqual(['t1', 't2']);
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: true });
    expect(await store.loadJournal('a')).toHaveLength(1);
  });

  it('revokes a token once: it keeps its first revokedAt, and is still found, with revokedAt', async () => {
    await store.putPrincipal(principal('p1'));
    await store.putToken(token('t1', 'p1'));
    expect(await store.revokeToken('t1', 5_000)).toBe(true);
    expect(await store.revokeToken('t1', 6_000)).toBe(true);
    expect(await store.revokeToken('unknown', 5_000)).toBe(false);
    expect(await store.findTokenByHash('hash-t1')).toMatchObject({ id: 't1', revokedAt: 5_000 });
    expect(await store.listTokens()).toEqual([{ id: 't1', principalId: 'p1', createdAt: 2_000, revokedAt: 5_000 }]);
  });

  it("lists tokens oldest first, all or one principal's, never with their hashes", async () => {
    await store.putPrincipal(principal('p1'));
    await store.putPrincipal(principal('p2'));
    await store.putToken(token('t3', 'p1', { createdAt: 3 }));
    await store.putToken(token('t1', 'p2', { createdAt: 1 }));
    await store.putToken(token('t2', 'p1', { createdAt: 3 }));
    expect((await store.listTokens()).map((each) => each.id)).toEqual(['t1', 't2', 't3']);
    expect((await store.listTokens('p1')).map((each) => each.id)).toEqual(['t2', 't3']);
    expect(await store.listTokens('nobody')).toEqual([]);
    expect(await store.listTokens('p2')).toEqual([{ id: 't1', principalId: 'p2', createdAt: 1 }]);
  });

  it('keeps its own copies of principals', async () => {
    const written = principal('p1', { agents: ['support'] });
    await store.putPrincipal(written);
    (written.agents as string[]).push('refunds');
    const read = await store.getPrincipal('p1');
    (read!.agents as string[]).push('billing');
    expect((await store.getPrincipal('p1'))?.agents).toEqual(['support']);
  });

  it('refuses principal and token calls once closed', async () => {
    await store.close();
    await expect(store.putPrincipal(principal('p1'))).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.findTokenByHash('hash-t1')).rejects.toThrow(/closed/);
    await expect(store.listTokens()).rejects.toThrow(/closed/);
  });
});

describe('SqliteStore', () => {
  const opened: { close(): unknown }[] = [];
  afterEach(async () => {
    for (const handle of opened.splice(0).reverse()) await handle.close();
  });

  function openStore(path: string, options?: SqliteStoreOptions) {
    const store = sqliteStore(path, options);
    opened.push(store);
    return store;
  }

  /** A second, independent connection to the same file: sees only what is committed. */
  function peek(path: string) {
    const database = new Database(path, { fileMustExist: true });
    opened.push(database);
    return {
      database,
      journalCount: () => (database.prepare('SELECT count(*) AS count FROM journal').get() as { count: number }).count,
    };
  }

  it('keeps what it creates to its owner: the directory 0700, the database, its WAL and lock file 0600', async () => {
    const path = newPath();
    const store = openStore(path);
    await store.lockForRuntime();
    await store.write({ runId: 'r1', records: [], run: run('r1') }, { durable: true });
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}.lock`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
  });

  it('creates the parent directory, uses WAL, and records migrations once', async () => {
    const path = newPath();
    const store = openStore(path);
    expect(existsSync(join(path, '..'))).toBe(true);
    await store.migrate();
    await store.migrate();
    const { database } = peek(path);
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    const migrations = database.prepare('SELECT version, name, applied_at FROM migrations').all();
    expect(migrations).toEqual([
      { version: 1, name: 'runs, journal and parks', applied_at: expect.any(Number) },
      { version: 2, name: 'principals and tokens', applied_at: expect.any(Number) },
      { version: 3, name: 'standing decisions', applied_at: expect.any(Number) },
      { version: 4, name: 'requests for the node that holds a run', applied_at: expect.any(Number) },
      { version: 5, name: 'sessions and state', applied_at: expect.any(Number) },
      { version: 6, name: 'memories and artifacts', applied_at: expect.any(Number) },
      { version: 7, name: 'open parks by kind', applied_at: expect.any(Number) },
      { version: 8, name: 'retention', applied_at: expect.any(Number) },
      { version: 9, name: 'tokens that expire', applied_at: expect.any(Number) },
      { version: 10, name: 'oauth credentials', applied_at: expect.any(Number) },
      { version: 11, name: 'parks by handle', applied_at: expect.any(Number) },
    ]);
    expect(SQLITE_SCHEMA_VERSION).toBe(SQLITE_MIGRATIONS.length);
    expect(migrateSqlite(database)).toEqual([]);
    const tables = database
      .prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((row) => (row as { name: string }).name)
      .sort();
    expect(tables).toEqual([
      'allowances',
      'artifacts',
      'artifacts_save_key',
      'journal',
      'journal_run_seq',
      'memories',
      'memories_at',
      'memories_fts',
      'memories_fts_config',
      'memories_fts_data',
      'memories_fts_docsize',
      'memories_fts_idx',
      'memories_owner',
      'migrations',
      'oauth_credentials',
      'parks',
      'parks_handle',
      'parks_open_external',
      'parks_run',
      'parks_status_created',
      'parks_status_kind',
      'parks_unrecorded',
      'principals',
      'run_cancels',
      'runs',
      'runs_status',
      'runs_status_updated',
      'session_runs',
      'session_runs_run',
      'sessions',
      'sessions_updated',
      'state_edits',
      'state_values',
      'tokens',
      'tokens_principal',
    ]);
    expect(database.prepare('SELECT count(*) AS count FROM migrations').get()).toEqual({
      count: SQLITE_SCHEMA_VERSION,
    });
  });

  it('applies each migration in a transaction with its record: a failing step leaves no trace', () => {
    const database = new Database(':memory:');
    opened.push(database);
    const next = SQLITE_SCHEMA_VERSION + 1;
    const broken = [...SQLITE_MIGRATIONS, { version: next, name: 'broken', sql: 'CREATE TABLE extra (x); SELEC 1;' }];
    expect(() => migrateSqlite(database, broken)).toThrow(
      `migrating :memory: failed at version ${next} (broken): near "SELEC"`,
    );
    expect(database.prepare('SELECT version FROM migrations').all()).toEqual(
      SQLITE_MIGRATIONS.map((migration) => ({ version: migration.version })),
    );
    expect(database.prepare("SELECT name FROM sqlite_schema WHERE name = 'extra'").all()).toEqual([]);
  });

  it('refuses a database with a newer schema version, naming both versions', async () => {
    const path = newPath();
    const first = openStore(path);
    await first.migrate();
    await first.close();
    const newer = SQLITE_SCHEMA_VERSION + 1;
    const { database } = peek(path);
    database.prepare('INSERT INTO migrations VALUES (?, ?, ?)').run(newer, 'from the future', Date.now());

    const store = openStore(path);
    const expected = `has schema version ${newer}, but this code knows versions up to ${SQLITE_SCHEMA_VERSION}`;
    await expect(store.migrate()).rejects.toThrow(expected);
    await expect(store.migrate()).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.write({ runId: 'a', records: [] }, { durable: true })).rejects.toThrow(expected);
  });

  it('has a durable write on disk when it resolves', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    const disk = peek(path);
    const written = store.write({ runId: 'a', run: run('a'), records: [record('a', 1)] }, { durable: true });
    expect(disk.journalCount()).toBe(0);
    await written;
    expect(disk.journalCount()).toBe(1);
    expect(disk.database.prepare('SELECT id, status FROM runs').all()).toEqual([{ id: 'a', status: 'running' }]);
  });

  it('flushes non-durable writes after the interval', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 10 });
    await store.migrate();
    const disk = peek(path);
    await store.write({ runId: 'a', records: [record('a', 1), record('a', 2)] }, { durable: false });
    expect(disk.journalCount()).toBe(0);
    await vi.waitFor(() => expect(disk.journalCount()).toBe(2));
    // Nothing waits for it to be on disk: no fsync.
    expect(store.stats()).toEqual({ flushes: 1, recordsWritten: 2, syncs: 0, threadFlushes: 0 });
  });

  it('flushes non-durable writes with the next durable write, in one transaction', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    const disk = peek(path);
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(disk.journalCount()).toBe(0);
    await store.write({ runId: 'a', records: [record('a', 2)] }, { durable: true });
    expect(disk.journalCount()).toBe(2);
    expect(store.stats()).toEqual({ flushes: 1, recordsWritten: 2, syncs: 1, threadFlushes: 0 });
  });

  it('flushes non-durable writes on close', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    const disk = peek(path);
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    expect(disk.journalCount()).toBe(0);
    await store.close();
    expect(disk.journalCount()).toBe(1);
  });

  it('flushes at once when more than maxPendingRecords records are queued', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000, maxPendingRecords: 3 });
    await store.migrate();
    const disk = peek(path);
    void store.write({ runId: 'a', records: [record('a', 1), record('a', 2)] }, { durable: false });
    void store.write({ runId: 'a', records: [record('a', 3)] }, { durable: false });
    expect(disk.journalCount()).toBe(0);
    void store.write({ runId: 'a', records: [record('a', 4)] }, { durable: false });
    // At once: not after the minute-long interval (the commit thread makes it in a moment).
    await vi.waitFor(() => expect(disk.journalCount()).toBe(4), { timeout: 10_000 });
  });

  it('commits many concurrent durable writes issued in the same tick in a single flush', async () => {
    const path = newPath();
    const store = openStore(path);
    await store.migrate();
    const writes: Promise<void>[] = [];
    for (let runIndex = 0; runIndex < 64; runIndex += 1) {
      const runId = `run-${runIndex}`;
      writes.push(store.write({ runId, run: run(runId), records: [record(runId, 1)] }, { durable: false }));
      writes.push(store.write({ runId, records: [record(runId, 2), record(runId, 3)] }, { durable: true }));
    }
    await Promise.all(writes);
    // One commit (large: made by the commit thread), one fsync.
    expect(store.stats()).toEqual({ flushes: 1, recordsWritten: 64 * 3, syncs: 1, threadFlushes: 1 });
    expect(peek(path).journalCount()).toBe(64 * 3);

    // A second wave, started after the first resolved, is one more flush.
    await Promise.all([
      store.write({ runId: 'run-0', records: [record('run-0', 4)] }, { durable: true }),
      store.write({ runId: 'run-1', records: [record('run-1', 4)] }, { durable: true }),
    ]);
    expect(store.stats().flushes).toBe(2);
  });

  it('fails the whole flush on a duplicate (run_id, seq), losing its queued writes, and says so', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    const disk = peek(path);
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    await store.write({ runId: 'b', records: [record('b', 1)] }, { durable: false });
    const duplicate = store.write({ runId: 'a', records: [record('a', 1, 'again')] }, { durable: true });

    const failure = await duplicate.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(StoreError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(
      /writing 3 queued writes \(3 journal records\) .* failed, so they are lost/,
    );
    expect((failure as Error & { cause: { code: string } }).cause.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(disk.journalCount()).toBe(0);
    await expect(store.write({ runId: 'c', records: [] }, { durable: false })).rejects.toThrow(
      /failed and must be reopened/,
    );
    await expect(store.loadJournal('a')).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.answerPark(answerOf('a', 'p1'))).rejects.toSatisfy(StoreError.isInstance);
    await store.close();
  });

  it('keeps a failure of a timer flush for the next call, without throwing it anywhere', async () => {
    const store = openStore(newPath(), { flushIntervalMs: 5 });
    await store.migrate();
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    // Probing with a call would flush the queue itself, so let the timer fire first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(store.write({ runId: 'b', records: [] }, { durable: false })).rejects.toThrow(/lost/);
    expect(store.stats().flushes).toBe(0);
  });

  it('writes queued work before an answer, and the answer and its write survive reopening the file', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    await parkRun(store, 'r1', 'p1');
    const disk = peek(path);
    const flushesBefore = store.stats().flushes;
    await store.write({ runId: 'other', records: [record('other', 1)] }, { durable: false });
    await store.answerPark(answerOf('r1', 'p1'));
    expect(disk.journalCount()).toBe(3);
    expect(disk.database.prepare('SELECT status, answered_by FROM parks').get()).toEqual({
      status: 'answered',
      answered_by: 'bob',
    });
    expect(store.stats().flushes).toBe(flushesBefore + 2);
    await store.close();

    const reopened = openStore(path);
    expect(await reopened.getPark('p1')).toMatchObject({ status: 'answered', answeredBy: 'bob' });
    expect((await reopened.loadJournal('r1')).map((stored) => stored.record.type)).toEqual([
      'run-parked',
      'park-answered',
    ]);
    expect((await reopened.getRun('r1'))?.status).toBe('running');
    await expect(reopened.answerPark(answerOf('r1', 'p1', 3))).rejects.toSatisfy(ParkAlreadyAnsweredError.isInstance);
  });

  it('refuses to open a file that is not a database, with a StoreError naming it', () => {
    const path = newPath();
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'this is not a database, just some text that is long enough to have a header');
    expect(() => sqliteStore(path)).toThrow(`cannot open the SQLite database ${path}: file is not a database`);
  });

  it('accepts synchronous normal and refuses an unknown setting', async () => {
    const store = openStore(newPath(), { synchronous: 'normal' });
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: true });
    expect(await store.loadJournal('a')).toHaveLength(1);
    expect(() => sqliteStore(newPath(), { synchronous: 'off' as 'full' })).toThrow(
      "synchronous must be 'full' or 'normal', got off",
    );
  });

  it('writes principals and tokens durably, after the queued writes, and they survive reopening', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    const disk = peek(path);
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    await store.putPrincipal(principal('p1', { name: 'alice', agents: ['support', 'billing'] }));
    expect(disk.journalCount()).toBe(1);
    expect(disk.database.prepare('SELECT id, name, kind, role, agents, created_at FROM principals').all()).toEqual([
      { id: 'p1', name: 'alice', kind: 'user', role: 'user', agents: '["support","billing"]', created_at: 1_000 },
    ]);
    await store.putToken(token('t1', 'p1'));
    await store.revokeToken('t1', 9_000);
    expect(disk.database.prepare('SELECT * FROM tokens').all()).toEqual([
      { id: 't1', principal_id: 'p1', hash: 'hash-t1', created_at: 2_000, revoked_at: 9_000, expires_at: null },
    ]);
    await store.close();

    const reopened = openStore(path);
    expect(await reopened.listPrincipals()).toEqual([
      principal('p1', { name: 'alice', agents: ['support', 'billing'] }),
    ]);
    expect(await reopened.findTokenByHash('hash-t1')).toMatchObject({ id: 't1', revokedAt: 9_000 });
  });

  it('looks tokens up without flushing queued run writes', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.putPrincipal(principal('p1'));
    await store.putToken(token('t1', 'p1'));
    const disk = peek(path);
    const flushes = store.stats().flushes;
    await store.write({ runId: 'a', records: [record('a', 1)] }, { durable: false });
    expect(await store.findTokenByHash('hash-t1')).toMatchObject({ id: 't1' });
    expect(await store.getPrincipal('p1')).toEqual(principal('p1'));
    expect(disk.journalCount()).toBe(0);
    expect(store.stats().flushes).toBe(flushes);
  });

  // The store names the index (INDEXED BY): were it missing or unusable, the listing would throw.
  it('upgrades a database whose runs wait for work: their parks are found by handle, through the index', async () => {
    const path = newPath();
    mkdirSync(dirname(path), { recursive: true });
    const old = new Database(path);
    const before = SQLITE_MIGRATIONS.filter((migration) => migration.version < 11);
    expect(migrateSqlite(old, before)).toEqual(before.map((migration) => migration.version));
    const wait = { ...park('p1', 'r1'), kind: 'external' as const, handle: 'job-7' };
    old
      .prepare("INSERT INTO parks (id, run_id, kind, status, created_at, park) VALUES (?, ?, ?, 'open', ?, ?)")
      .run('p1', 'r1', 'external', wait.createdAt, JSON.stringify(wait));
    old.close();

    const store = openStore(path);
    expect(await store.listParks({ status: 'open', kind: 'external', handle: 'job-7' })).toEqual([
      { ...wait, status: 'open' },
    ]);
  });

  it('upgrades a version 1 database to version 2, keeping its runs', async () => {
    const path = newPath();
    mkdirSync(dirname(path), { recursive: true });
    const old = new Database(path);
    expect(migrateSqlite(old, SQLITE_MIGRATIONS.slice(0, 1))).toEqual([1]);
    old
      .prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('r1', 'support', 'alice', 'completed', 1_000, 1_000, JSON.stringify({ measures: {}, labels: [] }));
    old.close();

    const store = openStore(path);
    await store.putPrincipal(principal('p1'));
    expect(await store.getRun('r1')).toEqual(run('r1', { status: 'completed' }));
    expect(await store.listPrincipals()).toEqual([principal('p1')]);
    expect(peek(path).database.prepare('SELECT version FROM migrations').all()).toEqual(
      SQLITE_MIGRATIONS.map((migration) => ({ version: migration.version })),
    );
  });
});
