/*
 * Where a config keeps its runs (issue 13, setup): a Store made in code, `{ postgres }`,
 * `{ sqlite }`, `wardrik serve --store …` or `WARDRIK_DATABASE_URL`, in that order of precedence,
 * else the SQLite file next to the config; and `wardrik migrate` creates the schema of either.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../src/config/config.js';
import { describeStore, resolveStore } from '../src/config/store-setting.js';
import { defineAgent } from '../src/index.js';
import { memoryStore } from '../src/store/memory-store.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import type { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { ScriptedModel } from '../src/testing/index.js';
import { buildCli, cleanEnv, cliPath, tmpRoot } from './cli-process.js';

const URL = 'postgres://wardrik:s3cret@127.0.0.1:5432/test';

describe('choosing the store', () => {
  const directory = '/srv/app';
  const defaultPath = '/srv/app/.wardrik/wardrik.db';
  const resolve = (options: Partial<Parameters<typeof resolveStore>[0]>) =>
    resolveStore({ setting: undefined, directory, defaultPath, environment: {}, ...options });

  it('is the SQLite file next to the config when nothing names one', async () => {
    const { store, isDefault } = resolve({});
    expect(isDefault).toBe(true);
    expect((store as SqliteStore).path).toBe(defaultPath);
    await store.close();
  });

  it('is PostgreSQL when WARDRIK_DATABASE_URL is set, the config says so, or --store names a URL (in that order)', async () => {
    const fromEnvironment = resolve({ environment: { WARDRIK_DATABASE_URL: URL } }).store;
    expect(fromEnvironment).toBeInstanceOf(PostgresStore);
    expect(describeStore(fromEnvironment)).toBe('PostgreSQL, postgres://wardrik:***@127.0.0.1:5432/test');
    const fromConfig = resolve({
      setting: { postgres: { url: URL, schema: 'wardrik' } },
      environment: { WARDRIK_DATABASE_URL: 'postgres://elsewhere/db' },
    }).store;
    expect(describeStore(fromConfig)).toBe('PostgreSQL, postgres://wardrik:***@127.0.0.1:5432/test (schema wardrik)');
    const fromOption = resolve({ setting: { sqlite: 'runs.db' }, override: URL }).store;
    expect(fromOption).toBeInstanceOf(PostgresStore);
    const sqlite = resolve({ setting: { postgres: URL }, override: 'data/runs.db' }).store;
    expect((sqlite as SqliteStore).path).toBe('/srv/app/data/runs.db');
    for (const store of [fromEnvironment, fromConfig, fromOption, sqlite]) await store.close();
  });

  it('keeps a Store made in code, and takes { sqlite: path } relative to the config', async () => {
    const made = memoryStore();
    expect(resolve({ setting: made, override: undefined }).store).toBe(made);
    const sqlite = resolve({ setting: { sqlite: 'runs.db' } }).store as SqliteStore;
    expect(sqlite.path).toBe('/srv/app/runs.db');
    await sqlite.close();
  });

  it('refuses a malformed store setting, naming what is expected', () => {
    const agents = [defineAgent({ name: 'a', instructions: '', model: new ScriptedModel([]) })];
    const config = (store: unknown) => ({ agents, store });
    expect(() => checkConfig(config({ postgres: 'mysql://x' }), 'config')).toThrow(
      'config.store.postgres: expected a postgres:// URL',
    );
    expect(() => checkConfig(config({ postgres: URL, schema: 'x' }), 'config')).toThrow('takes no other key');
    expect(() => checkConfig(config({ sqlite: 3 }), 'config')).toThrow('config.store.sqlite: expected the path');
    expect(() => checkConfig(config('runs.db'), 'config')).toThrow(
      "config.store: expected a Store, { postgres: 'postgres://…' } or { sqlite: 'path' }",
    );
  });
});

describe('wardrik migrate', () => {
  let directory: string;
  beforeAll(async () => {
    await buildCli();
    mkdirSync(tmpRoot, { recursive: true });
    directory = mkdtempSync(join(tmpRoot, 'migrate-'));
    writeFileSync(
      join(directory, 'wardrik.config.mjs'),
      "import { defineAgent } from 'wardrik';\nimport { ScriptedModel } from 'wardrik/testing';\n" +
        "export default { agents: [defineAgent({ name: 'a', instructions: '', model: new ScriptedModel([]) })] };\n",
    );
  }, 120_000);
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const migrate = (args: readonly string[], env: Record<string, string> = {}) =>
    execFileSync(process.execPath, [cliPath, 'migrate', ...args], {
      cwd: directory,
      env: cleanEnv(env),
      encoding: 'utf8',
    });

  it('creates the schema of the SQLite file next to the config', () => {
    expect(migrate([])).toContain(`The schema of SQLite, ${join(directory, '.wardrik', 'wardrik.db')} is up to date.`);
    expect(existsSync(join(directory, '.wardrik', 'wardrik.db'))).toBe(true);
  });

  it('creates the schema of a PostgreSQL database named by --store or WARDRIK_DATABASE_URL', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    expect(JSON.parse(migrate(['--store', url, '--json']))).toEqual({ store: `PostgreSQL, ${url}`, migrated: true });
    expect(migrate([], { WARDRIK_DATABASE_URL: url })).toContain(`The schema of PostgreSQL, ${url} is up to date.`);
  });

  it('names a server that cannot be reached, without its password', () => {
    let failed = '';
    try {
      migrate(['--store', 'postgres://wardrik:s3cret@127.0.0.1:1/test']);
    } catch (thrown) {
      failed = String((thrown as { stderr?: string }).stderr);
    }
    expect(failed).toContain('postgres://wardrik:***@127.0.0.1:1/test');
    expect(failed).not.toContain('s3cret');
  });
});
