/*
 * Telemetry (issue 29, item 3): the store's commit metrics count every journal record written, on
 * every store — whatever path wrote it. A park's answer is journaled outside the group commit (in
 * the transaction that takes the answer): it was missed on SQLite and PostgreSQL (62 counted, 63
 * in the journal). Checked against the journal itself after parks answered (retry, answer, fail),
 * cancels (parked and mid-call), a restart (a new process answers and cancels what the first left).
 * A sibling on PostgreSQL: a group commit told its listeners of writes it refused (their lease lost).
 */
import { error, ok, park, tool } from '@wardrik/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, enableMetrics, sqliteStore, type Wardrik } from '../src/index.js';
import type { StoredRecord } from '../src/journal/records.js';
import type { ModelRequest } from '../src/model/model.js';
import type { Lease, Store } from '../src/store/store.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath, until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';

const needsPerson = tool({
  name: 'needs_person',
  description: 'Waits for a person.',
  schema: {},
  run: (_args, context) => (context.approval ? ok('approved') : park('ask a person')),
});
/** Runs until the run is cancelled (its signal aborts). */
const slow = tool({
  name: 'slow',
  description: 'Takes its time.',
  schema: {},
  annotations: { idempotent: true },
  run: (_args, context) =>
    new Promise((resolve) => context.signal.addEventListener('abort', () => resolve(error('stopped')))),
});
const model = new ScriptedModel((request: ModelRequest) => {
  const first = request.messages[0];
  const input = first?.role === 'user' ? first.content : '';
  if (request.step > 1) return { text: 'done' };
  if (input === 'park') return { toolCalls: [{ name: 'needs_person', arguments: {} }] };
  if (input === 'slow') return { toolCalls: [{ name: 'slow', arguments: {} }] };
  return { text: 'nothing to do' };
});
const agent = defineAgent({ name: 'counted', instructions: '', model, tools: [needsPerson, slow] });

/** One process: a runtime on `store` whose commits are counted as `/metrics` counts them. */
async function open(store: Store) {
  const wardrik = await createWardrik({ store, agents: [agent], modelRetry: { attempts: 1 } });
  const metrics = enableMetrics(wardrik, { processMetrics: false });
  const counted = async (name: string) => {
    const line = (await metrics.render()).split('\n').find((each) => each.startsWith(`${name} `));
    return Number(line?.split(' ')[1] ?? 0);
  };
  return { wardrik, counted };
}

/** Every journal record of these runs, as the store holds them. */
async function journaled(wardrik: Wardrik, runIds: readonly string[]): Promise<number> {
  let records = 0;
  for (const runId of runIds) records += (await wardrik.getRun(runId)).journal.length;
  return records;
}

async function parked(wardrik: Wardrik) {
  const result = await wardrik.run('counted', 'park');
  expect(result.status).toBe('parked');
  const [open] = result.parks;
  return { runId: result.runId, parkId: open!.id, callHash: open!.callHash };
}

/**
 * The workload, in two processes on one store: what the first commits (runs ended plainly, parks
 * answered three ways (retry, answer, fail), a parked run cancelled, a call cut short by a cancel) and what the second
 * commits after it (a park left open by the first answered, another run left parked cancelled).
 */
async function countAcrossRestart(openStore: () => Store): Promise<void> {
  const runIds: string[] = [];
  const first = await open(openStore());
  const plain = await first.wardrik.run('counted', 'hello');
  runIds.push(plain.runId);
  for (const decision of [
    { type: 'retry' },
    { type: 'answer', value: 'done by hand' },
    { type: 'fail', reason: 'no' },
  ] as const) {
    const held = await parked(first.wardrik);
    runIds.push(held.runId);
    await first.wardrik.answerPark(held.parkId, decision, { callHash: held.callHash, by: 'olivia' });
    expect((await first.wardrik.wait(held.runId)).status).toBe('completed');
  }
  const cancelledParked = await parked(first.wardrik);
  runIds.push(cancelledParked.runId);
  expect((await first.wardrik.cancel(cancelledParked.runId)).status).toBe('cancelled');
  const { runId: cutShort } = await first.wardrik.start('counted', 'slow');
  runIds.push(cutShort);
  await until(async () =>
    (await first.wardrik.getRun(cutShort)).journal.some(({ record }) => record.type === 'call-started'),
  );
  expect((await first.wardrik.cancel(cutShort)).status).toBe('cancelled');
  const leftOpen = await parked(first.wardrik);
  const leftParked = await parked(first.wardrik);
  runIds.push(leftOpen.runId, leftParked.runId);
  const firstJournal = await journaled(first.wardrik, runIds);
  await first.wardrik.close();
  expect(await first.counted('wardrik_store_committed_records_total')).toBe(firstJournal);
  expect(await first.counted('wardrik_store_commit_duration_seconds_count')).toBeGreaterThan(0);

  // The restart: a new process answers one park the first left open and cancels another run.
  const second = await open(openStore());
  await second.wardrik.answerPark(leftOpen.parkId, { type: 'retry' }, { callHash: leftOpen.callHash, by: 'olivia' });
  expect((await second.wardrik.wait(leftOpen.runId)).status).toBe('completed');
  expect((await second.wardrik.cancel(leftParked.runId)).status).toBe('cancelled');
  const total = await journaled(second.wardrik, runIds);
  await second.wardrik.close();
  expect(await second.counted('wardrik_store_committed_records_total')).toBe(total - firstJournal);
}

describe('commit metrics count every journal record', () => {
  it('SQLite: parks answered, cancels, a restart', async () => {
    const path = tempDbPath();
    await countAcrossRestart(() => sqliteStore(path));
  });

  describe('PostgreSQL', () => {
    const schema = testSchemaName();
    afterAll(() => dropTestSchema(schema));
    it('parks answered, cancels, a restart', async () => {
      await countAcrossRestart(() => openPostgresTestStore({ schema, keepSchema: true }));
    });

    it('a write refused in a group commit (its lease lost) is not counted: it journaled nothing', async () => {
      const store = openPostgresTestStore();
      try {
        await store.migrate();
        const node = { node: 'node-a', incarnation: 'a1', leaseMs: 60_000 };
        const kept = (await store.claimRun('kept', node)) as Lease;
        const lost = (await store.claimRun('lost', node)) as Lease;
        await store.releaseLease(lost);
        await store.claimRun('lost', { node: 'node-b', incarnation: 'b1', leaseMs: 60_000 });
        let told = 0;
        store.onCommit((commit) => {
          told += commit.records;
        });
        const record = (runId: string, seq: number): StoredRecord => ({
          runId,
          seq,
          record: { type: 'labels-released', v: 1, at: seq, labels: [], by: 'bob', reason: `record ${seq}` },
        });
        const outcomes = await Promise.allSettled([
          store.write(
            { runId: 'kept', records: [record('kept', 1), record('kept', 2)], lease: kept },
            { durable: true },
          ),
          store.write({ runId: 'lost', records: [record('lost', 1)], lease: lost }, { durable: true }),
        ]);
        expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
        expect((await store.loadJournal('kept')).length + (await store.loadJournal('lost')).length).toBe(2);
        expect(told).toBe(2);
      } finally {
        await store.close();
      }
    });
  });
});
