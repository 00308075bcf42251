/*
 * The PostgreSQL schema (issue 13): numbered migrations, each recorded in the transaction that
 * runs it, under an advisory lock so that nodes starting together migrate once.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../src/errors.js';
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../src/store/postgres/migrations.js';
import type { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const opened: { close(): Promise<unknown> }[] = [];
const schemas: string[] = [];
afterEach(async () => {
  for (const each of opened.splice(0).reverse()) await each.close().catch(() => {});
  for (const schema of schemas.splice(0)) await dropTestSchema(schema);
});

function newSchema(): string {
  const schema = testSchemaName();
  schemas.push(schema);
  return schema;
}

function open(schema: string): PostgresStore {
  const store = openPostgresTestStore({ schema, keepSchema: true, pool: { max: 2 } });
  opened.push(store);
  return store;
}

/** A connection of the test's own, to look at what is committed. */
async function peek(schema?: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  opened.push({ close: () => client.end() });
  if (schema) await client.query(`SET search_path TO "${schema}"`);
  return client;
}

describe('PostgreSQL migrations', () => {
  it('creates the schema and its tables, and records each migration once', async () => {
    const schema = newSchema();
    const store = open(schema);
    await store.migrate();
    await store.migrate();
    const client = await peek(schema);
    const { rows } = await client.query('SELECT version, name FROM migrations ORDER BY version');
    expect(rows).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
    expect(POSTGRES_SCHEMA_VERSION).toBe(POSTGRES_MIGRATIONS.length);
    const tables = await client.query<{ tablename: string }>(
      'SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
      [schema],
    );
    expect(tables.rows.map((row) => row.tablename)).toEqual([
      'allowances',
      'artifacts',
      'journal',
      'leases',
      'memories',
      'migrations',
      'oauth_credentials',
      'parks',
      'principals',
      'retention_sweeps',
      'run_cancels',
      'runs',
      'session_runs',
      'sessions',
      'state_edits',
      'state_values',
      'tokens',
      'worker_mail',
      'worker_nodes',
      'worker_offers',
      'worker_registry',
    ]);
    const journalKey = await client.query(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
       WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
      [`"${schema}".journal`],
    );
    expect(journalKey.rows.map((row) => row.attname)).toEqual(['run_id', 'seq']);
    expect(await migratePostgres(client, { schema, location: 'test' })).toEqual([]);
  });

  it('two nodes migrating the same empty schema at once create it once', async () => {
    const schema = newSchema();
    const nodes = [open(schema), open(schema), open(schema), open(schema)];
    await Promise.all(nodes.map((node) => node.migrate()));
    const client = await peek(schema);
    const { rows } = await client.query('SELECT version, count(*)::int AS times FROM migrations GROUP BY version');
    expect(rows.sort((left, right) => left.version - right.version)).toEqual(
      POSTGRES_MIGRATIONS.map(({ version }) => ({ version, times: 1 })),
    );
    // Each node works on the one schema.
    await nodes[0]?.write({ runId: 'r1', records: [] }, { durable: true });
    await nodes[1]?.putAllowance({ agent: 'a', tool: 't', by: 'bob', at: 1, parkId: 'p1' });
    expect(await nodes[3]?.listAllowances()).toHaveLength(1);
  });

  it('runs each migration in a transaction with its record: a failing step leaves no trace', async () => {
    const schema = newSchema();
    const client = await peek();
    await client.query(`SET search_path TO "${schema}"`);
    const broken = [
      ...POSTGRES_MIGRATIONS,
      { version: POSTGRES_SCHEMA_VERSION + 1, name: 'broken', sql: 'CREATE TABLE extra (x int); SELEC 1;' },
    ];
    const location = 'postgres://postgres@127.0.0.1:5432/test';
    await expect(migratePostgres(client, { schema, location, migrations: broken })).rejects.toThrow(
      `migrating ${location} (schema ${schema}) failed at version ${POSTGRES_SCHEMA_VERSION + 1} (broken): syntax error`,
    );
    const { rows } = await client.query('SELECT version FROM migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map(({ version }) => version));
    const extra = await client.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [
      schema,
      'extra',
    ]);
    expect(extra.rowCount).toBe(0);
  });

  it('refuses a database with a newer schema version, naming both versions', async () => {
    const schema = newSchema();
    await open(schema).migrate();
    const client = await peek(schema);
    const newer = POSTGRES_SCHEMA_VERSION + 1;
    await client.query('INSERT INTO migrations (version, name) VALUES ($1, $2)', [newer, 'from the future']);

    const store = open(schema);
    const expected = `has schema version ${newer}, but this code knows versions up to ${POSTGRES_SCHEMA_VERSION}`;
    await expect(store.migrate()).rejects.toThrow(expected);
    await expect(store.migrate()).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.getRun('r1')).rejects.toThrow(expected);
    // A write can't be made durable on a schema this code doesn't know: the store fails.
    await expect(store.write({ runId: 'a', records: [] }, { durable: true })).rejects.toThrow(expected);
  });

  it('refuses a schema name that is not a plain identifier, before connecting', () => {
    for (const schema of ['', 'has space', '1st', 'a"b', 'x'.repeat(56), 'drop;table']) {
      expect(() => openPostgresTestStore({ schema })).toThrow(/schema must be letters, digits and _/);
    }
  });
});
