// How the server answers while runs keep it busy (issue 18, item 3): `/v1/health` probed from
// another process, idle and then under 64 concurrent runs of 100 calls, with SQLite FULL's commits
// made in the background (the default: a commit thread, and the fsync on the thread pool) and inline
// (SQLite's own FULL on the event loop), in the same process run. Also the load's throughput in each mode.
// Run with `npm run bench -- responsiveness`.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tool } from '@wardrik/core';
import { AuthService, createWardrik, defineAgent, sqliteStore, startServer } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { completedRun } from './completed-run.js';
import { percentile, table, us } from './stats.js';

const probeMs = Number(process.env.PROBE_MS ?? 4_000);
const gapMs = 2;

const tools = [
  tool({
    name: 'lookup',
    description: 'Looks a key up.',
    schema: { key: { type: 'string', required: true } },
    annotations: { readOnly: true },
    run: ({ key }) => ({ key, value: 42 }),
  }),
  tool({
    name: 'update',
    description: 'Changes a record (not repeatable: its intent and answer are durable barriers).',
    schema: { key: { type: 'string', required: true } },
    run: ({ key }) => ({ key, updated: true }),
  }),
];

function probe(url: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./health-probe.ts', import.meta.url)),
        url,
        String(probeMs),
        String(gapMs),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`probe exited ${code}`))));
  });
}

async function measure(commits: 'background' | 'inline', toolName: string): Promise<Record<string, string>> {
  const model = new ScriptedModel((request) =>
    request.step <= 100
      ? { toolCalls: [{ name: toolName, arguments: { key: `k${request.step}` } }] }
      : { text: 'done' },
  );
  const store = sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'bench.db'), { commits });
  const wardrik = await createWardrik({
    store,
    agents: [defineAgent({ name: 'bench', instructions: '', model, tools, maxSteps: 200 })],
  });
  const server = await startServer({ wardrik, auth: new AuthService(wardrik.store), port: 0 });
  const url = `http://127.0.0.1:${server.port}`;
  await Promise.all(Array.from({ length: 64 }, () => wardrik.run('bench', 'warm up')));

  const idle = await probe(url);

  let loading = true;
  let steps = 0;
  const started = performance.now();
  const load = Promise.all(
    Array.from({ length: 64 }, async () => {
      while (loading) {
        await completedRun(wardrik);
        steps += 100;
      }
    }),
  );
  const busy = await probe(url);
  loading = false;
  const seconds = (performance.now() - started) / 1000;
  await load;
  await server.close();
  await wardrik.close();
  const idleP99 = percentile(idle, 99);
  const busyP99 = percentile(busy, 99);
  return {
    'commits made': commits,
    tool: toolName === 'lookup' ? 'read-only' : 'unannotated',
    'idle p50': us(percentile(idle, 50)),
    'idle p99': us(idleP99),
    'loaded p50': us(percentile(busy, 50)),
    'loaded p99': us(busyP99),
    'loaded max': us(Math.max(...busy)),
    'p99 ÷ idle p99 (target ≤ 5×)': `${(busyP99 / idleP99).toFixed(1)}×`,
    'load steps/s': Math.round(steps / seconds).toLocaleString('en'),
    commits: String(store.stats().flushes),
  };
}

export async function main(): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (const toolName of ['update', 'lookup']) {
    for (const commits of ['inline', 'background'] as const) rows.push(await measure(commits, toolName));
  }
  table(
    `/v1/health probed from another process (every ${gapMs} ms for ${probeMs / 1000} s), idle and under 64 concurrent runs × 100 calls, SQLite FULL`,
    rows,
  );
}
