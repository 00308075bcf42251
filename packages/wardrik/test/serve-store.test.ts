/*
 * `wardrik serve` and its SQLite store as real processes (issue 11, items 2 and 3):
 * - one process per SQLite store: a second serve on the same store fails at once, naming the file
 *   and the holder's pid, before it recovers (or parks in doubt) anything the first is running;
 * - serve binds its port before it recovers anything;
 * - crash-only: a store that fails (here, a file size limit: writes fail as on a full disk) stops
 *   the server, which exits non-zero; a restart recovers every run with no call run twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { buildCli, cliPath, tmpRoot } from './cli-process.js';

/**
 * The agent: `send_email` (not repeatable) logs each execution's idempotency key and, while the file
 * `hold` exists, waits; then the model answers.
 */
const CONFIG = `import { appendFileSync, existsSync } from 'node:fs';
import { tool } from '@wardrik/core';
import { defineAgent, defineConfig } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

const here = new URL('.', import.meta.url).pathname;
const sendEmail = tool({
  name: 'send_email',
  description: 'Send an email.',
  schema: { to: { type: 'string', required: true } },
  run: async ({ to }, context) => {
    appendFileSync(here + 'exec.log', context.idempotencyKey + '\\n');
    while (existsSync(here + 'hold')) await new Promise((resolve) => setTimeout(resolve, 20));
    return { sent: to, note: 'x'.repeat(400) };
  },
});
const model = new ScriptedModel([
  { text: 'Sending it.', toolCalls: [{ name: 'send_email', arguments: { to: 'a@example.com' } }] },
  { text: 'Sent. ' + 'y'.repeat(400) },
]);
export default defineConfig({ agents: [defineAgent({ name: 'mailer', instructions: '', model, tools: [sendEmail] })] });
`;

/** Preloaded into the serve that plays a full disk: with a file size limit, a write past it fails (EFBIG) instead of the signal killing the process. */
const IGNORE_SIGXFSZ = `process.on('SIGXFSZ', () => {});\n`;

let directory: string;
const children: ChildProcess[] = [];

beforeAll(buildCli, 120_000);

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  if (directory) rmSync(directory, { recursive: true, force: true });
});
afterAll(() => rmSync(join(tmpRoot, 'ignore-sigxfsz.mjs'), { force: true }));

function newDirectory(): string {
  directory = mkdtempSync(join(tmpRoot, 'serve-store-'));
  writeFileSync(join(directory, 'wardrik.config.mjs'), CONFIG);
  return directory;
}

interface Serve {
  readonly child: ChildProcess;
  /** Resolves with the URL once the banner is out; rejects if the process exits first. */
  readonly ready: Promise<string>;
  readonly exited: Promise<number | null>;
  output(): string;
}

function serve(args: readonly string[] = [], options: { fileSizeLimitKb?: number } = {}): Serve {
  const command = [process.execPath, cliPath, 'serve', '--port', '0', ...args];
  let child: ChildProcess;
  if (options.fileSizeLimitKb === undefined) {
    child = spawn(command[0] as string, command.slice(1), { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    const preload = join(tmpRoot, 'ignore-sigxfsz.mjs');
    writeFileSync(preload, IGNORE_SIGXFSZ);
    const quoted = [command[0], '--import', preload, ...command.slice(1)].map((part) => `'${part}'`).join(' ');
    child = spawn('bash', ['-c', `ulimit -f ${options.fileSizeLimitKb}; exec ${quoted}`], {
      cwd: directory,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
  children.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /Wardrik listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] && output.includes('Try it')) resolve(match[1]);
    };
    child.stdout?.on('data', check);
    exited.then((code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
  });
  ready.catch(() => {});
  return { child, ready, exited, output: () => output };
}

function adminToken(): string {
  return readFileSync(join(directory, '.wardrik', 'admin-token'), 'utf8').trim();
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken()}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function executions(): string[] {
  const log = join(directory, 'exec.log');
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

function inDb<T>(query: (database: Database.Database) => T): T {
  const database = new Database(join(directory, '.wardrik', 'wardrik.db'), { readonly: true });
  try {
    return query(database);
  } finally {
    database.close();
  }
}

const openParks = () =>
  inDb(
    (database) => (database.prepare(`SELECT count(*) AS n FROM parks WHERE status = 'open'`).get() as { n: number }).n,
  );

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts a run whose send_email call is in flight (held by the `hold` file); resolves with its id. */
async function runInFlight(url: string): Promise<string> {
  writeFileSync(join(directory, 'hold'), '');
  const response = await api(url, 'POST', '/v1/runs', { agent: 'mailer', input: 'mail them' });
  expect(response.status).toBe(201);
  const { runId } = (await response.json()) as { runId: string };
  await waitFor(() => executions().length > 0, 'the call to start');
  return runId;
}

it('a second serve on the same store fails at once, naming the file and the holder, and touches nothing', async () => {
  newDirectory();
  const first = serve();
  const url = await first.ready;
  const runId = await runInFlight(url);

  const second = serve();
  expect(await second.exited).toBe(1);
  expect(second.output()).toContain(join(directory, '.wardrik', 'wardrik.db'));
  expect(second.output()).toContain(`in use by another process (pid ${first.child.pid}`);
  expect(second.output()).not.toContain('listening');
  // It recovered nothing: the call the first one runs was not parked in doubt.
  expect(openParks()).toBe(0);

  rmSync(join(directory, 'hold'));
  await waitFor(async () => {
    const run = (await (await api(url, 'GET', `/v1/runs/${runId}`)).json()) as { status: string };
    return run.status === 'completed';
  }, 'the run to complete on the first server');
  expect(executions()).toEqual([`${runId}:c1.0`]);
  expect((await fetch(`${url}/v1/health`)).status).toBe(200);
}, 120_000);

it('serve binds its port before it recovers anything: a port in use stops it with the runs untouched', async () => {
  newDirectory();
  const first = serve();
  const url = await first.ready;
  await runInFlight(url);
  first.child.kill('SIGKILL');
  await first.exited;

  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const blocked = serve(['--port', String(port)]);
    expect(await blocked.exited).toBe(1);
    expect(blocked.output()).toContain('the port is in use');
    expect(openParks()).toBe(0); // not recovered: the lost call was not parked in doubt
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }

  const third = serve();
  await third.ready;
  expect(third.output()).toContain('Resumed 1 interrupted run');
  await waitFor(() => openParks() === 1, 'the lost call to park in doubt');
  expect(executions()).toHaveLength(1);
}, 120_000);

it('a store that fails (a full disk) stops the server, which exits non-zero; a restart recovers every run, none twice', async () => {
  newDirectory();
  // Make the store first, so the limit only bites once runs write.
  const setup = serve();
  await setup.ready;
  setup.child.kill('SIGTERM');
  expect(await setup.exited).toBe(0);

  const limited = serve([], { fileSizeLimitKb: 400 });
  const url = await limited.ready;
  const started: string[] = [];
  let refused: Response | undefined;
  while (limited.child.exitCode === null) {
    const response = await api(url, 'POST', '/v1/runs', { agent: 'mailer', input: 'mail them' }).catch(() => undefined);
    if (!response) break; // the server is gone
    if (response.status === 201) started.push(((await response.json()) as { runId: string }).runId);
    else {
      refused = response;
      break;
    }
  }
  expect(await limited.exited).toBe(1);
  expect(limited.output()).toContain('the store failed');
  expect(started.length).toBeGreaterThan(0);
  if (refused) expect([503]).toContain(refused.status);

  const restarted = serve();
  const again = await restarted.ready;
  // Every run ends: the lost calls that were not answered wait as in doubt; say what happened.
  await waitFor(async () => {
    const { runs } = (await (await api(again, 'GET', '/v1/runs?status=running')).json()) as { runs: unknown[] };
    return runs.length === 0;
  }, 'recovery to settle every run');
  const ran = new Set(executions());
  const { parks } = (await (await api(again, 'GET', '/v1/parks?status=open')).json()) as {
    parks: Array<{ id: string; callHash: string; call: { idempotencyKey: string } }>;
  };
  for (const open of parks) {
    const decision = ran.has(open.call.idempotencyKey) ? { type: 'answer', value: 'sent' } : { type: 'retry' };
    const answered = await api(again, 'POST', `/v1/parks/${open.id}/answer`, { decision, callHash: open.callHash });
    expect(answered.status).toBe(200);
  }
  // Every run completes: those whose start was acknowledged, and any the server wrote but died before
  // acknowledging (its 201 never reached us).
  await waitFor(async () => {
    const { runs } = (await (await api(again, 'GET', '/v1/runs')).json()) as {
      runs: Array<{ id: string; status: string }>;
    };
    const completed = new Set(runs.filter((run) => run.status === 'completed').map((run) => run.id));
    return completed.size === runs.length && started.every((runId) => completed.has(runId));
  }, 'every run to complete');
  // No call ran twice, and every run started before the failure is there.
  const log = executions();
  expect(new Set(log).size).toBe(log.length);
  const known = inDb((database) =>
    (database.prepare('SELECT id FROM runs').all() as Array<{ id: string }>).map((row) => row.id),
  );
  for (const runId of started) expect(known).toContain(runId);
}, 180_000);
