/*
 * SIGTERM to one of two real `wardrik serve` nodes on one PostgreSQL, mid-load (issue 29 item 1).
 * The stopping node is not ready before its port closes and refuses new runs; the calls it has
 * under way finish and are journaled; it gives each run's lease back as its driver stops (a
 * release, which NOTIFYs `claimable`), so the other node takes the runs over at once rather than
 * once their leases expire; every run completes, each call run exactly once. Before: no
 * readiness, and the stop cut the calls under way short (in doubt, or run again).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { signalChannel } from '../src/store/postgres/connection.js';
import { callApi, configDirectory, pollReady, type ServeProcess, startServeProcess, until } from './serve-process.js';
import { dropTestSchema, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const RUNS = 12;
const schema = testSchemaName();
const directory = configDirectory('shutdown-config.mjs');
const env = {
  SHUTDOWN_EXEC_LOG: join(directory, 'exec.log'),
  SHUTDOWN_GATE: join(directory, 'gate'),
  SHUTDOWN_PG_URL: TEST_DATABASE_URL,
  SHUTDOWN_PG_SCHEMA: schema,
};
const nodes: ServeProcess[] = [];
let listener: pg.Client | undefined;
afterAll(async () => {
  for (const node of nodes)
    if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
  await listener?.end().catch(() => {});
  rmSync(directory, { recursive: true, force: true });
  await dropTestSchema(schema);
});

function executions() {
  if (!existsSync(env.SHUTDOWN_EXEC_LOG)) return [];
  return readFileSync(env.SHUTDOWN_EXEC_LOG, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { tool: string; key: string; runId: string; pid: number });
}

it('the other node takes the runs of a node stopped with SIGTERM over at once: 0 lost, 0 run twice', async () => {
  const a = await startServeProcess(directory, { env });
  nodes.push(a);
  const b = await startServeProcess(directory, { env });
  nodes.push(b);
  // Watch the store's signals as the nodes do: a lease released while its run needs driving says `claimable`.
  listener = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await listener.connect();
  const claimable = new Set<string>();
  listener.on('notification', (message) => {
    const signal = JSON.parse(message.payload ?? '{}') as { type?: string; runId?: string };
    if (signal.type === 'claimable' && signal.runId) claimable.add(signal.runId);
  });
  await listener.query(`LISTEN "${signalChannel(schema)}"`);

  const runIds: string[] = [];
  for (let index = 0; index < RUNS; index++) {
    const { status, json } = await callApi(a, '/v1/runs', { agent: 'mailer', input: `mail ${index}` });
    expect(status).toBe(201);
    runIds.push(json.runId);
  }
  // Mid-load on a: every run has its send_email under way there (held at the gate).
  await until(async () => {
    const journals = await Promise.all(
      runIds.map(async (runId) => (await callApi(a, `/v1/runs/${runId}`)).json.journal),
    );
    return journals.every((journal: { record: { type: string; name?: string } }[]) =>
      journal.some((stored) => stored.record.type === 'call-started' && stored.record.name === 'send_email'),
    );
  });

  const ready = pollReady(a.url);
  a.child.kill('SIGTERM');
  await until(() => ready.samples.some((sample) => 'status' in sample && sample.status === 503));
  const refused = await callApi(a, '/v1/runs', { agent: 'mailer', input: 'one more' });
  expect(refused.status).toBe(503);
  expect((await fetch(`${b.url}/v1/ready`)).status).toBe(200);
  writeFileSync(env.SHUTDOWN_GATE, '');
  expect(await a.exited).toEqual({ code: 0, signal: null });
  await ready.stop();
  const kinds = ready.samples.map((sample) => ('error' in sample ? sample.error : String(sample.status)));
  const refusedAt = kinds.indexOf('ECONNREFUSED');
  expect(kinds.indexOf('503')).toBeGreaterThan(-1);
  expect(kinds.indexOf('503')).toBeLessThan(refusedAt === -1 ? kinds.length : refusedAt);
  expect(a.logs().find((line) => line.msg === 'runs handed over')).toMatchObject({ settled: RUNS, cutShort: 0 });

  // b finishes every run.
  await until(async () => {
    const { json } = await callApi(b, '/v1/runs?limit=1000');
    return json.runs.filter((run: { status: string }) => run.status === 'completed').length === RUNS;
  }, 120_000);
  // Each was handed over by a release (not left to expire): a NOTIFYed it claimable, and b drove its last calls.
  expect(runIds.filter((runId) => !claimable.has(runId))).toEqual([]);
  const done = executions();
  for (const runId of runIds) {
    const last = done.filter((each) => each.runId === runId).slice(-2);
    expect(last.map((each) => each.pid)).toEqual([b.child.pid, b.child.pid]);
  }
  // 0 double executions: each call ran once, on one node or the other; nothing was left in doubt.
  expect(done).toHaveLength(RUNS * 4);
  expect(new Set(done.map((each) => each.key)).size).toBe(RUNS * 4);
  expect((await callApi(b, '/v1/parks')).json.parks).toEqual([]);
  b.child.kill('SIGTERM');
  expect((await b.exited).code).toBe(0);
}, 240_000);
