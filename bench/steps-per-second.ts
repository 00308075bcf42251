// Steps a second of 64 concurrent runs of 100 read-only calls each (a scripted model that answers at
// once), on SQLite FULL (or `STORE=memory`), after 3 waves to warm up; prints steps/s, wall and CPU
// (every thread's) a step. Plain on purpose: it runs unchanged against an older tree of this repo, so
// that old and new code can be measured alternately in the same minutes (`bench/old-against-new.sh`
// does it all: a worktree of the older commit, its node_modules linked to this one's, both built):
//   node --expose-gc --import tsx bench/steps-per-second.ts      (from the build: `npm run build` first)
//   bash bench/old-against-new.sh 6b3a958 8                      (8 pairs against the code before issue 18)
// Sizes: RUNS (64), CALLS (100), WAVES (15). STORE=memory, or STORE=postgres (the server on 127.0.0.1, a
// schema of its own, dropped at the end; DATABASE_URL to change it).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import pg from 'pg';
import { createWardrik, defineAgent, postgresStore, sqliteStore } from 'wardrik';
import { memoryStore, ScriptedModel } from 'wardrik/testing';

const RUNS = Number(process.env.RUNS ?? 64);
const CALLS = Number(process.env.CALLS ?? 100);
const WAVES = Number(process.env.WAVES ?? 15);

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 42 }),
});
const model = new ScriptedModel((request) =>
  request.step <= CALLS
    ? { toolCalls: [{ name: 'lookup', arguments: { key: `k${request.step}` } }] }
    : { text: 'done' },
);
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `sps_${process.pid}_${Date.now()}`;
const store =
  process.env.STORE === 'memory'
    ? memoryStore()
    : process.env.STORE === 'postgres'
      ? postgresStore(databaseUrl, { schema })
      : sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-sps-')), 'x.db'));
const wardrik = await createWardrik({
  store,
  // CALLS calls and the final answer: the default maxSteps (50) would end every run early, failed.
  agents: [defineAgent({ name: 'bench', instructions: '', tools: [lookup], model, maxSteps: CALLS + 1 })],
});
// bench/completed-run.ts's check, written out: this script runs unchanged against older trees, which lack it.
const completed = async () => {
  const result = await wardrik.run('bench', 'go');
  if (result.status !== 'completed') throw new Error(`a run ended ${result.status}: ${result.error}`);
};
const wave = () => Promise.all(Array.from({ length: RUNS }, completed));

for (let warm = 0; warm < 3; warm++) await wave();
const started = process.hrtime.bigint();
const cpu = process.cpuUsage();
for (let index = 0; index < WAVES; index++) await wave();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const used = process.cpuUsage(cpu);
const steps = WAVES * RUNS * (CALLS + 1);
console.log(
  `${Math.round(steps / seconds)} steps/s, wall ${((seconds * 1e6) / steps).toFixed(1)} µs a step, CPU ${((used.user + used.system) / steps).toFixed(1)} µs a step`,
);
await wardrik.close();
if (process.env.STORE === 'postgres') {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
