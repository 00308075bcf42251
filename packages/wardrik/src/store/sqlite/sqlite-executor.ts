import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { WardrikError } from '@wardrik/core';
import Database from 'better-sqlite3';
import { StoreError } from '../../errors.js';
import type { CommitStats } from '../run-store.js';
import { SqliteGroupCommit } from './group-commit.js';
import { migrateSqlite } from './migrations.js';
import { RuntimeLock } from './runtime-lock.js';
import { advice, sqliteFailure } from './sqlite-errors.js';
import type { SqliteStoreOptions, SqliteStoreStats } from './sqlite-options.js';
import { WalSync } from './wal-sync.js';
import { prepareWriteStatements, runWriteOps } from './write-ops.js';

/**
 * What every part of the SQLite store runs its statements through: the database handle (migrated
 * and ready on first use), the queue of run writes and its group commits, and the store's failure
 * and closing. Reads and small writes of their own are ordered against the queue here (`read`,
 * `readNow`, `writeNow`), so the parts only say what to run.
 */
export class SqliteExecutor {
  /** The file's path. */
  readonly path: string;
  readonly database: Database.Database;
  /** The queue of run writes and their group commits. */
  readonly commits: SqliteGroupCommit;
  readonly #listStatements = new Map<string, Database.Statement<unknown[], unknown>>();
  #flush: Database.Transaction<(ops: ReadonlyArray<string | number>) => void> | undefined;
  #failure: StoreError | undefined;
  readonly #failureListeners = new Set<(error: StoreError) => void>();
  readonly #commitListeners = new Set<(commit: CommitStats) => void>();
  #runtimeLock: RuntimeLock | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Makes commits durable off the event loop (in the background at `synchronous: 'full'`). */
  readonly #walSync: WalSync | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const synchronous = options.synchronous ?? 'full';
    if (synchronous !== 'full' && synchronous !== 'normal') {
      throw new StoreError(`synchronous must be 'full' or 'normal', got ${String(synchronous)}`);
    }
    const inMemory = path === ':memory:' || path === '';
    const commits = options.commits ?? 'background';
    if (commits !== 'background' && commits !== 'inline') {
      throw new StoreError(`commits must be 'background' or 'inline', got ${String(commits)}`);
    }
    const background = commits === 'background' && !inMemory;
    let database: Database.Database | undefined;
    try {
      // Journals can hold private data: a directory made here is the owner's only, and so is a new
      // file (SQLite gives its -wal and -shm files the database file's permissions).
      const created = !inMemory && !existsSync(path);
      if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      database = new Database(path, { timeout: busyTimeoutMs });
      if (created) chmodSync(path, 0o600);
      const mode = database.pragma('journal_mode = WAL', { simple: true });
      if (!inMemory && mode !== 'wal') throw new Error(`it stays in journal_mode ${String(mode)}, not WAL`);
      // In the background mode SQLite commits at NORMAL and `WalSync` adds FULL's fsync off the loop.
      database.pragma(`synchronous = ${synchronous === 'full' && !background ? 'FULL' : 'NORMAL'}`);
    } catch (cause) {
      database?.close();
      const code = String((cause as { code?: unknown }).code ?? '');
      throw new StoreError(
        `cannot open the SQLite database ${path}: ${(cause as Error).message}${advice(code, path)}`,
        {
          cause,
        },
      );
    }
    this.database = database;
    this.#walSync =
      background && synchronous === 'full'
        ? new WalSync(path, options.syncFile ? { syncFile: options.syncFile } : {})
        : undefined;
    this.commits = new SqliteGroupCommit({
      path,
      background,
      walSync: this.#walSync,
      busyTimeoutMs,
      flushIntervalMs: options.flushIntervalMs ?? 20,
      maxPendingRecords: options.maxPendingRecords ?? 5000,
      // The queue is only filled once ready() has prepared the statements.
      commitHere: (ops) => this.#flush!.immediate(ops),
      commitListeners: this.#commitListeners,
      fail: (error) => this.#fail(error),
      failure: () => this.#failure,
    });
  }

  /** Creates or upgrades the schema (again if it is ready: another process may have left it behind). */
  migrate(): void {
    if (this.#flush === undefined) this.ready();
    else {
      this.checkUsable();
      migrateSqlite(this.database);
    }
  }

  /** Checks the store is usable, migrating and preparing the group commit's statements on first use. */
  ready(): void {
    this.checkUsable();
    if (this.#flush === undefined) {
      try {
        migrateSqlite(this.database);
        const writeStatements = prepareWriteStatements(this.database);
        this.#flush = this.database.transaction((ops: ReadonlyArray<string | number>) =>
          runWriteOps(writeStatements, ops),
        );
      } catch (cause) {
        throw sqliteFailure(this.path, 'opening the store', (cause as { cause?: unknown }).cause ?? cause);
      }
    }
  }

  /**
   * A getter of a part's statements: each call checks that the store is usable (and ready); the
   * first prepares them with `make` (a failure named as opening the store).
   */
  statements<T>(make: (database: Database.Database) => T): () => T {
    let statements: T | undefined;
    return () => {
      this.ready();
      if (statements === undefined) {
        try {
          statements = make(this.database);
        } catch (cause) {
          throw sqliteFailure(this.path, 'opening the store', (cause as { cause?: unknown }).cause ?? cause);
        }
      }
      return statements;
    };
  }

  /**
   * Runs a small write of its own, durably, after the queue: what was written before it is on
   * disk first. A failure of the write itself (a constraint) leaves the store usable.
   */
  async writeNow(what: string, commit: () => void): Promise<void> {
    await this.commits.drain();
    try {
      commit();
    } catch (cause) {
      throw sqliteFailure(this.path, what, cause);
    }
    await this.commits.committedHere();
  }

  /** `writeNow` giving back what the write returns, as a promise (rejected rather than thrown). */
  async writeNowResult<T>(what: string, commit: () => T): Promise<T> {
    this.ready();
    let result: T | undefined;
    await this.writeNow(what, () => {
      result = commit();
    });
    return result as T;
  }

  /**
   * Runs a read after committing the queue (reads see every write made before them), and resolves
   * once what it read is on disk: nothing a read returns can be lost to a power loss afterwards.
   */
  async read<T>(what: string, query: () => T): Promise<T> {
    this.ready();
    await this.commits.drain();
    let result: T;
    try {
      result = query();
    } catch (cause) {
      throw sqliteFailure(this.path, what, cause);
    }
    await this.commits.synced();
    return result;
  }

  /** Runs a read that need not wait for queued run writes (principals and tokens). */
  readNow<T>(what: string, query: () => T): T {
    this.ready();
    try {
      return query();
    } catch (cause) {
      throw sqliteFailure(this.path, what, cause);
    }
  }

  /** A statement for SQL built at run time (a list's filters), prepared once per text. */
  listStatement(sql: string): Database.Statement<unknown[], unknown> {
    let statement = this.#listStatements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.#listStatements.set(sql, statement);
    }
    return statement;
  }

  checkUsable(): void {
    if (this.#closed) throw new StoreError(`the store ${this.path} is closed`);
    if (this.#failure !== undefined) {
      throw new StoreError(`the store ${this.path} failed and must be reopened: ${this.#failure.message}`, {
        cause: this.#failure,
      });
    }
  }

  /** The store can't be trusted any more: keep why, refuse every later call, tell the listeners once. */
  #fail(error: WardrikError): void {
    if (this.#failure !== undefined) return;
    this.#failure = StoreError.isInstance(error) ? error : new StoreError(error.message, { cause: error });
    for (const listener of [...this.#failureListeners]) {
      try {
        listener(this.#failure);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  onCommit(listener: (commit: CommitStats) => void): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  stats(): SqliteStoreStats {
    return { ...this.commits.stats, syncs: this.#walSync?.syncs ?? 0 };
  }

  /** Takes the lock file `<path>.lock` for this process; an in-memory database needs none. */
  lockForRuntime(): void {
    this.checkUsable();
    if (this.#runtimeLock || this.path === ':memory:' || this.path === '') return;
    this.#runtimeLock = RuntimeLock.take(`${this.path}.lock`, this.path);
  }

  /** Flushes what is queued, then closes the file once it is on disk. Calling it again does nothing. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing.catch(() => {});
    this.#closing = this.#closeOnce();
    return this.#closing;
  }

  async #closeOnce(): Promise<void> {
    let failure: unknown;
    this.#closed = true; // from here on, calls are refused
    try {
      await this.commits.drain();
      // A failed store has nothing more to make durable: it only lets its file go.
      if (this.#failure === undefined) await this.commits.synced();
    } catch (error) {
      failure = error;
    }
    await this.commits.close();
    await this.#walSync?.close();
    this.database.close();
    this.#runtimeLock?.release();
    this.#runtimeLock = undefined;
    if (failure !== undefined) throw failure;
  }
}
