/*
 * A node restarted under its old name on PostgreSQL (real processes, SIGKILL): leases are held by
 * a node's incarnation, not its name, so the new process neither renews its dead predecessor's
 * leases (which kept those runs `running` with nobody driving them for as long as it lived) nor
 * writes under them: it takes those runs over as it starts. Also the store's rule itself, on every
 * adapter: renewal keeps only the caller's incarnation's leases.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/index.js';
import { dropTestSchema, storeFactories, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const nodePath = fileURLToPath(new URL('./cluster/node.ts', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'wardrik-restart-'));
const schema = testSchemaName();
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
  await dropTestSchema(schema);
});

/** Starts a node process named `name`; resolves once it is ready, with a way to send it commands and read its lines. */
async function startNode(name: string, toolDelayMs: number) {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@wardrik/source',
      '--import',
      'tsx',
      nodePath,
      TEST_DATABASE_URL,
      schema,
      join(directory, 'exec.log'),
      name,
    ],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
      // A lease long enough for the restarted process to be up and renewing before the old leases expire.
      env: { ...process.env, CLUSTER_LEASE_MS: '8000', CLUSTER_TOOL_DELAY_MS: String(toolDelayMs) },
    },
  );
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>);
      buffer = buffer.slice(newline + 1);
    }
  });
  await until(() => {
    if (child.exitCode !== null) throw new Error(`${name} exited:\n${stderr}`);
    return lines.some((line) => line.ready);
  });
  return {
    child,
    lines,
    send: (command: object) => child.stdin?.write(`${JSON.stringify(command)}\n`),
  };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function query<Row extends object>(sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe('a node restarted under its old name', () => {
  it('takes the runs its SIGKILLed predecessor held at once, and never renews their old leases', async () => {
    const first = await startNode('a', 3_000);
    first.send({ start: 5 });
    await until(() => first.lines.filter((line) => typeof line.runId === 'string').length === 5);
    const runIds = first.lines.flatMap((line) => (typeof line.runId === 'string' ? [line.runId] : []));
    // Every run is under way (its first, slow calls started) when the process dies.
    await until(
      async () =>
        (
          await query<{ n: string }>(
            `SELECT count(DISTINCT run_id) AS n FROM journal WHERE run_id = ANY($1) AND record::jsonb->>'type' = 'call-started'`,
            [runIds],
          )
        )[0]?.n === '5',
    );
    const before = await query<{ run_id: string; epoch: string; records: string }>(
      `SELECT l.run_id, l.epoch, (SELECT count(*) FROM journal j WHERE j.run_id = l.run_id) AS records
       FROM leases l WHERE l.run_id = ANY($1)`,
      [runIds],
    );
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = await startNode('a', 2_000);
    // It keeps starting runs of its own, so it always holds (and renews) leases: before leases
    // were held by incarnation, renewing them by name renewed the dead one's too, for good, and
    // nobody drove those runs.
    const starting = setInterval(() => second.send({ start: 1 }), 500);
    try {
      // Each is taken over by the new incarnation (the next epoch) and driven on (its journal grows).
      await until(async () => {
        const now = await query<{ run_id: string; epoch: string; records: string }>(
          `SELECT l.run_id, l.epoch, (SELECT count(*) FROM journal j WHERE j.run_id = l.run_id) AS records
           FROM leases l WHERE l.run_id = ANY($1)`,
          [runIds],
        );
        return before.every((old) => {
          const lease = now.find((each) => each.run_id === old.run_id);
          return Number(lease?.epoch) > Number(old.epoch) && Number(lease?.records) > Number(old.records);
        });
      }, 30_000);
    } finally {
      clearInterval(starting);
    }
    second.child.kill('SIGKILL');
  }, 120_000);
});

describe.each(storeFactories.filter((factory) => factory.leasesExpire))('leases by incarnation on $name', (factory) => {
  const old = { node: 'a', incarnation: 'a-1', leaseMs: 60_000 };
  const restarted = { node: 'a', incarnation: 'a-2', leaseMs: 60_000 };
  const other = { node: 'b', incarnation: 'b-1', leaseMs: 60_000 };

  it('renews only the caller’s incarnation’s leases; a claim by the restarted node takes the run over with the next epoch', async () => {
    const store: Store = await factory.open();
    await store.migrate();
    try {
      const held = await store.claimRun('r1', old);
      expect(held?.epoch).toBe(1);
      expect([...(await store.renewLeases(restarted))]).toEqual([]);
      expect([...(await store.renewLeases(old))]).toEqual(['r1']);
      expect(await store.claimRun('r1', other)).toBeUndefined();
      const taken = await store.claimRun('r1', restarted);
      expect(taken).toEqual({ runId: 'r1', node: 'a', epoch: 2 });
      expect([...(await store.renewLeases(old))]).toEqual([]);
      expect(await store.claimRun('r1', restarted)).toEqual(taken); // its own: the same lease
    } finally {
      await store.close();
    }
  });
});
