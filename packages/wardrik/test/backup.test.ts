/*
 * Backups and the CLI's retention commands against a real `wardrik serve` (issue 29 item 2):
 * `wardrik backup FILE` copies the SQLite store while runs keep being started — the copy opens, is
 * whole, and holds every run acknowledged before the backup began — and the README's restore (stop,
 * put the copy in place, start) brings them back; `wardrik runs export RUN` writes the journal as
 * JSON lines; `wardrik runs purge` deletes ended runs (admins only).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  callApi,
  configDirectory,
  type ServeProcess,
  spawnWardrik,
  startServeProcess,
  until,
} from './serve-process.js';
import { dropTestSchema, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const directories: string[] = [];
const nodes: ServeProcess[] = [];
afterAll(() => {
  for (const node of nodes)
    if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

async function serveIn(directory: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const node = await startServeProcess(directory, { env: { SHUTDOWN_EXEC_LOG: join(directory, 'exec.log'), ...env } });
  nodes.push(node);
  return node;
}

async function wardrikCli(directory: string, args: readonly string[]) {
  const run = spawnWardrik(args, { cwd: directory });
  const { code } = await run.exited;
  return { code, stdout: run.output.stdout, stderr: run.output.stderr };
}

describe('wardrik backup', () => {
  it('copies the SQLite store while it serves: the copy opens and holds every acknowledged run; restoring it brings them back', async () => {
    const directory = configDirectory('shutdown-config.mjs');
    directories.push(directory);
    const node = await serveIn(directory);
    const acknowledged: string[] = [];
    let loading = true;
    const start = async () => {
      const { status, json } = await callApi(node, '/v1/runs', { agent: 'mailer', input: 'mail' });
      expect(status).toBe(201);
      acknowledged.push(json.runId);
    };
    for (let index = 0; index < 20; index++) await start();
    // Runs keep being started (and driven) while the copy is made.
    const load = (async () => {
      while (loading) await start();
    })();
    const before = [...acknowledged];
    const copy = join(directory, 'backups', 'wardrik-copy.db');
    mkdirSync(join(directory, 'backups'));
    const backup = await wardrikCli(directory, ['backup', copy, '--config', 'wardrik.config.mjs', '--json']);
    const during = acknowledged.length;
    loading = false;
    await load;
    expect(backup.code, backup.stderr).toBe(0);
    expect(during).toBeGreaterThan(before.length); // it was serving meanwhile
    const made = JSON.parse(backup.stdout) as { path: string; runs: number; schemaVersion: number };
    expect(made.path).toBe(copy);
    expect(made.runs).toBeGreaterThanOrEqual(before.length);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(existsSync(`${copy}-wal`)).toBe(false);

    const opened = new Database(copy, { readonly: true });
    try {
      expect(opened.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = new Set(opened.prepare('SELECT id FROM runs').pluck().all() as string[]);
      expect(before.filter((runId) => !ids.has(runId))).toEqual([]);
    } finally {
      opened.close();
    }

    // It never overwrites a file.
    const again = await wardrikCli(directory, ['backup', copy, '--config', 'wardrik.config.mjs']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists: a backup never overwrites a file/);

    // Restore, as the README says: stop the server, put the copy in place of the store, start it.
    node.child.kill('SIGTERM');
    expect((await node.exited).code).toBe(0);
    const store = join(directory, '.wardrik', 'wardrik.db');
    for (const file of [store, `${store}-wal`, `${store}-shm`]) rmSync(file, { force: true });
    copyFileSync(copy, store);
    const restored = await serveIn(directory);
    const { json } = await callApi(restored, '/v1/runs?limit=1000');
    const restoredIds = new Set(json.runs.map((run: { id: string }) => run.id));
    expect(before.filter((runId) => !restoredIds.has(runId))).toEqual([]);
    restored.child.kill('SIGTERM');
    expect((await restored.exited).code).toBe(0);
  }, 180_000);

  it('sends PostgreSQL stores to pg_dump, naming it', async () => {
    const directory = configDirectory('shutdown-config.mjs');
    directories.push(directory);
    const result = await wardrikCli(directory, [
      'backup',
      join(directory, 'copy.db'),
      '--config',
      'wardrik.config.mjs',
      '--store',
      'postgres://postgres@127.0.0.1:5432/test',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/back PostgreSQL up with pg_dump/);
  }, 60_000);
});

describe('PostgreSQL: pg_dump and pg_restore, as the README says', () => {
  it('a dump taken while serving, restored into an empty database, serves its runs again', async () => {
    const directory = configDirectory('shutdown-config.mjs');
    directories.push(directory);
    const schema = testSchemaName();
    const restoredDatabase = `wardrik_restore_${randomBytes(4).toString('hex')}`;
    const server = new URL(TEST_DATABASE_URL);
    const connection = [
      '--host',
      server.hostname,
      '--port',
      server.port || '5432',
      '--username',
      decodeURIComponent(server.username),
    ];
    const restoredUrl = new URL(TEST_DATABASE_URL);
    restoredUrl.pathname = `/${restoredDatabase}`;
    try {
      const node = await serveIn(directory, { SHUTDOWN_PG_URL: TEST_DATABASE_URL, SHUTDOWN_PG_SCHEMA: schema });
      const runIds: string[] = [];
      for (let index = 0; index < 3; index++) {
        const { json } = await callApi(node, '/v1/runs', { agent: 'mailer', input: `mail ${index}`, wait: true });
        expect(json.status).toBe('completed');
        runIds.push(json.runId);
      }
      const dump = join(directory, 'wardrik.dump');
      execFileSync('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, TEST_DATABASE_URL]);
      node.child.kill('SIGTERM');
      expect((await node.exited).code).toBe(0);

      execFileSync('createdb', [...connection, restoredDatabase]);
      execFileSync('pg_restore', ['--no-owner', `--dbname=${restoredUrl.href}`, dump]);
      const restored = await serveIn(directory, { SHUTDOWN_PG_URL: restoredUrl.href, SHUTDOWN_PG_SCHEMA: schema });
      const { json } = await callApi(restored, '/v1/runs');
      expect(json.runs.map((run: { id: string }) => run.id).sort()).toEqual([...runIds].sort());
      const more = await callApi(restored, '/v1/runs', { agent: 'mailer', input: 'after the restore', wait: true });
      expect(more.json.status).toBe('completed');
      restored.child.kill('SIGTERM');
      expect((await restored.exited).code).toBe(0);
    } finally {
      await dropTestSchema(schema);
      execFileSync('dropdb', [...connection, '--if-exists', restoredDatabase]);
    }
  }, 180_000);
});

describe('wardrik runs export and purge', () => {
  it('exports a run as JSON lines, and purges ended runs for admins only', async () => {
    const directory = configDirectory('shutdown-config.mjs');
    directories.push(directory);
    const node = await serveIn(directory);
    const { json: run } = await callApi(node, '/v1/runs', { agent: 'mailer', input: 'mail', wait: true });
    expect(run.status).toBe('completed');
    const connection = ['--url', node.url, '--token', node.token];

    const exported = await wardrikCli(directory, ['runs', 'export', run.runId, ...connection]);
    expect(exported.code, exported.stderr).toBe(0);
    const [header, ...records] = exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({
      format: 'wardrik-run-export',
      version: 1,
      run: { id: run.runId, status: 'completed' },
    });
    expect(records.map((line: { record: { type: string } }) => line.record.type).at(-1)).toBe('run-ended');
    const file = join(directory, 'run.jsonl');
    expect((await wardrikCli(directory, ['runs', 'export', run.runId, '--output', file, ...connection])).code).toBe(0);
    const refused = await wardrikCli(directory, ['runs', 'export', run.runId, '--output', file, ...connection]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/it exists/);

    const { json: operator } = await callApi(node, '/v1/tokens', { name: 'ops', role: 'operator' });
    const forbidden = await wardrikCli(directory, [
      'runs',
      'purge',
      '--before',
      '0m',
      '--status',
      'ended',
      '--url',
      node.url,
      '--token',
      operator.token,
    ]);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/purging runs is for admins only/);
    const badStatus = await wardrikCli(directory, [
      'runs',
      'purge',
      '--before',
      '0m',
      '--status',
      'running',
      ...connection,
    ]);
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toMatch(/a running run is never purged/);
    const badBefore = await wardrikCli(directory, [
      'runs',
      'purge',
      '--before',
      'last week',
      '--status',
      'ended',
      ...connection,
    ]);
    expect(badBefore.code).toBe(2);
    expect(badBefore.stderr).toMatch(/--before expects an ISO date/);

    const purged = await wardrikCli(directory, ['runs', 'purge', '--before', '0m', '--status', 'ended', ...connection]);
    expect(purged.code, purged.stderr).toBe(0);
    expect(purged.stdout).toMatch(
      /^Purged 1 run \(completed, failed, cancelled\) last written before .*, with 14 journal records\.$/m,
    );
    expect((await callApi(node, `/v1/runs/${run.runId}`)).status).toBe(404);
    // Logged, as every purge is.
    await until(() =>
      node.logs().some((line) => line.component === 'retention' && line.kind === 'runs' && line.count === 1),
    );
    node.child.kill('SIGTERM');
    expect((await node.exited).code).toBe(0);
  }, 180_000);
});
