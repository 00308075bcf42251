import type { SyncFile } from './wal-sync.js';

// Apart from the executor: what users see of the SQLite store names no type of better-sqlite3
// (an app need not install its types).

/** Options of `sqliteStore` (`SqliteStore`). */
export interface SqliteStoreOptions {
  /**
   * `full` (default): a commit is on disk when it returns, even across a power loss.
   * `normal`: in WAL mode, commits survive a crash of the process but the last ones may be lost
   * with the machine; much cheaper.
   */
  readonly synchronous?: 'full' | 'normal';
  /**
   * How long a non-durable write may wait for a flush, in ms. Default 20. With `commits:
   * 'background'`, 200 waiting records are sent to the commit thread at once anyway.
   */
  readonly flushIntervalMs?: number;
  /** Flush at once when more journal records than this are queued. Default 5000. */
  readonly maxPendingRecords?: number;
  /** How long to wait for another connection's write lock, in ms. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * Where commits are made. `background` (default, for a database file): group commits by a
   * worker thread with its own connection (`CommitThread`), and at `synchronous: 'full'` the fsync
   * that makes them durable on the thread pool (`WalSync`), so the event loop goes on serving
   * meanwhile. `inline`: on the event loop, with SQLite's own `FULL` (kept for comparison in
   * benchmarks).
   */
  readonly commits?: 'background' | 'inline';
  /** For tests: how the background fsync reaches the disk (default `fs.fdatasync`). */
  readonly syncFile?: SyncFile;
}

/** Counters for tests and benchmarks. */
export interface SqliteStoreStats {
  /** Write transactions committed: group flushes and park answers. */
  readonly flushes: number;
  /** Journal records committed. */
  readonly recordsWritten: number;
  /** Background fsyncs of the `-wal` file finished (0 unless commits are made in the background at FULL). */
  readonly syncs: number;
  /** Of `flushes`, those the commit thread made (large ones, in the background mode). */
  readonly threadFlushes: number;
}
