import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { memoryStore } from '../src/store/memory-store.js';
import { type PostgresStore, type PostgresStoreOptions, postgresStore } from '../src/store/postgres/postgres-store.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';

/** A store adapter the contract tests run on: opens a fresh, empty store. */
export interface StoreFactory {
  readonly name: string;
  open(): Store | Promise<Store>;
  /**
   * Whether a lease nobody renews expires (shared stores, and the memory store, which plays one).
   * A SQLite file belongs to one process, which has nobody to hand a run to: its leases change
   * hands only when released.
   */
  readonly leasesExpire: boolean;
}

/**
 * The PostgreSQL the tests use: WARDRIK_TEST_DATABASE_URL, which `.ci/run` sets to the machine's
 * (127.0.0.1:5432, database test, user postgres, trust auth) and which, when it is not set, the
 * global setup (postgres-global-setup.ts) sets to a PostgreSQL it starts for the test run.
 */
export const TEST_DATABASE_URL = testDatabaseUrl();

function testDatabaseUrl(): string {
  const url = process.env['WARDRIK_TEST_DATABASE_URL'];
  if (url) return url;
  throw new Error(
    'WARDRIK_TEST_DATABASE_URL is not set: run the tests with vitest from the repository root (its global setup starts a ' +
      'PostgreSQL for them), or set it, e.g. to postgres://postgres@127.0.0.1:5432/test',
  );
}

/** A fresh schema name, so that every test store (and test file) has tables of its own. */
export function testSchemaName(): string {
  return `wardrik_test_${randomBytes(6).toString('hex')}`;
}

/** Drops a test schema and everything in it. */
export async function dropTestSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL store in a fresh schema of its own (or `options.schema`), with a small pool (test
 * files run in parallel on one server). Closing it drops the schema, unless `keepSchema`.
 */
export function openPostgresTestStore(
  options: PostgresStoreOptions & { keepSchema?: boolean; pool?: pg.PoolConfig } = {},
): PostgresStore {
  const { keepSchema, pool, ...storeOptions } = options;
  const schema = storeOptions.schema ?? testSchemaName();
  const store = postgresStore({ connectionString: TEST_DATABASE_URL, max: 4, ...pool }, { ...storeOptions, schema });
  const close = store.close.bind(store);
  store.close = async () => {
    try {
      await close();
    } finally {
      if (!keepSchema) await dropTestSchema(schema);
    }
  };
  return store;
}

/** Every adapter the store contract runs on. */
export const storeFactories: readonly StoreFactory[] = [
  {
    name: 'SqliteStore',
    open: () => sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-store-')), 'wardrik.db')),
    leasesExpire: false,
  },
  { name: 'MemoryStore', open: () => memoryStore(), leasesExpire: true },
  { name: 'PostgresStore', open: () => openPostgresTestStore(), leasesExpire: true },
];
