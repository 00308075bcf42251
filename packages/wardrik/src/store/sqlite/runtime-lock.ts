import { chmodSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { StoreError } from '../../errors.js';

/** Who holds a runtime lock, as it wrote itself down. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly since: number;
  readonly command: string;
}

/**
 * An OS-level lock saying "one process drives the runs of this SQLite store". It is a small SQLite
 * file next to the store (`wardrik.db.lock`) whose write lock the holder keeps for as long as it
 * lives: the operating system releases it when the process exits in any way (SIGKILL included),
 * so a crash never leaves a stale lock behind. The holder writes its pid, host and command into
 * the file first, so a second process can say who holds it.
 */
export class RuntimeLock {
  readonly path: string;
  readonly #database: Database.Database;

  private constructor(path: string, database: Database.Database) {
    this.path = path;
    this.#database = database;
  }

  /**
   * Takes the lock at `path`, or throws `StoreError` naming `storePath` and the holder (pid, host,
   * since when, command) when another process has it.
   *
   * @example
   * ```ts
   * const lock = RuntimeLock.take('.wardrik/wardrik.db.lock', '.wardrik/wardrik.db')
   * // … drive runs …
   * lock.release()
   * ```
   */
  static take(path: string, storePath: string): RuntimeLock {
    let database: Database.Database;
    try {
      const created = !existsSync(path);
      database = new Database(path, { timeout: 0 });
      if (created) chmodSync(path, 0o600);
      database.pragma('journal_mode = DELETE');
      database.exec(
        'CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since INTEGER NOT NULL, command TEXT NOT NULL)',
      );
    } catch (cause) {
      throw new StoreError(`cannot open the lock file ${path} of the SQLite store ${storePath}: ${message(cause)}`, {
        cause,
      });
    }
    try {
      database.exec('BEGIN IMMEDIATE');
      database
        .prepare('INSERT OR REPLACE INTO holder (id, pid, host, since, command) VALUES (1, ?, ?, ?, ?)')
        .run(process.pid, hostname(), Date.now(), process.argv.slice(1).join(' ').slice(0, 500));
      database.exec('COMMIT');
      // Held from here until the process ends or releases it: others can read who holds it, not write.
      database.exec('BEGIN IMMEDIATE');
    } catch (cause) {
      const holder = readHolder(database);
      database.close();
      if (!isBusy(cause)) {
        throw new StoreError(`cannot take the lock file ${path} of the SQLite store ${storePath}: ${message(cause)}`, {
          cause,
        });
      }
      throw new StoreError(
        `the SQLite store ${storePath} is in use by another process${describeHolder(holder)}: one process drives ` +
          'the runs of a SQLite store (stop the other one, or give this one another store; many nodes share PostgreSQL)',
        { cause },
      );
    }
    return new RuntimeLock(path, database);
  }

  /** Lets another process take the lock. */
  release(): void {
    if (!this.#database.open) return;
    try {
      this.#database.exec('ROLLBACK');
    } finally {
      this.#database.close();
    }
  }
}

function readHolder(database: Database.Database): Holder | undefined {
  try {
    return database.prepare('SELECT pid, host, since, command FROM holder WHERE id = 1').get() as Holder | undefined;
  } catch {
    return undefined;
  }
}

function describeHolder(holder: Holder | undefined): string {
  if (!holder) return '';
  const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
  const command = holder.command ? `: ${holder.command}` : '';
  return ` (pid ${holder.pid}${where}, since ${new Date(holder.since).toISOString()}${command})`;
}

function isBusy(cause: unknown): boolean {
  const code = (cause as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function message(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
