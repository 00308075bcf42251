import { StoreError } from '../../errors.js';
import type { SerializedWrite } from '../columns.js';
import { tellCommit } from '../commit-stats.js';
import type { CommitStats } from '../run-store.js';
import { type CommitFailure, CommitThread } from './commit-thread.js';
import { advice } from './sqlite-errors.js';
import type { WalSync } from './wal-sync.js';
import { writeOps } from './write-ops.js';

/** What a {@link SqliteGroupCommit} needs from its store. */
export interface SqliteGroupCommitOptions {
  /** The database file (named in errors; the commit thread opens it). */
  readonly path: string;
  /** Whether large commits go to a commit thread (a database file, `commits: 'background'`). */
  readonly background: boolean;
  /** Makes commits durable on the thread pool (`synchronous: 'full'` in the background), if it does. */
  readonly walSync: WalSync | undefined;
  readonly busyTimeoutMs: number;
  /** How long a non-durable write may wait for a flush, in ms. */
  readonly flushIntervalMs: number;
  /** Flush at once when more journal records than this wait. */
  readonly maxPendingRecords: number;
  /** Commits a `writeOps` list in one transaction on the event loop's connection (throws if it fails). */
  readonly commitHere: (ops: ReadonlyArray<string | number>) => void;
  /** Told of each commit, when any listen. */
  readonly commitListeners: ReadonlySet<(commit: CommitStats) => void>;
  /** The store can't be trusted any more (a commit or a sync failed). */
  readonly fail: (error: StoreError) => void;
  /** Why the store failed, if it did. */
  readonly failure: () => StoreError | undefined;
}

/** The durable writes of the queue share one promise, settled when their flush commits or fails. */
interface Batch {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: StoreError) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: StoreError) => void;
  const promise = new Promise<void>((resolvePromise, rejectPromise) => {
    resolve = resolvePromise;
    reject = rejectPromise;
  });
  return { promise, resolve, reject };
}

/**
 * The SQLite store's queue of run writes and its group commits. A durable write resolves after the
 * flush that holds it is on disk; the flush runs on `setImmediate`, so the durable writes of every
 * run made in the same event-loop turn share one transaction and one fsync. A non-durable write
 * resolves at once and reaches disk with the next flush: a durable write's, a read's (`drain`), a
 * timer's, sooner when more than `maxPendingRecords` records wait, and in the background as soon as
 * `SEND_RECORDS` wait. In the background a flush is committed by the commit thread unless it is
 * small and nothing is under way there (then here, cheaper than the hops), and made durable by
 * `WalSync`. A failed commit or sync fails the store.
 *
 * @example
 * ```ts
 * const commits = new SqliteGroupCommit({ path, background: true, walSync, busyTimeoutMs: 5000,
 *   flushIntervalMs: 20, maxPendingRecords: 5000, commitHere, commitListeners, fail, failure })
 * await commits.enqueue(serializeWrite(write), true) // on disk
 * await commits.drain()                              // everything queued is committed
 * ```
 */
export class SqliteGroupCommit {
  readonly #options: SqliteGroupCommitOptions;
  #queue: SerializedWrite[] = [];
  #queuedRecords = 0;
  /** Queued writes that hold state writes (a read of state waits for them; other reads of state need not). */
  #queuedStateWrites = 0;
  #batch: Batch | undefined;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #commitThread: CommitThread | undefined;
  /** The last group commit sent to the commit thread, and how many sent are not done. */
  #lastFlush: Promise<void> | undefined;
  #flushesInFlight = 0;
  #flushes = 0;
  #threadFlushes = 0;
  #recordsWritten = 0;
  /** Commits made, and how many of them a finished background fsync covers. */
  #commits = 0;
  #syncedCommits = 0;
  /** Journal records committed since a sync last began (see `#syncAhead`). */
  #unsyncedRecords = 0;

  constructor(options: SqliteGroupCommitOptions) {
    this.#options = options;
  }

  /** Write transactions committed, the journal records they held, and how many the commit thread made. */
  get stats(): { readonly flushes: number; readonly recordsWritten: number; readonly threadFlushes: number } {
    return { flushes: this.#flushes, recordsWritten: this.#recordsWritten, threadFlushes: this.#threadFlushes };
  }

  /** Whether a queued write holds state writes. */
  get holdsStateWrites(): boolean {
    return this.#queuedStateWrites > 0;
  }

  /** Queues a checked write; resolves at once, or for a durable one once its flush is on disk. */
  enqueue(write: SerializedWrite, durable: boolean): Promise<void> {
    this.#queue.push(write);
    this.#queuedRecords += write.records.length;
    if (write.state.length > 0) this.#queuedStateWrites += 1;
    if (durable) {
      this.#batch ??= newBatch();
      this.#immediate ??= setImmediate(() => this.#flushInBackground());
      return this.#batch.promise;
    }
    if (this.#queuedRecords > this.#options.maxPendingRecords) {
      try {
        this.#flushQueue();
      } catch (error) {
        return Promise.reject(error);
      }
    } else if (this.#immediate === undefined) {
      if (this.#worthSending()) {
        // Sent now rather than at the timer: what it commits now is not left for the next barrier.
        this.cancelScheduled();
        this.#immediate = setImmediate(() => this.#flushInBackground());
      } else if (this.#timer === undefined) {
        this.#timer = setTimeout(() => this.#flushInBackground(), this.#options.flushIntervalMs);
      }
    }
    return Promise.resolve();
  }

  /**
   * Commits the queue and waits until nothing sent to the commit thread is under way: every write
   * made before the call is committed, and the event loop may use its own connection without
   * waiting for the thread's lock. Rejects (the store failed) if a commit failed.
   */
  async drain(): Promise<void> {
    this.#flushQueue();
    while (this.#flushesInFlight > 0) await this.#lastFlush;
  }

  /**
   * Counts a commit the store made on the event loop's connection, and resolves once it is on disk.
   * `run`: the run writes it held and when it began (`performance.now()`), when it wrote a run's:
   * then it counts as a flush, and commit listeners are told of it once it is on disk, as of a
   * group commit (a park's answer is journaled this way, outside the queue).
   */
  committedHere(run?: { readonly writes: readonly SerializedWrite[]; readonly began: number }): Promise<void> {
    if (run !== undefined) {
      this.#flushes += 1;
      for (const write of run.writes) this.#recordsWritten += write.records.length;
    }
    this.#commits += 1;
    const synced = this.synced();
    if (run === undefined) return synced;
    return synced.then(() => tellCommit(this.#options.commitListeners, performance.now() - run.began, run.writes));
  }

  /**
   * Resolves once every commit made so far is on disk: at once unless commits wait for a background
   * fsync. A failed fsync fails the store (what was acknowledged as non-durable may be lost).
   */
  synced(): Promise<void> {
    const walSync = this.#options.walSync;
    const upTo = this.#commits;
    if (walSync === undefined || this.#syncedCommits >= upTo) return Promise.resolve();
    return walSync.sync().then(
      () => {
        if (upTo > this.#syncedCommits) this.#syncedCommits = upTo;
      },
      (cause: unknown) => {
        const code = String((cause as { code?: unknown }).code ?? '');
        const { path } = this.#options;
        const error = new StoreError(
          `syncing ${path}-wal to disk failed, so writes since the last sync may be lost, including ` +
            `any already acknowledged as non-durable: ${(cause as Error).message}${advice(code, path)}`,
          { cause },
        );
        this.#options.fail(error);
        throw this.#options.failure() ?? error;
      },
    );
  }

  /** Cancels the scheduled flush (for close, after a last `drain`). */
  cancelScheduled(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  /** Lets the commit thread finish what it was sent and end. */
  async close(): Promise<void> {
    this.cancelScheduled();
    await this.#commitThread?.close();
  }

  /** For timers: a failure is kept by the store and reported by its next call. */
  #flushInBackground(): void {
    try {
      this.#flushQueue();
    } catch {
      // Kept by the store; the durable writes of the flush were rejected with it.
    }
  }

  /**
   * Commits the queue in one transaction: on the commit thread in the background (the returned
   * work goes on there; `drain` waits for it), else here. Throws (and fails the store) if a commit
   * made here fails; one made on the thread fails the store when it does.
   */
  #flushQueue(): void {
    this.cancelScheduled();
    if (this.#queue.length === 0) return;
    const writes = this.#queue;
    const records = this.#queuedRecords;
    const batch = this.#batch;
    this.#queue = [];
    this.#queuedRecords = 0;
    this.#queuedStateWrites = 0;
    this.#batch = undefined;
    const began = this.#options.commitListeners.size > 0 ? performance.now() : 0;
    const ops = writeOps(writes);
    // Only commit listeners need the writes once they are ops: the thread's commit does not keep them alive.
    const told = began === 0 ? undefined : writes;
    const count = writes.length;
    // A small commit costs less here than the two thread hops it would take (a barrier of a few runs
    // waits for it); a large one, or one behind a commit under way on the thread (order), goes there.
    if (this.#options.background && (this.#flushesInFlight > 0 || ops.length > INLINE_COMMIT_MAX_VALUES)) {
      const { path, busyTimeoutMs } = this.#options;
      this.#commitThread ??= new CommitThread(path, { busyTimeoutMs });
      this.#flushesInFlight += 1;
      const flushed = this.#commitThread.commit(ops).then(
        () => {
          this.#flushesInFlight -= 1;
          this.#threadFlushes += 1;
          this.#committed(told, records, batch, began);
        },
        (cause: CommitFailure) => {
          this.#flushesInFlight -= 1;
          throw this.#flushFailed(count, records, batch, cause);
        },
      );
      flushed.catch(() => {}); // kept by the store, and told to the durable writes it held
      this.#lastFlush = flushed;
      return;
    }
    try {
      this.#options.commitHere(ops);
    } catch (cause) {
      throw this.#flushFailed(count, records, batch, cause as CommitFailure);
    }
    this.#committed(told, records, batch, began);
  }

  /**
   * Whether enough records wait to be worth a trip to the commit thread (`SEND_RECORDS`): then
   * they go at once instead of at the timer, even while it commits (it commits what came meanwhile
   * in one transaction). Under load the thread then commits continuously, beside the event loop; a
   * barrier (a run's end) finds little left to commit before its fsync; and the writes' JSON leaves
   * the event loop's heap at once instead of surviving its garbage collections in the queue.
   */
  #worthSending(): boolean {
    return this.#options.background && this.#queuedRecords >= SEND_RECORDS && this.#options.failure() === undefined;
  }

  /** Counts a group commit, and resolves its durable writes once it is on disk. `told`: the writes, for commit listeners. */
  #committed(
    told: readonly SerializedWrite[] | undefined,
    records: number,
    batch: Batch | undefined,
    began: number,
  ): void {
    this.#flushes += 1;
    this.#commits += 1;
    this.#recordsWritten += records;
    if (batch === undefined) {
      if (told) tellCommit(this.#options.commitListeners, performance.now() - began, told);
      this.#syncAhead(records);
      return;
    }
    this.#unsyncedRecords = 0;
    // Durable writes are acknowledged once on disk: the commit's fsync, when made in the background, included.
    this.synced().then(
      () => {
        if (told) tellCommit(this.#options.commitListeners, performance.now() - began, told);
        batch.resolve();
      },
      (error: StoreError) => batch.reject(error),
    );
  }

  /**
   * Starts a sync nobody waits for once many records were committed without one, when none is under
   * way: the next barrier (a run's end, a call's intent) then has little left to put on disk, instead
   * of every run's steps since the last one (64 busy runs wrote ~12 MB between their ends: a barrier's
   * fsync took ~20 ms, and the event loop sat idle a fifth of the time). A failed sync fails the store.
   */
  #syncAhead(records: number): void {
    this.#unsyncedRecords += records;
    const walSync = this.#options.walSync;
    if (this.#unsyncedRecords < SYNC_AHEAD_RECORDS || walSync === undefined || walSync.busy) return;
    this.#unsyncedRecords = 0;
    this.synced().catch(() => {}); // kept by the store
  }

  /** A group commit failed: what it held is lost, so the store fails, and its durable writes reject. */
  #flushFailed(writes: number, records: number, batch: Batch | undefined, cause: CommitFailure): StoreError {
    const code = String(cause.code ?? '');
    const { path } = this.#options;
    const error = new StoreError(
      `writing ${writes} queued writes (${records} journal records) to ${path} failed, ` +
        `so they are lost, including any already acknowledged as non-durable: ${cause.message}` +
        advice(code, path),
      { cause },
    );
    this.#options.fail(error);
    batch?.reject(error);
    return error;
  }
}

/**
 * In the background mode, a group commit of at most this many values (statements and their
 * parameters: ~100 journal records) is made on the event loop, at `NORMAL` (its fsync still made on
 * the thread pool): a few hundred µs at most, less than handing it to the commit thread and back.
 */
const INLINE_COMMIT_MAX_VALUES = 400;

/**
 * Journal records (~300 bytes each, ~3 a step) worth sending to the commit thread at once (see
 * `#worthSending`): fewer, and the hop costs more than it saves.
 */
const SEND_RECORDS = 200;

/** Journal records (~300 bytes each) committed without a sync after which one is started ahead of any barrier. */
const SYNC_AHEAD_RECORDS = 2_000;
