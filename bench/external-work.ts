// What delivering a result of long-running work costs (`completeExternal`: a webhook answering the
// run that waits for it; a child run's end answering its parent's wait) when many runs wait at once.
// The same deliveries are timed with few runs waiting and with many: the ratio shows whether a
// delivery's cost grows with how many other runs wait. SQLite (FULL), and PostgreSQL
// (the benchmarks' database; EXTERNAL_POSTGRES=0 leaves it out).
// Also the event loop's longest stall over a window that holds one of the runtime's looks over the
// open waits (every 30 s; EXTERNAL_STALL=0 leaves it out).
// Run: npm run bench -- external-work
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { started, tool } from '@wardrik/core';
import { createWardrik, defineAgent, type Store, sqliteStore, type Wardrik } from 'wardrik';
import { postgresStore } from 'wardrik/postgres';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';
import { DATABASE_URL, dropSchema, schemaName } from './postgres-db.ts';
import { median, table, us } from './stats.js';

/** Runs left waiting in the "many" round (none of them is answered). */
const WAITING = Number(process.env.EXTERNAL_WAITING ?? '5000');
/** Deliveries timed in each round. */
const DELIVERIES = Number(process.env.EXTERNAL_DELIVERIES ?? '200');
const ROUNDS = Number(process.env.EXTERNAL_ROUNDS ?? '3');
/** Whether to time the event loop's longest stall over a window holding one look over the open waits. */
const STALL = process.env.EXTERNAL_STALL !== '0';
/** The window: a little longer than the runtime's 30 s between looks over the open waits. */
const STALL_MS = 31_000;

/** The event loop's longest delay (ms) over `STALL_MS`, sampled every millisecond. */
async function longestStall(): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, STALL_MS));
  delay.disable();
  return delay.max / 1e6;
}

const startJob = tool({
  name: 'start_job',
  description: 'Starts a job; its result comes later.',
  schema: { job: { type: 'string', required: true } },
  run: ({ job }) => started('the job runs', { handle: job }),
});

const agent = defineAgent({
  name: 'waiter',
  instructions: 'Start the job the input names, then report.',
  model: new ScriptedModel((request) =>
    lastToolResults(request).length > 0
      ? { text: 'done' }
      : { toolCalls: [{ name: 'start_job', arguments: { job: String(request.messages[0]?.content ?? '') } }] },
  ),
  tools: [startJob],
});

/** Parks `count` runs on jobs named `prefix-0…`, all at once. */
async function park(wardrik: Wardrik, prefix: string, count: number): Promise<void> {
  const batch = 200;
  for (let from = 0; from < count; from += batch) {
    const runs = [];
    for (let index = from; index < Math.min(count, from + batch); index += 1) {
      runs.push(wardrik.run('waiter', `${prefix}-${index}`));
    }
    for (const result of await Promise.all(runs)) {
      if (result.status !== 'parked') throw new Error(`expected a parked run, got ${result.status}`);
    }
  }
}

interface Timing {
  /** Median µs of finding the park that waits for a handle (`listParks({ handle })`). */
  readonly find: number;
  /** Median µs of delivering a result (`completeExternal`, which finds the park, then answers it). */
  readonly deliver: number;
}

/** Times `DELIVERIES` jobs named `prefix-…` (parked first, untimed): finding each park, then delivering. */
async function deliveries(wardrik: Wardrik, prefix: string): Promise<Timing> {
  await park(wardrik, prefix, DELIVERIES);
  const find: number[] = [];
  const deliver: number[] = [];
  for (let index = 0; index < DELIVERIES; index += 1) {
    const handle = `${prefix}-${index}`;
    let began = performance.now();
    // Filtered here too, as the runtime does: code before the handle filter lists every open wait.
    const found = (await wardrik.listParks({ status: 'open', kind: 'external', handle })).filter(
      (each) => each.handle === handle,
    );
    find.push((performance.now() - began) * 1000);
    if (found.length !== 1) throw new Error(`expected one park waiting for ${handle}, found ${found.length}`);
    began = performance.now();
    await wardrik.completeExternal(handle, { value: 'ok' });
    deliver.push((performance.now() - began) * 1000);
  }
  return { find: median(find), deliver: median(deliver) };
}

async function measure(name: string, store: () => Store): Promise<Record<string, string | number>[]> {
  const wardrik = await createWardrik({ store: store(), agents: [agent] });
  try {
    const few: Timing[] = [];
    const many: Timing[] = [];
    for (let round = 0; round < ROUNDS; round += 1) few.push(await deliveries(wardrik, `few-${round}`));
    const stallFew = STALL ? await longestStall() : Number.NaN;
    await park(wardrik, 'idle', WAITING);
    for (let round = 0; round < ROUNDS; round += 1) many.push(await deliveries(wardrik, `many-${round}`));
    const stallMany = STALL ? await longestStall() : Number.NaN;
    const row = (what: string, pick: (timing: Timing) => number) => {
      const fewMedian = median(few.map(pick));
      const manyMedian = median(many.map(pick));
      return {
        store: name,
        what,
        [`≤ ${DELIVERIES} waiting`]: us(fewMedian),
        [`${WAITING} more waiting`]: us(manyMedian),
        'many / few (1.00 = flat)': (manyMedian / fewMedian).toFixed(2),
      };
    };
    const rows = [
      row('finding the park', (timing) => timing.find),
      row('delivering the result', (timing) => timing.deliver),
    ];
    if (STALL) {
      rows.push({
        store: name,
        what: `longest stall of the event loop over ${STALL_MS / 1000} s (one look over the open waits)`,
        [`≤ ${DELIVERIES} waiting`]: `${stallFew.toFixed(1)} ms`,
        [`${WAITING} more waiting`]: `${stallMany.toFixed(1)} ms`,
        'many / few (1.00 = flat)': (stallMany / stallFew).toFixed(2),
      });
    }
    return rows;
  } finally {
    await wardrik.close();
  }
}

export async function main(): Promise<void> {
  const rows = await measure('SQLite (FULL)', () =>
    sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-bench-external-')), 'wardrik.db')),
  );
  if (process.env.EXTERNAL_POSTGRES !== '0') {
    const schema = schemaName();
    try {
      rows.push(...(await measure('PostgreSQL', () => postgresStore(DATABASE_URL, { schema }))));
    } finally {
      await dropSchema(schema);
    }
  }
  table(`Delivering results of long-running work (median of ${ROUNDS} rounds of ${DELIVERIES})`, rows);
}
