import type * as pg from 'pg';
import { StoreError } from '../../errors.js';
import { loadNow } from '../../lazy-package.js';

/*
 * Where a PostgreSQL store connects, and how each of its connections is set up: the URL as it may
 * be shown (never with its password), the schema its tables live in, the channel its signals use,
 * and the pool's configuration.
 */

/** The `pg` package, loaded when the first PostgreSQL store is made (not when `wardrik` is imported). */
export function pgModule(): typeof pg {
  return loadNow<typeof pg>('pg', 'a PostgreSQL store (postgresStore)');
}

/** A schema name the store accepts: a plain identifier, short enough to name its signal channel too. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,54}$/;

/** The channel of a store's signals (`LISTEN`/`NOTIFY`): one per schema, so that two deployments in one database don't hear each other. */
export function signalChannel(schema: string | undefined): string {
  return schema === undefined ? 'wardrik' : `wardrik_${schema}`;
}

/** Checks a schema name (letters, digits and `_`, not starting with a digit, at most 55 characters). */
export function checkSchemaName(schema: string): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new StoreError(
      `schema must be letters, digits and _ (not starting with a digit, at most 55 characters), got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/** An identifier quoted for SQL (for names checked already: schema, channel). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The URL to show in messages: the password (in the user part or a `password` parameter) is
 * replaced by `***`. A string that is not a URL is not shown at all: it may hold a password.
 *
 * @example
 * ```ts
 * redactUrl('postgres://app:s3cret@db:5432/wardrik'); // 'postgres://app:***@db:5432/wardrik'
 * ```
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError(
      'the PostgreSQL connection string is not a valid URL (expected postgres://user:password@host:5432/database)',
    );
  }
  if (parsed.password !== '') parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()]) {
    if (key.toLowerCase() === 'password') parsed.searchParams.set(key, '***');
  }
  return parsed.toString();
}

/** How a pool configuration's target is shown: as a URL, without its password. */
export function describeConfig(config: pg.PoolConfig): string {
  if (config.connectionString !== undefined) return redactUrl(config.connectionString);
  const user = config.user ?? process.env['PGUSER'] ?? '';
  const password = config.password === undefined ? '' : ':***';
  const host = config.host ?? process.env['PGHOST'] ?? 'localhost';
  const port = config.port ?? process.env['PGPORT'] ?? 5432;
  const database = config.database ?? process.env['PGDATABASE'] ?? '';
  const credentials = user === '' && password === '' ? '' : `${encodeURIComponent(user)}${password}@`;
  return `postgres://${credentials}${host}:${port}/${encodeURIComponent(database)}`;
}

/** The secrets a message must never show (the password, when long enough to find without garbling the text). */
export function secretsOf(config: pg.PoolConfig): string[] {
  const secrets: string[] = [];
  if (typeof config.password === 'string' && config.password.length >= 4) secrets.push(config.password);
  if (config.connectionString !== undefined) {
    try {
      const parsed = new URL(config.connectionString);
      const password = decodeURIComponent(parsed.password);
      if (password.length >= 4) secrets.push(password, parsed.password);
      for (const [key, value] of parsed.searchParams) {
        if (key.toLowerCase() === 'password' && value.length >= 4) secrets.push(value);
      }
    } catch {
      // Not a URL: redactUrl refuses it before any connection is tried.
    }
  }
  return secrets;
}

/** int8 (bigint) as a JavaScript number: every bigint the store keeps is a time in ms, a seq, an epoch or a count. */
const INT8 = 20;
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8 && format !== 'binary') return (value: string) => Number(value);
    return pgModule().types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The pool's configuration: the caller's, with bigints read as numbers, a connection timeout
 * (10 s unless set: an unreachable host must not hang the store) and TCP keep-alive.
 */
export function poolConfig(target: string | pg.PoolConfig): pg.PoolConfig {
  const given: pg.PoolConfig = typeof target === 'string' ? { connectionString: target } : { ...target };
  if (given.connectionString !== undefined) redactUrl(given.connectionString); // refuses a malformed URL
  return {
    application_name: 'wardrik',
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    ...given,
    types,
  };
}

/**
 * What each new connection runs first (one simple query, no values): its search path, when the
 * store has a schema of its own, and its `synchronous_commit` — at least `on` by default (a
 * server set to `remote_write` or `remote_apply` keeps that), or `off` when asked.
 */
export function sessionSetup(schema: string | undefined, synchronousCommit: boolean): string {
  const statements: string[] = [];
  if (schema !== undefined) statements.push(`SET search_path TO ${quoteIdentifier(schema)}`);
  statements.push(
    synchronousCommit
      ? "SELECT set_config('synchronous_commit', 'on', false) WHERE current_setting('synchronous_commit') IN ('off', 'local')"
      : 'SET synchronous_commit TO off',
  );
  return statements.join('; ');
}
