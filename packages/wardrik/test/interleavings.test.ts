/*
 * Every interleaving of answer, cancel, park and end must converge (issue 11, item 1): an answer
 * or a cancel is sent at each point of a run's life — on each journal event, after 0 to 5
 * microtasks, a macrotask or a timer — and the run must always reach an end (or stay parked with an
 * open park), driven exactly once, with a journal that rebuilds to the same state.
 */
import { ok, park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWardrik,
  defineAgent,
  type JournalRecordType,
  type ParkDecision,
  type RunResult,
  type Store,
  sqliteStore,
  type Wardrik,
} from '../src/index.js';
import { rebuildState } from '../src/journal/state.js';
import { lastToolResults, MemoryStore, memoryStore, ScriptedModel } from '../src/testing/index.js';
import { after, DELAYS, describeDelay, tempDbPath, until } from './helpers.js';

const STORES: ReadonlyArray<{ name: string; open: () => Store }> = [
  { name: 'memory', open: () => memoryStore() },
  { name: 'SQLite', open: () => sqliteStore(tempDbPath()) },
];

let executed: string[] = [];
const opened: Wardrik[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  executed = [];
});

/** `refund` parks until a person says run it; `lookup` is read-only and answers at once. */
const refund = tool({
  name: 'refund',
  description: 'Refund an order; waits for a person.',
  schema: { order: { type: 'string', required: true } },
  run: ({ order }, context) => {
    if (!context.approval) return park(`refund of ${order} needs a person`);
    executed.push(`refund ${order}`);
    return ok({ refunded: order });
  },
});
const lookup = tool({
  name: 'lookup',
  description: 'Look an order up.',
  schema: { order: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ order }) => ok({ order, status: 'shipped' }),
});

function agent(orders: readonly string[]) {
  const model = new ScriptedModel([
    { toolCalls: [...orders.map((order) => ({ name: 'refund', arguments: { order } })), lookupCall] },
    (request) => ({ text: `done: ${lastToolResults(request).length} answers` }),
  ]);
  return defineAgent({ name: 'refunds', instructions: '', model, tools: [refund, lookup] });
}
const lookupCall = { name: 'lookup', arguments: { order: 'A0' } };

async function open(store: Store, orders: readonly string[]): Promise<Wardrik> {
  const wardrik = await createWardrik({
    store,
    agents: [agent(orders)],
    toolRetry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
  });
  opened.push(wardrik);
  return wardrik;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/**
 * Waits until the run has settled for good: ended, or parked with an open park and nothing being
 * driven. A run left `running` with nobody driving it fails here, naming its state.
 */
async function settled(wardrik: Wardrik, runId: string): Promise<string> {
  try {
    await until(async () => {
      const run = await wardrik.getRunSummary(runId);
      if (ENDED.has(run.status)) return true;
      if (run.status !== 'parked' || wardrik.activeRuns > 0) return false;
      return (await wardrik.listParks({ runId, status: 'open' })).length > 0;
    }, 10_000);
  } catch {
    const run = await wardrik.getRun(runId);
    throw new Error(
      `run ${runId} never settled: ${run.status}, ${wardrik.activeRuns} driven, journal ${run.journal.map((each) => each.record.type).join(' ')}`,
    );
  }
  return (await wardrik.getRunSummary(runId)).status;
}

/** The journal is gapless, has at most one end, and rebuilds to the status the row shows. */
async function checkJournal(wardrik: Wardrik, runId: string): Promise<void> {
  const run = await wardrik.getRun(runId);
  expect(run.journal.map((each) => each.seq)).toEqual(run.journal.map((_, index) => index + 1));
  expect(run.journal.filter((each) => each.record.type === 'run-ended').length).toBeLessThanOrEqual(1);
  expect(rebuildState(runId, run.journal).status).toBe(run.status);
}

/** Starts a run and sends `operation` after `delay` the first time `trigger` happens. */
async function race(
  wardrik: Wardrik,
  trigger: JournalRecordType,
  delay: Delay,
  operation: (wardrik: Wardrik, runId: string) => Promise<unknown>,
): Promise<{ runId: string; outcome: Promise<unknown>; waited: Promise<RunResult> }> {
  let fired = false;
  let outcome: Promise<unknown> = Promise.resolve();
  let runId = '';
  const unsubscribe = wardrik.subscribe('*', (event) => {
    if (fired || event.type !== trigger) return;
    fired = true;
    outcome = new Promise((resolve, reject) =>
      after(delay, () => operation(wardrik, event.runId).then(resolve, reject)),
    );
  });
  ({ runId } = await wardrik.start('refunds', 'refund please'));
  const waited = wardrik.wait(runId);
  await until(() => fired, 10_000);
  unsubscribe();
  return { runId, outcome, waited };
}

/** Answers the first open park of the run (found through the API a person uses). */
async function answerFirst(wardrik: Wardrik, runId: string, decision: ParkDecision = { type: 'retry' }) {
  const [open] = await wardrik.listParks({ runId, status: 'open' });
  if (!open) throw new Error('no open park to answer');
  await wardrik.answerPark(open.id, decision, { callHash: open.callHash, by: 'alice' });
}

async function answerAll(wardrik: Wardrik, runId: string): Promise<void> {
  for (;;) {
    const parks = await wardrik.listParks({ runId, status: 'open' });
    if (parks.length === 0) return;
    for (const open of parks) await wardrik.answerPark(open.id, { type: 'retry' }, { callHash: open.callHash });
  }
}

describe.each(STORES)('interleavings on the $name store', ({ open: openStore }) => {
  it.each(DELAYS)('a park answered %s after it is journaled: the run completes', async (_, delay) => {
    const wardrik = await open(openStore(), ['A1']);
    const { runId, outcome, waited } = await race(wardrik, 'run-parked', delay, (w, id) => answerFirst(w, id));
    await outcome;
    expect(['parked', 'completed']).toContain((await waited).status);
    expect(await settled(wardrik, runId), describeDelay(delay)).toBe('completed');
    expect(executed).toEqual(['refund A1']);
    await checkJournal(wardrik, runId);
  });

  it.each(DELAYS)(
    'both parks of a step answered %s after each is journaled: the run completes once',
    async (_, delay) => {
      const wardrik = await open(openStore(), ['A1', 'A2']);
      const answered: Array<Promise<unknown>> = [];
      const unsubscribe = wardrik.subscribe('*', (event) => {
        if (event.type !== 'run-parked' || event.record.type !== 'run-parked') return;
        const parked = event.record.park;
        answered.push(
          new Promise((resolve, reject) =>
            after(delay, () =>
              wardrik.answerPark(parked.id, { type: 'retry' }, { callHash: parked.callHash }).then(resolve, reject),
            ),
          ),
        );
      });
      const { runId } = await wardrik.start('refunds', 'refund please');
      await until(() => answered.length === 2, 10_000);
      await Promise.all(answered);
      unsubscribe();
      expect(await settled(wardrik, runId), describeDelay(delay)).toBe('completed');
      expect(executed.sort()).toEqual(['refund A1', 'refund A2']);
      await checkJournal(wardrik, runId);
    },
  );

  for (const trigger of ['run-started', 'model-step', 'call-started', 'call-answered', 'run-parked'] as const) {
    it.each(DELAYS)(`a cancel %s after ${trigger}: the run ends cancelled, nothing held runs`, async (_, delay) => {
      const wardrik = await open(openStore(), ['A1']);
      const { runId, outcome, waited } = await race(wardrik, trigger, delay, (w, id) => w.cancel(id, 'stop it'));
      const cancelled = (await outcome) as RunResult;
      expect(cancelled.status, describeDelay(delay)).toBe('cancelled');
      expect((await waited).status).toMatch(/^(cancelled|parked)$/);
      expect(await settled(wardrik, runId)).toBe('cancelled');
      expect(executed).toEqual([]);
      expect(await wardrik.listParks({ runId, status: 'open' })).toEqual([]);
      await checkJournal(wardrik, runId);
    });
  }

  it.each(DELAYS)(
    'an answer and a cancel racing %s after the park: one end, the refund at most once',
    async (_, delay) => {
      const wardrik = await open(openStore(), ['A1']);
      let cancel: Promise<unknown> = Promise.resolve();
      const { runId, outcome } = await race(wardrik, 'run-parked', delay, (w, id) => {
        cancel = w.cancel(id, 'changed my mind').catch((thrown: Error) => thrown);
        return answerFirst(w, id).catch((thrown: Error) => thrown);
      });
      await outcome;
      await cancel;
      const status = await settled(wardrik, runId);
      expect(['cancelled', 'completed']).toContain(status);
      expect(executed.length).toBeLessThanOrEqual(1);
      if (status === 'completed') expect(executed).toEqual(['refund A1']);
      await checkJournal(wardrik, runId);
    },
  );

  it.each(DELAYS)('a budget park stopped %s after it is journaled: the run ends failed', async (_, delay) => {
    const store = openStore();
    const model = new ScriptedModel(() => ({ toolCalls: [lookupCall] }));
    const wardrik = await createWardrik({
      store,
      agents: [defineAgent({ name: 'refunds', instructions: '', model, tools: [lookup], budget: { steps: 1 } })],
    });
    opened.push(wardrik);
    const { runId, outcome } = await race(wardrik, 'run-parked', delay, (w, id) =>
      answerFirst(w, id, { type: 'stop', reason: 'enough' }),
    );
    await outcome;
    expect(await settled(wardrik, runId)).toBe('failed');
    await checkJournal(wardrik, runId);
  });

  it('answers sent right after listing parks, many runs at once: every run completes', async () => {
    const wardrik = await open(openStore(), ['A1']);
    const runs = await Promise.all(Array.from({ length: 20 }, () => wardrik.start('refunds', 'refund please')));
    await until(async () => (await wardrik.listParks({ status: 'open' })).length > 0, 10_000);
    const seen = new Set<string>();
    while (seen.size < runs.length) {
      for (const open of await wardrik.listParks({ status: 'open' })) {
        if (seen.has(open.id)) continue;
        seen.add(open.id);
        await wardrik.answerPark(open.id, { type: 'retry' }, { callHash: open.callHash });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const { runId } of runs) {
      expect(await settled(wardrik, runId)).toBe('completed');
      await checkJournal(wardrik, runId);
    }
    expect(executed).toHaveLength(runs.length);
    await answerAll(wardrik, runs[0]!.runId);
  });
});

describe('a cancel that comes while a call’s intent is being written', () => {
  it('the tool is never run: the call is answered cancelled and the run ends cancelled', async () => {
    let sent = 0;
    const send = tool({
      name: 'send',
      description: 'Sends (not safe to repeat).',
      run: () => {
        sent += 1;
        return 'sent';
      },
    });
    /** The write of a call's intent waits until the test lets it go. */
    class GatedStore extends MemoryStore {
      gate: Promise<void> | undefined;
      reached: (() => void) | undefined;
      override async write(...args: Parameters<MemoryStore['write']>) {
        if (this.gate && args[0].records.some((each) => each.record.type === 'call-started')) {
          this.reached?.();
          await this.gate;
        }
        return super.write(...args);
      }
    }
    const store = new GatedStore();
    let letGo!: () => void;
    store.gate = new Promise<void>((resolve) => (letGo = resolve));
    const reached = new Promise<void>((resolve) => (store.reached = resolve));
    const agent = defineAgent({
      name: 'sender',
      instructions: '',
      tools: [send],
      model: new ScriptedModel([{ toolCalls: [{ name: 'send', arguments: {} }] }, { text: 'done' }]),
    });
    const wardrik = await createWardrik({ store, agents: [agent] });
    opened.push(wardrik);
    const { runId } = await wardrik.start('sender', 'send it');
    await reached;
    const cancelled = wardrik.cancel(runId, 'changed my mind');
    letGo();
    expect((await cancelled).status).toBe('cancelled');
    expect(sent).toBe(0);
    const journal = (await wardrik.getRun(runId)).journal.map((each) => each.record);
    expect(journal.find((record) => record.type === 'call-answered')).toMatchObject({
      answer: { type: 'error', code: 'cancelled' },
    });
  });
});
