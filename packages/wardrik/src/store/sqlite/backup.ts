import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreError } from '../../errors.js';

/** What a backup made. */
export interface SqliteBackup {
  /** The copy. */
  readonly path: string;
  readonly bytes: number;
  /** How many runs the copy holds. */
  readonly runs: number;
  /** Its schema version (the migrations it has). */
  readonly schemaVersion: number;
}

/** The most pages SQLite copies in one backup step: all of them, so that the copy is one snapshot. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite store at `source` to `destination` while it serves: one consistent snapshot
 * (SQLite's online backup API, through better-sqlite3's `backup()`, every page in one step of one
 * read transaction: in WAL mode the server goes on writing meanwhile), holding every write
 * committed before it began — every acknowledged run. The copy is checked (`quick_check`), made a
 * single file (journal mode DELETE: no `-wal` beside it), owner-only (0600), and moved into place
 * only then. Throws `StoreError` if `source` is missing or `destination` exists.
 *
 * To restore: stop the server, put the copy where the store was (removing the old `-wal` and
 * `-shm` files), start the server.
 *
 * @example
 * ```ts
 * const backup = await backupSqlite('.wardrik/wardrik.db', '/backups/wardrik-2026-01-31.db')
 * console.log(backup.runs, backup.bytes)
 * ```
 */
export async function backupSqlite(source: string, destination: string): Promise<SqliteBackup> {
  if (!existsSync(source)) throw new StoreError(`no SQLite store at ${source}`);
  if (existsSync(destination)) {
    throw new StoreError(`${destination} exists: a backup never overwrites a file (pick another name)`);
  }
  const partial = `${destination}.partial-${process.pid}`;
  let database: Database.Database | undefined;
  try {
    database = new Database(source, { fileMustExist: true, timeout: 5_000 });
    await database.backup(partial, { progress: () => ALL_PAGES });
  } catch (cause) {
    removeFiles(partial);
    throw new StoreError(`backing ${source} up to ${destination} failed: ${(cause as Error).message}`, { cause });
  } finally {
    database?.close();
  }
  let copy: Database.Database | undefined;
  try {
    copy = new Database(partial, { fileMustExist: true });
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy fails SQLite's quick_check: ${String(check)}`);
    const runs = copy.prepare('SELECT count(*) FROM runs').pluck().get() as number;
    const schemaVersion = copy.prepare('SELECT coalesce(max(version), 0) FROM migrations').pluck().get() as number;
    copy.close();
    copy = undefined;
    chmodSync(partial, 0o600);
    renameSync(partial, destination);
    return { path: destination, bytes: statSync(destination).size, runs, schemaVersion };
  } catch (cause) {
    copy?.close();
    removeFiles(partial);
    throw new StoreError(`the backup of ${source} can't be used: ${(cause as Error).message}`, { cause });
  }
}

function removeFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(file, { force: true });
}
