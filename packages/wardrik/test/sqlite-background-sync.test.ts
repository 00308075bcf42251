import { fdatasync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../src/errors.js';
import type { StoredRecord } from '../src/journal/records.js';
import { type SqliteStore, type SqliteStoreOptions, sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { SyncFile } from '../src/store/sqlite/wal-sync.js';
import type { RunRow } from '../src/store/store.js';

// At synchronous FULL (the default) the SQLite store commits without an fsync and syncs the -wal
// file on the thread pool before durable writes resolve: these tests hold that fsync (a real
// fdatasync, made when the test lets it) to check what waits for it and what does not.

const root = mkdtempSync(join(tmpdir(), 'wardrik-wal-sync-'));
let count = 0;
const opened: Array<{ close(): unknown }> = [];

afterEach(async () => {
  for (const each of opened.splice(0)) await each.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function newPath(): string {
  count += 1;
  return join(root, `case-${count}`, 'wardrik.db');
}

function record(runId: string, seq: number): StoredRecord {
  return { runId, seq, record: { type: 'call-started', v: 1, at: 1_000 + seq, callId: `c${seq}` } as never };
}

function row(id: string): RunRow {
  return {
    id,
    agent: 'support',
    principal: 'alice',
    status: 'running',
    createdAt: 1_000,
    updatedAt: 1_000,
    measures: {},
    labels: [],
  };
}

/**
 * A real fdatasync that waits for the test to let it go. `started` counts the syncs begun, each
 * with the number of journal records committed (seen by another connection) when it began.
 */
function heldSync(path: string) {
  const started: number[] = [];
  const waiting: Array<() => void> = [];
  let holding = true;
  const syncFile: SyncFile = (fd, callback) => {
    started.push(committedRecords(path));
    if (holding) waiting.push(() => fdatasync(fd, callback));
    else fdatasync(fd, callback);
  };
  return {
    syncFile,
    started,
    /** Lets the oldest held sync reach the disk. */
    release: () => waiting.shift()?.(),
    /** Lets every sync through from now on (so that the store can close). */
    free: () => {
      holding = false;
      for (const each of waiting.splice(0)) each();
    },
    get held() {
      return waiting.length;
    },
  };
}

function committedRecords(path: string): number {
  const database = new Database(path, { fileMustExist: true, readonly: true });
  try {
    return (database.prepare('SELECT count(*) AS count FROM journal').get() as { count: number }).count;
  } finally {
    database.close();
  }
}

function openStore(path: string, options: SqliteStoreOptions): SqliteStore {
  const store = sqliteStore(path, options);
  opened.push(store);
  return store;
}

/** Whether `promise` has settled, after letting pending callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 30));
  return done;
}

describe('SqliteStore at synchronous FULL: the fsync in the background', () => {
  it('acknowledges a durable write only after an fsync that began after its commit', async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = openStore(path, { syncFile: sync.syncFile });
    await store.migrate();
    const written = store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: true });
    await vi.waitFor(() => expect(sync.held).toBe(1));
    // Committed (another connection sees it) and being synced, but not acknowledged yet.
    expect(committedRecords(path)).toBe(1);
    expect(sync.started).toEqual([1]);
    expect(await settled(written)).toBe(false);
    sync.release();
    await written;
    expect(store.stats()).toEqual({ flushes: 1, recordsWritten: 1, syncs: 1, threadFlushes: 0 });
  });

  it('makes writes committed while a sync is under way wait for the next one, which serves them all', async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = openStore(path, { syncFile: sync.syncFile });
    await store.migrate();
    const first = store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: true });
    await vi.waitFor(() => expect(sync.held).toBe(1));
    // Two more durable writes, each in its own commit, while the first fsync is held.
    const second = store.write({ runId: 'a', records: [record('a', 2)] }, { durable: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = store.write({ runId: 'a', records: [record('a', 3)] }, { durable: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(committedRecords(path)).toBe(3);
    expect(sync.started).toEqual([1]); // syncs never overlap

    sync.release();
    await first;
    // The first fsync began before the later commits: it acknowledges none of them.
    await vi.waitFor(() => expect(sync.held).toBe(1));
    expect(await settled(second)).toBe(false);
    expect(await settled(third)).toBe(false);
    expect(sync.started).toEqual([1, 3]); // one more fsync, for both

    sync.release();
    await Promise.all([second, third]);
    expect(store.stats()).toEqual({ flushes: 3, recordsWritten: 3, syncs: 2, threadFlushes: 0 });
  });

  it('lets a read return only what is on disk: it waits for the fsync of what it read', async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = openStore(path, { syncFile: sync.syncFile, flushIntervalMs: 60_000 });
    await store.migrate();
    await store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: false });
    const read = store.getRun('a');
    await vi.waitFor(() => expect(sync.held).toBe(1));
    expect(await settled(read)).toBe(false);
    expect(sync.started).toEqual([1]); // the read committed the queue, then asked for its fsync
    sync.release();
    expect((await read)?.status).toBe('running');
    // Nothing new since: the next read needs no fsync.
    expect((await store.loadJournal('a')).length).toBe(1);
    expect(store.stats().syncs).toBe(1);
  });

  it('does not make a non-durable write wait, nor fsync for it alone', async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = openStore(path, { syncFile: sync.syncFile, flushIntervalMs: 5 });
    await store.migrate();
    await store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: false });
    await vi.waitFor(() => expect(committedRecords(path)).toBe(1)); // committed by the interval's flush
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sync.started).toEqual([]);
    sync.free();
  });

  it('syncs ahead once 2,000 records were committed without a sync, so that the next barrier has little left to sync', async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = openStore(path, { syncFile: sync.syncFile, flushIntervalMs: 5 });
    await store.migrate();
    const write = (runId: string, from: number, count: number) =>
      store.write(
        { runId, run: row(runId), records: Array.from({ length: count }, (_, index) => record(runId, from + index)) },
        { durable: false },
      );
    await write('a', 1, 1_999);
    await vi.waitFor(() => expect(committedRecords(path)).toBe(1_999), { timeout: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sync.started).toEqual([]); // not yet: one record short
    await write('b', 1, 1);
    await vi.waitFor(() => expect(sync.started).toEqual([2_000]), { timeout: 30_000 }); // nobody waits for it
    // A barrier during that sync waits for the next one, which begins after its commit.
    const barrier = store.write({ runId: 'c', run: row('c'), records: [record('c', 1)] }, { durable: true });
    expect(await settled(barrier)).toBe(false);
    sync.release();
    await vi.waitFor(() => expect(sync.started).toEqual([2_000, 2_001]), { timeout: 30_000 });
    expect(await settled(barrier)).toBe(false);
    sync.free();
    await barrier;
  });

  it('hands the commit thread 200 waiting records at once, without waiting for the timer, even while it commits; fewer wait for it', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    const write = (from: number, count: number) =>
      store.write(
        { runId: 'a', run: row('a'), records: Array.from({ length: count }, (_, index) => record('a', from + index)) },
        { durable: false },
      );
    await write(1, 150);
    await write(151, 49);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(committedRecords(path)).toBe(0); // 199: they wait for the timer (a minute away) or a barrier
    await write(200, 1);
    await vi.waitFor(() => expect(committedRecords(path)).toBe(200), { timeout: 30_000 });
    // The rows are visible before the thread's reply reaches the event loop: wait for the reply too.
    await vi.waitFor(() => expect(store.stats().flushes).toBe(1), { timeout: 30_000 });
    // Batches sent one after another while the thread commits: none waits for the timer.
    for (let batch = 0; batch < 5; batch++) {
      await write(201 + batch * 200, 200);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await vi.waitFor(() => expect(committedRecords(path)).toBe(1_200), { timeout: 30_000 });
    await vi.waitFor(() => expect(store.stats().flushes).toBe(6), { timeout: 30_000 });
    expect(store.stats().threadFlushes).toBe(6);
  });

  it('fails the store when an fsync fails: the durable writes waiting reject, and so does every later call', async () => {
    const path = newPath();
    const failing: SyncFile = (_fd, callback) =>
      callback(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const store = openStore(path, { syncFile: failing });
    await store.migrate();
    const failures: StoreError[] = [];
    store.onFailure((error) => failures.push(error));
    const written = store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: true });
    const error = await written.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(StoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /syncing .*wardrik\.db-wal to disk failed, so writes since the last sync may be lost/,
    );
    expect(failures).toHaveLength(1);
    await expect(store.getRun('a')).rejects.toThrow(/failed and must be reopened/);
    await expect(store.write({ runId: 'b', records: [record('b', 1)] }, { durable: false })).rejects.toThrow(
      /failed and must be reopened/,
    );
  });

  it('waits on close for the fsync of what it flushes', async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = sqliteStore(path, { syncFile: sync.syncFile, flushIntervalMs: 60_000 });
    await store.migrate();
    await store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: false });
    const closed = store.close();
    await vi.waitFor(() => expect(sync.held).toBe(1));
    expect(await settled(closed)).toBe(false);
    sync.release();
    await closed;
    expect(store.stats().syncs).toBe(1);
    await expect(store.getRun('a')).rejects.toThrow(/is closed/);
  });

  it("with commits: 'inline', commits on the event loop with SQLite's own FULL (no background sync)", async () => {
    const path = newPath();
    const sync = heldSync(path);
    const store = openStore(path, { commits: 'inline', syncFile: sync.syncFile });
    await store.migrate();
    await store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: true });
    expect(sync.started).toEqual([]);
    expect(store.stats()).toEqual({ flushes: 1, recordsWritten: 1, syncs: 0, threadFlushes: 0 });
  });

  it('makes a large group commit on the commit thread, and every commit behind one there too (order kept)', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000, maxPendingRecords: 150 });
    await store.migrate();
    const many = Array.from({ length: 151 }, (_, index) => record('a', index + 1));
    // Over maxPendingRecords: flushed at once, to the thread (151 records is a large commit).
    await store.write({ runId: 'a', run: row('a'), records: many }, { durable: false });
    // Small, and made while the large one is under way: it goes to the thread behind it.
    const small = store.write({ runId: 'a', records: [record('a', 152)] }, { durable: true });
    await small;
    expect(committedRecords(path)).toBe(152);
    expect(store.stats()).toMatchObject({ flushes: 2, recordsWritten: 152, threadFlushes: 2 });
    // With nothing under way, a small commit is made on the event loop.
    await store.write({ runId: 'a', records: [record('a', 153)] }, { durable: true });
    expect(store.stats()).toMatchObject({ flushes: 3, threadFlushes: 2 });
    expect((await store.loadJournal('a')).map((each) => each.seq)).toEqual(
      Array.from({ length: 153 }, (_, index) => index + 1),
    );
  });

  it('fails the store when a commit on the thread fails (a duplicate seq): its writes reject, naming the cause', async () => {
    const path = newPath();
    const store = openStore(path, { flushIntervalMs: 60_000 });
    await store.migrate();
    await store.write({ runId: 'a', run: row('a'), records: [record('a', 1)] }, { durable: true });
    const many = Array.from({ length: 150 }, (_, index) => record('a', index + 1)); // seq 1 again
    const error = await store.write({ runId: 'a', records: many }, { durable: true }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(StoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /writing 1 queued writes \(150 journal records\) to .* failed, so they are lost.*UNIQUE constraint failed: journal.run_id, journal.seq/,
    );
    expect(store.stats().threadFlushes).toBe(0);
    await expect(store.getRun('a')).rejects.toThrow(/failed and must be reopened/);
    expect(committedRecords(path)).toBe(1); // nothing of the failed commit
  });

  it('refuses a commit mode it does not know, naming it', () => {
    expect(() => sqliteStore(newPath(), { commits: 'sometimes' as never })).toThrow(
      /commits must be 'background' or 'inline', got sometimes/,
    );
  });
});
