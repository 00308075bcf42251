// What a retention sweep costs the runs going on (issue 29 item 2): `/v1/health` probed from
// another process while 64 runs are live on SQLite FULL, in the seconds before a sweep and during
// a sweep that purges 10,000 ended runs (batches of 500, a 20 ms pause between two: the defaults;
// BATCH=200 tries another batch size), three rounds of each, with the sweep's duration and the
// live load's steps/s in each window. Run with `npm run bench -- retention`.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tool } from '@wardrik/core';
import {
  AuthService,
  createWardrik,
  defineAgent,
  type JournalRecord,
  type Store,
  sqliteStore,
  startServer,
} from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { completedRun } from './completed-run.js';
import { percentile, table, us } from './stats.js';

const RUNS = 10_000;
const ROUNDS = 3;
const LIVE = 64;
const baselineMs = Number(process.env.BASELINE_MS ?? 3_000);
const batchSize = Number(process.env.BATCH ?? 500);
const DAY = 86_400_000;

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

/** Writes `count` ended runs 40 days old, 3 journal records each, as nodes would have. */
async function writeEndedRuns(store: Store, count: number, round = 0): Promise<void> {
  const at = Date.now() - 40 * DAY;
  const writes: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const runId = `run_old_${round}_${index}`;
    const records: JournalRecord[] = [
      { v: 4, at, type: 'run-started', agent: 'bench', principal: 'p', input: 'go', budget: {}, maxSteps: 5 },
      {
        v: 4,
        at,
        type: 'model-step',
        step: 1,
        model: 'scripted',
        text: 'done',
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      { v: 4, at, type: 'run-ended', status: 'completed', output: 'done', labels: [], measures: {} },
    ];
    writes.push(
      store.write(
        {
          runId,
          run: {
            id: runId,
            agent: 'bench',
            principal: 'p',
            status: 'completed',
            createdAt: at,
            updatedAt: at,
            measures: {},
            labels: [],
          },
          records: records.map((record, seq) => ({ runId, seq: seq + 1, record })),
        },
        { durable: false },
      ),
    );
  }
  await Promise.all(writes);
}

export async function main(): Promise<void> {
  const model = new ScriptedModel((request) =>
    request.step <= 100
      ? { toolCalls: [{ name: request.step % 2 ? 'lookup' : 'update', arguments: { key: `k${request.step}` } }] }
      : { text: 'done' },
  );
  const store = sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'bench.db'));
  const wardrik = await createWardrik({
    store,
    agents: [defineAgent({ name: 'bench', instructions: '', model, tools, maxSteps: 200 })],
    retention: { endedRunsDays: 30, sweepIntervalMs: 24 * 3_600_000, batchSize },
  });
  const server = await startServer({ wardrik, auth: new AuthService(wardrik.store), port: 0 });
  await writeEndedRuns(wardrik.store, RUNS);

  let loading = true;
  // Counted call by call (each step of these runs is one call), not run by run.
  let steps = 0;
  wardrik.hooks.on('call-settled', () => {
    steps += 1;
  });
  const load = Promise.all(
    Array.from({ length: LIVE }, async () => {
      while (loading) await completedRun(wardrik);
    }),
  );
  const prober = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./retention-probe.ts', import.meta.url)),
      `http://127.0.0.1:${server.port}`,
      '2',
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let output = '';
  prober.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const probed = new Promise<[number, number][]>((resolve, reject) =>
    prober.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`probe exited ${code}`)))),
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the prober and the load get going
  // Three rounds, for enough probes: a window without a sweep, then one sweeping 10,000 runs.
  const windows: { before: [number, number]; during: [number, number] }[] = [];
  let baselineSteps = 0;
  let sweepSteps = 0;
  let sweepMs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) await writeEndedRuns(wardrik.store, RUNS, round);
    const baselineStart = Date.now();
    const stepsBefore = steps;
    await new Promise((resolve) => setTimeout(resolve, baselineMs));
    baselineSteps += steps - stepsBefore;
    const sweepStart = Date.now();
    const stepsAtSweep = steps;
    const totals = await wardrik.retention.sweep();
    const sweepEnd = Date.now();
    if (totals?.runs !== RUNS) throw new Error(`the sweep purged ${totals?.runs} runs, not ${RUNS}`);
    sweepSteps += steps - stepsAtSweep;
    sweepMs += sweepEnd - sweepStart;
    windows.push({ before: [baselineStart, sweepStart], during: [sweepStart, sweepEnd] });
  }
  prober.stdin.end();
  const samples = await probed;
  loading = false;
  await load;
  await server.close();
  await wardrik.close();

  const within = (from: number, to: number) =>
    samples.filter(([at]) => at >= from && at < to).map(([, latency]) => latency);
  const before = windows.flatMap((window) => within(...window.before));
  const during = windows.flatMap((window) => within(...window.during));
  const sweepSeconds = sweepMs / 1000 / ROUNDS;
  const row = (name: string, latencies: number[], seconds: number, stepsDone: number) => ({
    window: name,
    probes: latencies.length,
    'health p50': us(percentile(latencies, 50)),
    'health p99': us(percentile(latencies, 99)),
    'health max': us(Math.max(...latencies)),
    'live steps/s': Math.round(stepsDone / seconds).toLocaleString('en'),
  });
  table(
    `/v1/health from another process (every 2 ms) while ${LIVE} runs × 100 calls are live on SQLite FULL: before a sweep, and while a sweep purges ${RUNS.toLocaleString('en')} ended runs (${ROUNDS} rounds; ${Math.round(RUNS / sweepSeconds).toLocaleString('en')} runs/s, ${sweepSeconds.toFixed(2)} s a sweep, batches of ${batchSize})`,
    [
      row('no sweep', before, (ROUNDS * baselineMs) / 1000, baselineSteps),
      row('sweeping', during, sweepMs / 1000, sweepSteps),
      {
        window: 'sweeping ÷ no sweep (p99)',
        'health p99': `${(percentile(during, 99) / percentile(before, 99)).toFixed(2)}×`,
      },
    ],
  );
}
