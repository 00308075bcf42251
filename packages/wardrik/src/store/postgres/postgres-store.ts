import type * as pg from 'pg';
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
import type { CommitStats } from '../run-store.js';
import type { Store } from '../store.js';
import { PostgresArtifacts } from './postgres-artifacts.js';
import { PostgresAuth } from './postgres-auth.js';
import { PostgresExecutor } from './postgres-executor.js';
import { PostgresLeases } from './postgres-leases.js';
import { PostgresMemories } from './postgres-memories.js';
import { PostgresOAuth } from './postgres-oauth.js';
import type { PostgresStoreOptions, PostgresStoreStats } from './postgres-options.js';
import { PostgresRetention } from './postgres-retention.js';
import { PostgresRuns } from './postgres-runs.js';
import { PostgresSessions } from './postgres-sessions.js';
import { PostgresWorkers } from './postgres-workers.js';

export type { PostgresStoreOptions, PostgresStoreStats } from './postgres-options.js';

/** The methods of each store interface, each forwarded to the part that implements it (see `delegate`). */
export interface PostgresStore extends Store {}

/**
 * The store for many Wardrik nodes sharing one PostgreSQL database, through a `pg` pool (and a
 * connection of its own for flushes).
 *
 * - **Group commit.** Writes are queued; the durable writes of every run made in the same turn of
 *   the event loop are committed together in one statement (one transaction, one WAL flush), and
 *   resolve after COMMIT. Non-durable writes resolve at once and ride with the next flush (or
 *   after `flushIntervalMs`). One flush is in flight at a time, on a connection of its own (not
 *   the pool's). Reads of run data first wait for every write made before them; principal and
 *   token reads never wait.
 * - **Leases and fencing.** Leases live in their own table and are judged by the database's clock
 *   (`now()`). Every write naming a lease is applied only if that lease is still the run's (node
 *   and epoch), checked with the lease row locked in the transaction that applies it; a write
 *   that fails the check is refused alone with `LeaseLostError`, the rest of its batch commits.
 *   A non-durable write refused that way (it was acknowledged already) makes every later write
 *   naming its lease reject at once, and the next durable write of the run is refused anyway.
 * - **Signals.** `requested` (an answer or cancel waits), `claimable` (a lease was released while
 *   the run needs driving) and `appended` (once per run per flush, with its last seq) are sent
 *   with NOTIFY inside the transaction that makes the change, so they arrive at commit, on every
 *   node listening (`onRunSignal`). An expired lease sends nothing: nodes poll `claimRuns`.
 * - **Failure (crash-only).** If a flush fails (the server is gone, a constraint), the writes it
 *   held are lost, acknowledged non-durable ones included, so the store fails: its `onFailure`
 *   listeners hear it once and every later call throws `StoreError`. The runtime stops, the
 *   process exits and restarts, and the runs continue from what is committed, on whichever node
 *   claims them. Reads and lease calls are not writes of runs: a dropped connection fails that call
 *   only (reads are tried again a few times first).
 *
 * Messages name the server by its URL with the password replaced by `***`.
 *
 * @example
 * ```ts
 * const store = postgresStore('postgres://wardrik:secret@db.internal:5432/wardrik', { schema: 'wardrik' });
 * await store.migrate();
 * const lease = await store.claimRun('run_1', { node: 'node-a', leaseMs: 5_000 });
 * if (lease) {
 *   const run: RunRow = {
 *     id: 'run_1', agent: 'support', principal: 'alice', status: 'running',
 *     createdAt: Date.now(), updatedAt: Date.now(), measures: {}, labels: [],
 *   };
 *   await store.write({ runId: 'run_1', run, records: [], lease }, { durable: true });
 * }
 * await store.close();
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above names the methods its static block gives it (delegate)
export class PostgresStore {
  /** The server's URL as messages show it: without its password. */
  readonly location: string;
  /** The schema of the store's tables, if it has one of its own. */
  readonly schema: string | undefined;
  /** The pool, the group commit and its flush connection, signals, failure and closing. */
  readonly #executor: PostgresExecutor;
  readonly #runs: PostgresRuns;
  readonly #leases: PostgresLeases;
  readonly #auth: PostgresAuth;
  readonly #workers: PostgresWorkers;
  readonly #sessions: PostgresSessions;
  readonly #memories: PostgresMemories;
  readonly #artifacts: PostgresArtifacts;
  readonly #retention: PostgresRetention;
  readonly #oauth: PostgresOAuth;

  static {
    delegate(PostgresStore, (store) => store.#runs, RUN_METHODS);
    delegate(PostgresStore, (store) => store.#leases, LEASE_METHODS);
    delegate(PostgresStore, (store) => store.#auth, AUTH_METHODS);
    delegate(PostgresStore, (store) => store.#workers, WORKER_METHODS);
    delegate(PostgresStore, (store) => store.#sessions, SESSION_METHODS);
    delegate(PostgresStore, (store) => store.#memories, MEMORY_METHODS);
    delegate(PostgresStore, (store) => store.#artifacts, ARTIFACT_METHODS);
    delegate(PostgresStore, (store) => store.#retention, RETENTION_METHODS);
    delegate(PostgresStore, (store) => store.#oauth, OAUTH_METHODS);
  }

  constructor(connection: string | pg.PoolConfig, options: PostgresStoreOptions = {}) {
    const executor = new PostgresExecutor(connection, options);
    this.#executor = executor;
    this.location = executor.location;
    this.schema = executor.schema;
    this.#runs = new PostgresRuns(executor);
    this.#leases = new PostgresLeases(executor);
    this.#auth = new PostgresAuth(executor);
    this.#workers = new PostgresWorkers(executor);
    this.#sessions = new PostgresSessions(executor);
    this.#memories = new PostgresMemories(executor);
    this.#artifacts = new PostgresArtifacts(executor);
    this.#retention = new PostgresRetention(executor);
    this.#oauth = new PostgresOAuth(executor);
  }

  /** Creates or upgrades the schema (see `migratePostgres`). The other methods do it on first use. */
  async migrate(): Promise<void> {
    this.#executor.checkUsable();
    await this.#executor.whenReady();
  }

  /**
   * Resolves once this store hears other nodes' signals: `onRunSignal` starts listening on a
   * connection of its own, and this waits for its LISTEN (at once if nobody listens).
   */
  listening(): Promise<void> {
    return this.#executor.signals.listening();
  }

  async ping(): Promise<void> {
    await this.#executor.call('checking that the store answers', (client) => client.query('SELECT 1'), {
      retry: false,
    });
  }

  /** Flushes what is queued, stops listening and closes the pool. Calling it again does nothing. */
  close(): Promise<void> {
    return this.#executor.close();
  }

  /** How many write transactions committed, the journal records they held, and the writes refused for a lost lease. */
  stats(): PostgresStoreStats {
    return this.#executor.stats();
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    return this.#executor.onFailure(listener);
  }

  onCommit(listener: (commit: CommitStats) => void): () => void {
    return this.#executor.onCommit(listener);
  }

  /** Nothing to lock: nodes share this store, and claim its runs one by one (leases). */
  async lockForRuntime(): Promise<void> {
    this.#executor.checkUsable();
  }
}

/**
 * Opens a PostgreSQL store on a URL or a `pg` pool configuration. Nothing connects until the first
 * call; `migrate()` creates or upgrades the schema and throws a `StoreError` naming the URL
 * (without its password) if the server cannot be reached.
 *
 * @example
 * ```ts
 * const store = postgresStore(process.env.WARDRIK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/wardrik', {
 *   schema: 'wardrik',
 * });
 * await store.migrate();
 * ```
 */
export function postgresStore(connection: string | pg.PoolConfig, options?: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(connection, options);
}
