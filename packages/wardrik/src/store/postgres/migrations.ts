import type pg from 'pg';
import { StoreError } from '../../errors.js';
import { quoteIdentifier } from './connection.js';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './migration-list.js';

export { POSTGRES_MIGRATIONS, type PostgresMigration } from './migration-list.js';

/** The schema version this code writes. */
export const POSTGRES_SCHEMA_VERSION: number = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;

const CREATE_MIGRATIONS_TABLE = `
  CREATE TABLE IF NOT EXISTS migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )
`;

function checkOrder(migrations: readonly PostgresMigration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new StoreError(`migration "${migration.name}" has version ${migration.version}, expected ${index + 1}`);
    }
  });
}

/** Where to migrate: the schema (created if missing) or, without one, the connection's current schema. */
export interface MigrateOptions {
  readonly schema?: string;
  /** How messages name the database (a URL without its password). */
  readonly location: string;
  readonly migrations?: readonly PostgresMigration[];
}

/**
 * Brings the schema up to date on `client` (whose search path names the schema). Each pending
 * migration runs in its own transaction, which also records it in `migrations`, so a step is
 * applied and recorded or neither. Every transaction first takes a transaction-level advisory
 * lock for the schema (`pg_advisory_xact_lock`), so that nodes starting together on an empty
 * database apply each step once: the others wait, then find it done. A database whose version is
 * newer than this code knows is refused with a `StoreError` naming both versions.
 *
 * @returns the versions applied by this call (empty when the schema was up to date).
 * @example
 * ```ts
 * const client = new pg.Client('postgres://postgres@127.0.0.1:5432/test');
 * await client.connect();
 * await client.query('SET search_path TO wardrik');
 * await migratePostgres(client, { schema: 'wardrik', location: 'postgres://postgres@127.0.0.1:5432/test' }); // [1, 2, 3], then []
 * ```
 */
export async function migratePostgres(client: pg.ClientBase, options: MigrateOptions): Promise<number[]> {
  const migrations = options.migrations ?? POSTGRES_MIGRATIONS;
  checkOrder(migrations);
  const applied: number[] = [];
  for (;;) {
    const version = await step(client, options, migrations);
    if (version === undefined) return applied;
    applied.push(version);
  }
}

/** Applies the next pending migration in one transaction; undefined if none is pending. */
async function step(
  client: pg.ClientBase,
  options: MigrateOptions,
  migrations: readonly PostgresMigration[],
): Promise<number | undefined> {
  const where = options.schema === undefined ? options.location : `${options.location} (schema ${options.schema})`;
  await client.query('BEGIN');
  try {
    await client.query(
      `SELECT pg_advisory_xact_lock(hashtextextended('wardrik migrations ' || coalesce($1::text, current_schema()), 0))`,
      [options.schema ?? null],
    );
    if (options.schema !== undefined) {
      const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
      if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdentifier(options.schema)}`);
    }
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ version: number }>(
      'SELECT coalesce(max(version), 0) AS version FROM migrations',
    );
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new StoreError(
        `the database ${where} has schema version ${current}, but this code knows versions up to ` +
          `${migrations.length}: upgrade Wardrik to open it`,
      );
    }
    const next = migrations[current];
    if (next !== undefined) {
      try {
        await client.query(next.sql);
        await client.query('INSERT INTO migrations (version, name) VALUES ($1, $2)', [next.version, next.name]);
      } catch (cause) {
        throw new StoreError(
          `migrating ${where} failed at version ${next.version} (${next.name}): ${(cause as Error).message}`,
          { cause },
        );
      }
    }
    await client.query('COMMIT');
    return next?.version;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
