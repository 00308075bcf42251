import type { StoreError } from '../../errors.js';
import {
  ARTIFACT_METHODS,
  AUTH_METHODS,
  delegate,
  LEASE_METHODS,
  MEMORY_METHODS,
  OAUTH_METHODS,
  RETENTION_METHODS,
  RUN_METHODS,
  SESSION_METHODS,
  WORKER_METHODS,
} from '../parts.js';
import { ProcessLeaseStore } from '../process-lease-store.js';
import { ProcessLeases } from '../process-leases.js';
import { ProcessSweepLock } from '../process-sweep-lock.js';
import { ProcessWorkerStore } from '../process-worker-store.js';
import type { CommitStats } from '../run-store.js';
import type { Store } from '../store.js';
import { SqliteArtifactStore } from './sqlite-artifacts.js';
import { SqliteAuth } from './sqlite-auth.js';
import { SqliteExecutor } from './sqlite-executor.js';
import { SqliteMemoryIndex } from './sqlite-memories.js';
import { SqliteOAuthStore } from './sqlite-oauth.js';
import type { SqliteStoreOptions, SqliteStoreStats } from './sqlite-options.js';
import { SqliteRetentionStore } from './sqlite-retention.js';
import { SqliteRuns } from './sqlite-runs.js';
import { SqliteSessionStore } from './sqlite-sessions.js';

export type { SqliteStoreOptions, SqliteStoreStats } from './sqlite-options.js';

/** The methods of each store interface, each forwarded to the part that implements it (see `delegate`). */
export interface SqliteStore extends Store {}

/**
 * The embedded store: one SQLite file (WAL, `synchronous=FULL` by default) through better-sqlite3.
 *
 * Writes are queued and flushed together in one transaction (group commit). better-sqlite3 is
 * synchronous, so the flushes are made by a worker thread with its own connection
 * (`CommitThread`), and at `synchronous: 'full'` the fsync that makes them durable is made on the
 * thread pool (`WalSync`): neither blocks the event loop (`commits: 'inline'` makes both here).
 * A durable write resolves after the flush that contains it is on disk; the flush runs on
 * `setImmediate`, so the durable writes of every run made in the same event-loop turn share one
 * transaction and one fsync. A non-durable write resolves at once and reaches disk with the next
 * flush: a durable write's, a read's, a timer's (`flushIntervalMs`), sooner when more than
 * `maxPendingRecords` records wait, and in the background as soon as 200 records wait (under load
 * the commit thread commits continuously, beside the event loop). If a flush fails, everything it
 * held is lost (non-durable writes included, which were already acknowledged), so the store fails:
 * the durable writes of that flush and every later call reject with a `StoreError` carrying the
 * cause. Reopen it, and recover the runs from what is on disk.
 *
 * @example
 * ```ts
 * const store = sqliteStore('data/wardrik.db');
 * await store.migrate();
 * const run: RunRow = {
 *   id: 'r1', agent: 'support', principal: 'alice', status: 'running',
 *   createdAt: Date.now(), updatedAt: Date.now(), measures: {}, labels: [],
 * };
 * // Many runs writing in the same event-loop turn share one commit.
 * await store.write({ runId: 'r1', run, records: [] }, { durable: true });
 * console.log(await store.getRun('r1'), store.stats()); // { flushes: 1, recordsWritten: 0 }
 * await store.close();
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above names the methods its static block gives it (delegate)
export class SqliteStore {
  /** The file's path. */
  readonly path: string;
  /** The database handle, its queue of run writes and group commits, failure and closing. */
  readonly #executor: SqliteExecutor;
  readonly #runs: SqliteRuns;
  /** One process holds the file (`lockForRuntime`), so its leases live in memory and never expire. */
  readonly #leases: ProcessLeaseStore;
  readonly #auth: SqliteAuth;
  /**
   * One process holds the file, so its one node's worker registry lives in memory too (it has no
   * other nodes to route calls to).
   */
  readonly #workers: ProcessWorkerStore;
  readonly #sessions: SqliteSessionStore;
  readonly #memories: SqliteMemoryIndex;
  readonly #artifacts: SqliteArtifactStore;
  /** Retention; one process holds the file, so the sweep's lock lives in memory. */
  readonly #retention: SqliteRetentionStore;
  readonly #oauth: SqliteOAuthStore;

  static {
    delegate(SqliteStore, (store) => store.#runs, RUN_METHODS);
    delegate(SqliteStore, (store) => store.#leases, LEASE_METHODS);
    delegate(SqliteStore, (store) => store.#auth, AUTH_METHODS);
    delegate(SqliteStore, (store) => store.#workers, WORKER_METHODS);
    delegate(SqliteStore, (store) => store.#sessions, SESSION_METHODS);
    delegate(SqliteStore, (store) => store.#memories, MEMORY_METHODS);
    delegate(SqliteStore, (store) => store.#artifacts, ARTIFACT_METHODS);
    delegate(SqliteStore, (store) => store.#retention, RETENTION_METHODS);
    delegate(SqliteStore, (store) => store.#oauth, OAUTH_METHODS);
  }

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    const executor = new SqliteExecutor(path, options);
    this.#executor = executor;
    const check = () => executor.checkUsable();
    const leases = new ProcessLeases({ expire: false });
    const runs = new SqliteRuns(executor, leases);
    this.#runs = runs;
    this.#leases = new ProcessLeaseStore(leases, {
      check,
      runsToDrive: () => runs.runsToDrive(),
      needsDriving: (runId) => runs.hasRequests(runId),
    });
    this.#auth = new SqliteAuth(executor);
    this.#workers = new ProcessWorkerStore({ check });
    this.#sessions = new SqliteSessionStore(executor);
    this.#memories = new SqliteMemoryIndex(executor);
    this.#artifacts = new SqliteArtifactStore(executor);
    this.#retention = new SqliteRetentionStore(executor, leases, new ProcessSweepLock());
    this.#oauth = new SqliteOAuthStore(executor);
  }

  /** Creates or upgrades the schema. The other methods do it on first use, so calling it is optional. */
  async migrate(): Promise<void> {
    this.#executor.migrate();
  }

  async ping(): Promise<void> {
    const executor = this.#executor;
    executor.readNow('checking that the store answers', () => executor.listStatement('SELECT 1').get());
  }

  /** Flushes what is queued, then closes the file once it is on disk. Calling it again does nothing. */
  async close(): Promise<void> {
    return this.#executor.close();
  }

  /** How many write transactions committed, and how many journal records they held. */
  stats(): SqliteStoreStats {
    return this.#executor.stats();
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    return this.#executor.onFailure(listener);
  }

  onCommit(listener: (commit: CommitStats) => void): () => void {
    return this.#executor.onCommit(listener);
  }

  /**
   * Takes the lock file `<path>.lock` for this process (see `RuntimeLock`), so that a second process
   * on the same file fails at once, naming the holder, instead of recovering runs this one drives.
   * An in-memory database needs none.
   */
  async lockForRuntime(): Promise<void> {
    this.#executor.lockForRuntime();
  }
}

/**
 * Opens (creating it and its directory if missing) the SQLite store at `path`.
 *
 * @example
 * ```ts
 * const store = sqliteStore('data/wardrik.db', { synchronous: 'normal' });
 * await store.migrate();
 * ```
 */
export function sqliteStore(path: string, options?: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(path, options);
}
