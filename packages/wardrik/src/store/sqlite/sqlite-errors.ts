import { WardrikError } from '@wardrik/core';
import { StoreError } from '../../errors.js';

/**
 * A `StoreError` for what SQLite threw while `what` (e.g. "reading run r1"), naming the file and,
 * for the failures a person must act on (a corrupt file, a full disk, no permission), what to do.
 * Wardrik's own errors pass through unchanged.
 */
export function sqliteFailure(path: string, what: string, cause: unknown): WardrikError {
  if (WardrikError.isInstance(cause)) return cause;
  const code = String((cause as { code?: unknown }).code ?? '');
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StoreError(`${what} failed on the SQLite database ${path}: ${detail}${advice(code, path)}`, { cause });
}

/** What a person should do about a SQLite failure with this `code` (empty when nothing in particular). */
export function advice(code: string, path: string): string {
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return (
      ` (${code}): the file is damaged or is not a Wardrik database. Restore it from a backup, or try` +
      ` \`sqlite3 ${path} .recover\`; moving it aside starts an empty store (its runs are then not recovered)`
    );
  }
  if (code === 'SQLITE_FULL') return ` (${code}): the disk is full; free space, then restart to recover the runs`;
  if (code.startsWith('SQLITE_IOERR')) return ` (${code}): the disk failed a read or write; check it, then restart`;
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM') {
    return ` (${code}): check that this process may read and write the file and its directory`;
  }
  return code ? ` (${code})` : '';
}
