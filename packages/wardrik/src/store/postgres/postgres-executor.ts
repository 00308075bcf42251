import { randomUUID } from 'node:crypto';
import { WardrikError } from '@wardrik/core';
import type * as pg from 'pg';
import { StoreError } from '../../errors.js';
import type { SerializedWrite } from '../columns.js';
import { tellCommit } from '../commit-stats.js';
import type { CommitStats } from '../run-store.js';
import type { Lease } from '../store.js';
import { leaseLost, type SignalTarget, writeBatch } from './batch-write.js';
import {
  checkSchemaName,
  describeConfig,
  pgModule,
  poolConfig,
  secretsOf,
  sessionSetup,
  signalChannel,
} from './connection.js';
import { GroupCommit, type Outcomes } from './group-commit.js';
import { migratePostgres } from './migrations.js';
import { isConflict, isStatementError, isTransient, postgresFailure, scrub, type Target } from './postgres-errors.js';
import type { PostgresStoreOptions, PostgresStoreStats } from './postgres-options.js';
import { Signals } from './signals.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function leaseKey(lease: Lease): string {
  return `${lease.runId}\u0000${lease.node}\u0000${lease.epoch}`;
}

/** At most this many lost leases are remembered (to refuse their later writes at once). */
const LOST_LEASES_KEPT = 10_000;

/**
 * What every part of the PostgreSQL store runs its queries through: the pool (each connection's
 * session set up), the migration on first use, the group commit and its flush connection, the
 * signals, lost leases, and the store's failure and closing. `call` runs a query on a pooled
 * connection (tried again after a dropped connection where that is safe), `read` after every write
 * this node queued is committed.
 */
export class PostgresExecutor {
  /** The server's URL as messages show it: without its password. */
  readonly location: string;
  /** The schema of the store's tables, if it has one of its own. */
  readonly schema: string | undefined;
  readonly target: Target;
  readonly #pool: pg.Pool;
  readonly #config: pg.PoolConfig;
  /** The connection flushes use (one is in flight at a time): opened on the first flush, again after it breaks. */
  #flusher: Promise<pg.Client> | undefined;
  readonly #setup: string;
  readonly #readRetries: number;
  readonly signalTarget: SignalTarget;
  readonly signals: Signals;
  readonly group: GroupCommit<SerializedWrite>;
  /** Connections whose session setup (search path, synchronous_commit) has run. */
  readonly #prepared = new WeakSet<pg.PoolClient>();
  readonly #lostLeases = new Set<string>();
  readonly #failureListeners = new Set<(error: StoreError) => void>();
  readonly #commitListeners = new Set<(commit: CommitStats) => void>();
  #ready: Promise<void> | undefined;
  #failure: StoreError | undefined;
  #closed = false;
  #flushes = 0;
  #recordsWritten = 0;
  #writesRefused = 0;

  constructor(connection: string | pg.PoolConfig, options: PostgresStoreOptions = {}) {
    const config = poolConfig(connection);
    this.target = { location: describeConfig(config), secrets: secretsOf(config) };
    this.location = this.target.location;
    this.schema = options.schema === undefined ? undefined : checkSchemaName(options.schema);
    const synchronousCommit = options.synchronousCommit ?? true;
    if (typeof synchronousCommit !== 'boolean') {
      throw new StoreError(`synchronousCommit must be true or false, got ${String(synchronousCommit)}`);
    }
    this.#setup = sessionSetup(this.schema, synchronousCommit);
    this.#readRetries = options.readRetries ?? 3;
    this.#config = config;
    this.#pool = new (pgModule().Pool)(config);
    // An idle connection that breaks (a server restart) is dropped by the pool; the next call opens another.
    this.#pool.on('error', () => {});
    // A connection that breaks while checked out emits 'error' besides failing its query: without a
    // listener that would crash the process. The query's rejection is what the store acts on.
    this.#pool.on('connect', (client) => client.on('error', () => {}));
    this.signalTarget = { channel: signalChannel(this.schema), source: randomUUID() };
    this.signals = new Signals({ ...this.signalTarget, config, setup: this.#setup });
    this.group = new GroupCommit<SerializedWrite>({
      commit: (writes) => this.#commitBatch(writes),
      flushIntervalMs: options.flushIntervalMs ?? 20,
      maxPendingRecords: options.maxPendingRecords ?? 5000,
      failed: (cause, lost) => this.#flushFailed(cause, lost),
      refusedAfterAcknowledged: (write) => {
        if (write.lease) this.#rememberLost(write.lease);
      },
    });
  }

  checkUsable(): void {
    if (this.#closed) throw new StoreError(`the store ${this.location} is closed`);
    if (this.#failure !== undefined) {
      throw new StoreError(`the store ${this.location} failed and must be reopened: ${this.#failure.message}`, {
        cause: this.#failure,
      });
    }
  }

  /** The store can't be trusted any more: keep why, refuse every later call, tell the listeners once. */
  fail(error: StoreError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    for (const listener of [...this.#failureListeners]) {
      try {
        listener(error);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  #flushFailed(cause: unknown, lost: { writes: number; records: number }): StoreError {
    const detail = scrub(cause instanceof Error ? cause.message : String(cause), this.target.secrets);
    const error = new StoreError(
      `writing ${lost.writes} queued writes (${lost.records} journal records) to PostgreSQL ${this.location} ` +
        `failed, so they are lost, including any already acknowledged as non-durable: ${detail}`,
      { cause },
    );
    this.fail(error);
    return error;
  }

  #rememberLost(lease: Lease): void {
    this.#lostLeases.add(leaseKey(lease));
    if (this.#lostLeases.size > LOST_LEASES_KEPT) {
      const oldest = this.#lostLeases.values().next().value;
      if (oldest !== undefined) this.#lostLeases.delete(oldest);
    }
  }

  /** Migrates once per store (again after a failed try), then opens the flush connection. */
  whenReady(): Promise<void> {
    this.#ready ??= this.call('migrating the schema', (client) => migratePostgres(client, this.#migrateOptions()), {
      retry: true,
      internal: true,
    }).then(
      () => {
        // The flush connection opens now, so that the first flush does not wait for it.
        if (!this.#closed) void this.#flushConnection();
      },
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  #migrateOptions() {
    return this.schema === undefined ? { location: this.location } : { location: this.location, schema: this.schema };
  }

  /** Waits for every write queued so far to be committed; throws the store's failure if a flush failed. */
  async barrier(): Promise<void> {
    try {
      await this.group.barrier();
    } catch {
      this.checkUsable();
    }
  }

  /** A pooled connection with its session set up; a failure to connect is tried again a few times. */
  async connect(what: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt += 1) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.#pool.connect();
        if (!this.#prepared.has(client)) {
          await client.query(this.#setup);
          this.#prepared.add(client);
        }
        return client;
      } catch (cause) {
        client?.release(cause instanceof Error ? cause : true);
        if (attempt >= 2 || !isTransient(cause) || this.#closed) {
          throw postgresFailure(this.target, what, cause);
        }
        await sleep(100 * 3 ** attempt);
      }
    }
  }

  /**
   * Runs `query` on a pooled connection (after migrating). With `retry`, a dropped connection or a
   * restart is tried again a few times: for calls that may safely run twice. `internal`: the
   * store's own work (migrating, for a flush that may run while closing), neither checked nor migrated first.
   */
  async call<T>(
    what: string,
    query: (client: pg.PoolClient) => Promise<T>,
    options: { retry: boolean; internal?: boolean },
  ): Promise<T> {
    if (!options.internal) {
      this.checkUsable();
      await this.whenReady();
    }
    const tries = options.retry ? this.#readRetries + 1 : 1;
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.connect(what);
      let broken: Error | undefined;
      try {
        return await query(client);
      } catch (cause) {
        if (!isStatementError(cause) && !WardrikError.isInstance(cause)) broken = cause as Error;
        if (attempt >= tries || !isTransient(cause) || this.#closed) throw postgresFailure(this.target, what, cause);
      } finally {
        client.release(broken);
      }
      await sleep(50 * 4 ** (attempt - 1));
    }
  }

  /** A read of run data: after every write made before it is committed. */
  async read<T>(what: string, query: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.checkUsable();
    await this.whenReady();
    await this.barrier();
    return this.call(what, query, { retry: true });
  }

  /** Throws `LeaseLostError` unless the write's lease is the run's lease; locks the lease row until the transaction ends. */
  async checkLease(client: pg.PoolClient, write: SerializedWrite): Promise<void> {
    const lease = write.lease;
    if (lease === undefined) return;
    const { rows } = await client.query<{ node: string | null; epoch: number }>(
      'SELECT node, epoch FROM leases WHERE run_id = $1 FOR SHARE',
      [lease.runId],
    );
    const current = rows[0];
    if (current?.node === lease.node && current.epoch === lease.epoch) return;
    throw leaseLost(write, current);
  }

  /**
   * The flush connection, set up (search path, synchronous_commit); opened if there is none, a
   * failure to connect tried again a few times. A connection that breaks is forgotten, so that the
   * next flush opens another.
   */
  #flushConnection(): Promise<pg.Client> {
    if (this.#flusher === undefined) {
      const opening = this.#openFlusher();
      this.#flusher = opening;
      opening.catch(() => {
        if (this.#flusher === opening) this.#flusher = undefined;
      });
    }
    return this.#flusher;
  }

  async #openFlusher(): Promise<pg.Client> {
    for (let attempt = 0; ; attempt += 1) {
      const client = new (pgModule().Client)(this.#config);
      // Without a listener an 'error' event would crash the process; the query in flight fails too.
      client.on('error', () => this.#forgetFlusher(client));
      client.on('end', () => this.#forgetFlusher(client));
      try {
        await client.connect();
        await client.query(this.#setup);
        return client;
      } catch (cause) {
        await client.end().catch(() => {});
        if (attempt >= 2 || !isTransient(cause) || this.#closed) {
          throw postgresFailure(this.target, 'flushing queued writes', cause);
        }
        await sleep(100 * 3 ** attempt);
      }
    }
  }

  /** Forgets the flush connection if it is `client` (it broke or ended), and closes it. */
  #forgetFlusher(client: pg.Client): void {
    const flusher = this.#flusher;
    if (flusher === undefined) return;
    void flusher.then(
      (current) => {
        if (current !== client || this.#flusher !== flusher) return;
        this.#flusher = undefined;
        client.end().catch(() => {});
      },
      () => {},
    );
  }

  /** One group commit: the batch in one statement on the flush connection, tried again after a collision. */
  async #commitBatch(writes: readonly SerializedWrite[]): Promise<Outcomes> {
    await this.whenReady();
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.#flushConnection();
      const began = this.#commitListeners.size > 0 ? performance.now() : 0;
      try {
        const outcomes = await writeBatch(client, writes, this.signalTarget);
        this.#flushes += 1;
        const applied = writes.filter((_, index) => outcomes[index] === undefined);
        // Only what was journaled: a write refused (its lease lost) added no record.
        if (began !== 0) tellCommit(this.#commitListeners, performance.now() - began, applied);
        this.#writesRefused += writes.length - applied.length;
        for (const write of applied) this.#recordsWritten += write.records.length;
        this.#emitAppended(applied);
        return outcomes;
      } catch (cause) {
        if (!isStatementError(cause)) this.#forgetFlusher(client);
        // A deadlock or serialization failure rolled the statement back whole: run it again.
        if (!isConflict(cause) || attempt >= 3) throw cause;
      }
    }
  }

  /** Tells this store's listeners of each run's last appended seq (other nodes hear the NOTIFY). */
  #emitAppended(writes: readonly SerializedWrite[]): void {
    if (!this.signals.listened) return;
    const last = new Map<string, number>();
    for (const write of writes) {
      for (const record of write.records)
        last.set(write.runId, Math.max(record.seq, last.get(write.runId) ?? record.seq));
    }
    for (const [runId, seq] of last) this.signals.emit({ type: 'appended', runId, seq });
  }

  /** Flushes what is queued, stops listening and closes the pool. Calling it again does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let failure: unknown;
    if (this.#failure === undefined) {
      try {
        await this.group.barrier();
      } catch (error) {
        failure = error;
      }
    }
    this.group.stop();
    await this.signals.close();
    const flusher = this.#flusher;
    this.#flusher = undefined;
    await flusher?.then((client) => client.end()).catch(() => {});
    await this.#pool.end().catch(() => {});
    if (failure !== undefined) throw failure;
  }

  /** How many write transactions committed, the journal records they held, and the writes refused for a lost lease. */
  stats(): PostgresStoreStats {
    return { flushes: this.#flushes, recordsWritten: this.#recordsWritten, writesRefused: this.#writesRefused };
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  onCommit(listener: (commit: CommitStats) => void): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  /** Whether a write of this lease was refused already (its later writes are refused at once). */
  isLost(lease: Lease): boolean {
    return this.#lostLeases.has(leaseKey(lease));
  }

  /** Counts writes refused because their lease was lost. */
  refused(count: number): void {
    this.#writesRefused += count;
  }

  /** Counts a write journaled outside the group commit (a park's answer), and tells the listeners. */
  committedOutside(write: SerializedWrite, began: number): void {
    this.#flushes += 1;
    this.#recordsWritten += write.records.length;
    tellCommit(this.#commitListeners, performance.now() - began, [write]);
    this.#emitAppended([write]);
  }
}
