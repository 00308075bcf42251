import { WardrikError } from '@wardrik/core';
import { StoreError } from '../../errors.js';
import { pgModule } from './connection.js';

/** Where a store connects, as messages may show it: the URL without its password, and the secrets to hide. */
export interface Target {
  readonly location: string;
  readonly secrets: readonly string[];
}

/** The SQLSTATE of a server's error, or a Node error code (`ECONNREFUSED`), if any. */
export function errorCode(cause: unknown): string {
  return String((cause as { code?: unknown } | undefined)?.code ?? '');
}

/** `text` with every secret replaced by `***`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = scrubbed.replaceAll(secret, '***');
  return scrubbed;
}

/**
 * Whether the server refused a statement and rolled it back, on a connection that still works: the
 * outcome is known (nothing of it happened). Otherwise the connection failed and a commit may or
 * may not have happened.
 */
export function isStatementError(cause: unknown): boolean {
  return cause instanceof pgModule().DatabaseError && cause.severity === 'ERROR' && !errorCode(cause).startsWith('08');
}

const TRANSIENT_CODES = new Set([
  // Node: the server is not there (yet), or the connection broke.
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // PostgreSQL: connection exceptions, shutting down or starting up, no slot left.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // Conflicts between concurrent transactions: nothing was applied; trying again is right.
  '40001',
  '40P01',
]);

/** Whether trying again a little later may succeed (a dropped connection, a restart, a deadlock). */
export function isTransient(cause: unknown): boolean {
  const code = errorCode(cause);
  if (TRANSIENT_CODES.has(code) || code.startsWith('08')) return true;
  const message = cause instanceof Error ? cause.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended/i.test(message);
}

/** Whether two transactions collided (deadlock, serialization): the statement was rolled back and can be run again. */
export function isConflict(cause: unknown): boolean {
  const code = errorCode(cause);
  return code === '40001' || code === '40P01';
}

/** What a person should do about a failure with this code (empty when nothing in particular). */
export function advice(code: string, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return ' (ECONNREFUSED): nothing listens there; is the PostgreSQL server running, on that host and port?';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return ` (${code}): the host name does not resolve`;
    case '28P01':
    case '28000':
      return ` (${code}): the server refused these credentials; check the user and password (or pg_hba.conf)`;
    case '3D000':
      return ` (${code}): the database does not exist; create it (createdb) or fix the URL`;
    case '42501':
      return ` (${code}): the user lacks a privilege it needs (CREATE on the database or schema, or on the tables)`;
    case '53300':
      return ` (${code}): the server has no connection left; lower the pool's max or raise max_connections`;
    case '57P01':
    case '57P02':
    case '57P03':
      return ` (${code}): the server is shutting down, restarting or starting`;
  }
  if (/timeout/i.test(message)) return ': no answer in time; check the host, the port and the network';
  return code ? ` (${code})` : '';
}

/** An error's message; for an `AggregateError` (a host with several addresses), each of its errors'. */
function messageOf(cause: unknown): string {
  if (cause instanceof AggregateError && cause.message === '') {
    return cause.errors.map((each: unknown) => (each instanceof Error ? each.message : String(each))).join('; ');
  }
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * A `StoreError` for what `pg` threw while `what` (e.g. "reading run r1"), naming the server by its
 * URL without the password, with advice for the failures a person must act on. Wardrik's own
 * errors pass through unchanged.
 */
export function postgresFailure(target: Target, what: string, cause: unknown): WardrikError {
  if (WardrikError.isInstance(cause)) return cause;
  const code = errorCode(cause);
  const detail = scrub(messageOf(cause), target.secrets);
  return new StoreError(
    `${what} failed on PostgreSQL ${target.location}: ${detail || 'the connection failed'}${advice(code, detail)}`,
    { cause },
  );
}
