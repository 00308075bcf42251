/*
 * Workers across nodes as real processes (issue 13): three Wardrik nodes, each its own process
 * with its own server (cluster/worker-node.ts), on one PostgreSQL schema, and MCP SDK workers in
 * processes of their own. A worker connected to node A serves runs driven on node B — everything
 * through the API of node B — and node A is SIGKILLed while its worker runs two of B's calls:
 * once A's liveness lapses (by the database's clock), the call that is not repeatable parks in
 * doubt on B, and the read-only one is retried on a worker connected to node C. Waits are on
 * events (records, API states), never on the clock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import type { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';
import type { Recorded } from './workers-env.js';
import {
  answersOf,
  type Credentials,
  FIXTURES,
  plan,
  ROOT,
  SLOW,
  until,
  WorkerProcess,
  workerCall,
  workerOf,
} from './workers-env.js';

const nodeScript = fileURLToPath(new URL('./cluster/worker-node.ts', import.meta.url));
const schema = testSchemaName();
const record = join(mkdtempSync(join(tmpdir(), 'wardrik-node-processes-')), 'calls.jsonl');
writeFileSync(record, '');

interface NodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  stderr: string;
}

const nodes = new Map<string, NodeProcess>();
const workers: WorkerProcess[] = [];
let store: PostgresStore;
let adminToken = '';
let worker: Credentials;

function startNode(name: string): NodeProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@wardrik/source', '--import', 'tsx', nodeScript, TEST_DATABASE_URL, schema, name],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_LEASE_MS: '1000' } },
  );
  const node: NodeProcess = {
    name,
    child,
    stderr: '',
    url: new Promise((resolve, reject) => {
      let buffer = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        const line = buffer.split('\n').find((each) => each.includes('"ready"'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}):\n${node.stderr}`)));
    }),
  };
  node.url.catch(() => {});
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    node.stderr += chunk;
  });
  nodes.set(name, node);
  return node;
}

async function api(name: string, method: string, path: string, body?: unknown) {
  const url = await (nodes.get(name) as NodeProcess).url;
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

function records(tool: string, event: Recorded['event']): Recorded[] {
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Recorded)
    .filter((line) => line.tool === tool && line.event === event);
}

async function startWorker(at: string, name: string, options: readonly string[] = []): Promise<WorkerProcess> {
  const url = await (nodes.get(at) as NodeProcess).url;
  const process = new WorkerProcess(name, [
    join(FIXTURES, 'mcp-worker.ts'),
    url,
    worker.token,
    record,
    name,
    ...options,
  ]);
  workers.push(process);
  return process;
}

/** Waits until node `on` lists a worker named by `principal` on node `at` offering `tool`. */
async function listedOn(on: string, at: string, tool: string): Promise<void> {
  let last: unknown;
  await until(
    async () => {
      const { json } = await api(on, 'GET', '/v1/workers');
      last = json;
      return (json?.workers ?? []).some(
        (each: { node: string; principal: string; tools: string[] }) =>
          each.node === at && each.principal === worker.name && each.tools.includes(tool),
      );
    },
    SLOW,
    () => `${on} to list a worker on ${at} offering ${tool}: ${JSON.stringify(last)}`,
  );
}

async function openParks(on: string, runId: string) {
  const { json } = await api(on, 'GET', `/v1/parks?runId=${runId}&status=open`);
  return (json?.parks ?? []) as Array<{ id: string; kind: string; reason: string; callHash: string }>;
}

beforeAll(async () => {
  store = openPostgresTestStore({ schema, keepSchema: true, pool: { max: 2 } });
  await store.migrate();
  const auth = new AuthService(store);
  const admin = await auth.createPrincipalWithToken({ name: 'admin', kind: 'user', role: 'admin', agents: ['*'] });
  adminToken = admin.token;
  const made = await auth.createPrincipalWithToken({ name: 'crew', kind: 'worker', role: 'worker', agents: ['*'] });
  worker = { id: made.principal.id, name: made.principal.name, token: made.token };
  for (const name of ['node-a', 'node-b', 'node-c']) startNode(name);
  await Promise.all([...nodes.values()].map((node) => node.url));
}, SLOW);

afterAll(async () => {
  await Promise.all(workers.map((each) => each.kill('SIGKILL')));
  for (const node of nodes.values()) node.child.kill('SIGKILL');
  await store?.close();
  await dropTestSchema(schema);
});

it(
  'node A is SIGKILLed while its worker runs calls of runs on node B: the unsafe one parks in doubt, the read-only one runs on node C',
  async () => {
    const w1 = await startWorker('node-a', 'w1');
    await w1.ready;
    await listedOn('node-b', 'node-a', 'slow_refund');

    // A read-only call, served at once by node A's worker for node B's run.
    const quick = await api('node-b', 'POST', '/v1/runs', {
      agent: 'support',
      input: plan([workerCall('lookup', { key: 'k0' })]),
      wait: true,
    });
    expect(quick.status).toBe(201);
    expect(workerOf(answersOf(quick.json.output)[0])).toBe('w1');

    // Two calls of runs on node B, both running on w1 (node A): a refund (approved on node C) and a read-only lookup.
    const refund = await api('node-b', 'POST', '/v1/runs', {
      agent: 'support',
      input: plan([workerCall('slow_refund', { orderId: 'A1', ms: 120_000 })]),
    });
    const refundRun = refund.json.runId as string;
    await until(async () => (await openParks('node-b', refundRun)).some((park) => park.kind === 'approval'));
    const [approval] = await openParks('node-c', refundRun);
    const answered = await api('node-c', 'POST', `/v1/parks/${approval?.id}/answer`, {
      decision: { type: 'retry' },
      callHash: approval?.callHash,
    });
    expect(answered.status).toBe(200);
    const lookup = await api('node-b', 'POST', '/v1/runs', {
      agent: 'support',
      input: plan([workerCall('slow_lookup', { key: 'k1', ms: 120_000 })]),
    });
    const lookupRun = lookup.json.runId as string;
    await until(() => records('slow_refund', 'call').length === 1 && records('slow_lookup', 'call').length === 1);
    expect([...records('slow_refund', 'call'), ...records('slow_lookup', 'call')].map((line) => line.worker)).toEqual([
      'w1',
      'w1',
    ]);
    expect(records('slow_refund', 'call')[0]?.meta).toMatchObject({ run: refundRun, agent: 'support' });

    // A worker of the same principal connects to node C; then node A dies mid-call.
    const w2 = await startWorker('node-c', 'w2', ['--fast']);
    await w2.ready;
    await listedOn('node-b', 'node-c', 'slow_lookup');
    (nodes.get('node-a') as NodeProcess).child.kill('SIGKILL');

    await until(async () => (await openParks('node-b', refundRun)).some((park) => park.kind === 'in_doubt'), SLOW);
    const [inDoubt] = await openParks('node-b', refundRun);
    expect(inDoubt?.reason).toMatch(/node node-a, where worker \S+ is connected, stopped renewing its liveness/);
    expect((await api('node-b', 'GET', `/v1/runs/${refundRun}`)).json.status).toBe('parked');

    let run: { status: string; output?: string } | undefined;
    await until(async () => {
      run = (await api('node-b', 'GET', `/v1/runs/${lookupRun}`)).json;
      return run?.status === 'completed';
    }, SLOW);
    expect(workerOf(answersOf(run?.output)[0])).toBe('w2');
    const lookups = records('slow_lookup', 'call');
    expect(lookups.map((line) => line.worker)).toEqual(['w1', 'w2']);
    expect(lookups[0]?.meta.idempotencyKey).toBe(lookups[1]?.meta.idempotencyKey);
    // The refund ran once, and nobody runs it again on its own.
    expect(records('slow_refund', 'call')).toHaveLength(1);

    // Node B lists node C's worker only: node A's is gone with its node.
    const listed = await api('node-b', 'GET', '/v1/workers');
    expect(listed.json.workers.map((each: { node: string }) => each.node)).toEqual(['node-c']);
  },
  SLOW * 3,
);
