import { ok, park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWardrik,
  defineAgent,
  InvalidParkAnswerError,
  ParkAlreadyAnsweredError,
  ParkNotFoundError,
  RunEndedError,
  StaleParkAnswerError,
  type Wardrik,
} from '../src/index.js';
import { lastToolResults, MemoryStore, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

const refunds: Array<{ amount: number; by?: string }> = [];
const refund = tool({
  name: 'refund',
  description: 'Refund an amount; over 100 needs a manager.',
  schema: { amount: { type: 'number', required: true } },
  run: ({ amount }, context) => {
    if ((amount as number) > 100 && !context.approval)
      return park('refund over 100 needs a manager', { details: { amount } });
    refunds.push({ amount: amount as number, ...(context.approval ? { by: context.approval.by } : {}) });
    return ok({ refunded: amount });
  },
});

function refundAgent() {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] },
    (request) => ({ text: `answer: ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
  ]);
  return defineAgent({ name: 'refunds', instructions: '', model, tools: [refund] });
}

const opened: Wardrik[] = [];
async function open(path: string) {
  const wardrik = await openWardrik(path, [refundAgent()]);
  opened.push(wardrik);
  return wardrik;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  refunds.length = 0;
});

describe('parks', () => {
  it('a tool that answers park parks the run, which holds no memory until answered', async () => {
    const wardrik = await open(tempDbPath());
    const result = await wardrik.run('refunds', 'refund 500');
    expect(result.status).toBe('parked');
    expect(wardrik.activeRuns).toBe(0);
    const [parked] = result.parks;
    expect(parked).toMatchObject({
      kind: 'tool',
      reason: 'refund over 100 needs a manager',
      details: { amount: 500 },
      call: { name: 'refund', arguments: { amount: 500 }, idempotencyKey: `${result.runId}:c1.0` },
      status: 'open',
    });
    expect(await wardrik.listParks({ status: 'open' })).toHaveLength(1);
    expect((await wardrik.getRun(result.runId)).status).toBe('parked');
  });

  it('is answered and resumed in a new process after a restart', async () => {
    const path = tempDbPath();
    const first = await open(path);
    const { runId, parks } = await first.run('refunds', 'refund 500');
    await first.close();

    const second = await open(path);
    const [parked] = await second.listParks({ status: 'open' });
    expect(parked?.id).toBe(parks[0]?.id);
    await second.answerPark(
      parked!.id,
      { type: 'retry', note: 'approved' },
      { callHash: parked!.callHash, by: 'manager' },
    );
    const result = await second.wait(runId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('answer: {"refunded":500}');
    expect(refunds).toEqual([{ amount: 500, by: 'manager' }]);
    const answered = await second.getPark(parked!.id);
    expect(answered).toMatchObject({
      status: 'answered',
      decision: { type: 'retry', note: 'approved' },
      answeredBy: 'manager',
    });
  });

  it('takes a person-given answer as the call answer', async () => {
    const wardrik = await open(tempDbPath());
    const { runId, parks } = await wardrik.run('refunds', 'refund 500');
    const [parked] = parks;
    await wardrik.answerPark(
      parked!.id,
      { type: 'answer', value: { refunded: 'by hand' } },
      { callHash: parked!.callHash },
    );
    const result = await wardrik.wait(runId);
    expect(result.output).toBe('answer: {"refunded":"by hand"}');
    expect(refunds).toEqual([]);
  });

  it('fail gives the model an error answer', async () => {
    const wardrik = await open(tempDbPath());
    const { runId, parks } = await wardrik.run('refunds', 'refund 500');
    await wardrik.answerPark(parks[0]!.id, { type: 'fail', reason: 'not allowed' }, { callHash: parks[0]!.callHash });
    const result = await wardrik.wait(runId);
    expect(result.output).toBe('answer: {"error":"not allowed"}');
  });

  it('a second answer fails closed, also from another process', async () => {
    const path = tempDbPath();
    const wardrik = await open(path);
    const { parks } = await wardrik.run('refunds', 'refund 500');
    const [parked] = parks;
    await wardrik.answerPark(parked!.id, { type: 'fail' }, { callHash: parked!.callHash });
    await expect(wardrik.answerPark(parked!.id, { type: 'fail' }, { callHash: parked!.callHash })).rejects.toThrow(
      ParkAlreadyAnsweredError,
    );
    // One process drives a SQLite store at a time: the next one answers once this one is gone.
    await wardrik.close();
    const other = await open(path);
    await expect(
      other.answerPark(parked!.id, { type: 'answer', value: 1 }, { callHash: parked!.callHash }),
    ).rejects.toSatisfy((thrown: unknown) => ParkAlreadyAnsweredError.isInstance(thrown));
  });

  it('two answers racing in one process: exactly one wins', async () => {
    const wardrik = await open(tempDbPath());
    const { runId, parks } = await wardrik.run('refunds', 'refund 500');
    const [parked] = parks;
    const outcomes = await Promise.allSettled([
      wardrik.answerPark(parked!.id, { type: 'retry' }, { callHash: parked!.callHash }),
      wardrik.answerPark(parked!.id, { type: 'retry' }, { callHash: parked!.callHash }),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    await wardrik.wait(runId);
    expect(refunds).toHaveLength(1);
  });

  it('an answer naming another call (a stale or forged hash) fails closed', async () => {
    const wardrik = await open(tempDbPath());
    const { runId, parks } = await wardrik.run('refunds', 'refund 500');
    await expect(wardrik.answerPark(parks[0]!.id, { type: 'retry' }, { callHash: 'not-the-hash' })).rejects.toThrow(
      StaleParkAnswerError,
    );
    await expect(
      wardrik.answerPark(parks[0]!.id, { type: 'retry' }, {} as unknown as { callHash: string }),
    ).rejects.toThrow(/callHash: required/);
    expect((await wardrik.getRun(runId)).status).toBe('parked');
    expect(refunds).toEqual([]);
  });

  it('malformed answers and unknown parks get clear errors', async () => {
    const wardrik = await open(tempDbPath());
    const { parks } = await wardrik.run('refunds', 'refund 500');
    const { id, callHash } = parks[0]!;
    await expect(wardrik.answerPark('park_nope', { type: 'fail' }, { callHash })).rejects.toThrow(ParkNotFoundError);
    await expect(wardrik.answerPark(id, { type: 'answer' } as never, { callHash })).rejects.toThrow(
      /decision.value: required/,
    );
    await expect(wardrik.answerPark(id, { type: 'raise-budget', budget: { usd: 1 } }, { callHash })).rejects.toThrow(
      InvalidParkAnswerError,
    );
    await expect(wardrik.answerPark(id, 'yes' as never, { callHash })).rejects.toThrow(/decision: expected an object/);
    await expect(wardrik.answerPark(id, { type: 'retry', note: 5 } as never, { callHash })).rejects.toThrow(
      /decision.note: expected a string/,
    );
  });

  it('cancelling a parked run ends it and closes its parks', async () => {
    const wardrik = await open(tempDbPath());
    const { runId, parks } = await wardrik.run('refunds', 'refund 500');
    const result = await wardrik.cancel(runId, 'customer withdrew');
    expect(result).toMatchObject({ status: 'cancelled', error: 'customer withdrew' });
    expect(await wardrik.getPark(parks[0]!.id)).toMatchObject({ status: 'closed' });
    await expect(wardrik.answerPark(parks[0]!.id, { type: 'retry' }, { callHash: parks[0]!.callHash })).rejects.toThrow(
      ParkAlreadyAnsweredError,
    );
    await expect(wardrik.cancel(runId)).rejects.toThrow(RunEndedError);
    expect(refunds).toEqual([]);
  });

  it('cancelling an active run aborts its calls', async () => {
    let aborted = false;
    const slow = tool({
      name: 'slow',
      description: 'Waits until aborted.',
      run: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'never' }]);
    const wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'slow', instructions: '', model, tools: [slow] }),
    ]);
    opened.push(wardrik);
    const { runId } = await wardrik.start('slow', 'go');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const result = await wardrik.cancel(runId, 'stop it');
    expect(result.status).toBe('cancelled');
    expect(aborted).toBe(true);
    expect(model.calls).toBe(1);
  });
});

describe('a park answered while its run is still running other calls of the same step', () => {
  it('is taken by the live run, which goes on once every call of the step is done', async () => {
    let release: () => void = () => {};
    const slowDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = tool({
      name: 'slow_lookup',
      description: 'Takes a while.',
      annotations: { readOnly: true },
      run: async () => {
        await slowDone;
        return 'looked up';
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'refund', arguments: { amount: 500 } },
          { name: 'slow_lookup', arguments: {} },
        ],
      },
      (request) => ({ text: JSON.stringify(lastToolResults(request).map((message) => message.content)) }),
    ]);
    const wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'both', instructions: '', model, tools: [refund, slow] }),
    ]);
    opened.push(wardrik);
    const { runId } = await wardrik.start('both', 'go');
    let parks = await wardrik.listParks({ status: 'open', runId });
    for (let tries = 0; parks.length === 0 && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      parks = await wardrik.listParks({ status: 'open', runId });
    }
    const [parked] = parks;
    expect(wardrik.activeRuns).toBe(1);
    await wardrik.answerPark(parked!.id, { type: 'retry' }, { callHash: parked!.callHash, by: 'manager' });
    release();
    const result = await wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(JSON.parse(result.output ?? '[]')).toEqual([{ refunded: 500 }, 'looked up']);
    expect(refunds).toEqual([{ amount: 500, by: 'manager' }]);
    const seqs = (await wardrik.getRun(runId)).journal.map((stored) => stored.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });
});

describe('two parks in one step', () => {
  it('the run resumes only once both are answered, in any order, in a new process', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'refund', arguments: { amount: 200 } },
          { name: 'refund', arguments: { amount: 300 } },
        ],
      },
      (request) => ({ text: JSON.stringify(lastToolResults(request).map((message) => message.content)) }),
    ]);
    const path = tempDbPath();
    const agent = () => defineAgent({ name: 'two', instructions: '', model, tools: [refund] });
    const first = await openWardrik(path, [agent()]);
    opened.push(first);
    const parked = await first.run('two', 'go');
    expect(parked.parks).toHaveLength(2);
    const [a, b] = parked.parks;
    await first.answerPark(b!.id, { type: 'fail', reason: 'not this one' }, { callHash: b!.callHash });
    expect((await first.getRun(parked.runId)).status).toBe('parked');
    expect(first.activeRuns).toBe(0);
    await first.close();
    const second = await openWardrik(path, [agent()]);
    opened.push(second);
    await second.answerPark(a!.id, { type: 'answer', value: { refunded: 'by hand' } }, { callHash: a!.callHash });
    const result = await second.wait(parked.runId);
    expect(result.status).toBe('completed');
    expect(JSON.parse(result.output ?? '[]')).toEqual([{ refunded: 'by hand' }, { error: 'not this one' }]);
    expect(refunds).toEqual([]);
  });
});

describe('answering many parks of one step (issue 11, item 7)', () => {
  it('does not rebuild the run from its journal for each answer: the work per answer stays flat', async () => {
    const fullLoads: number[] = [];
    class CountingStore extends MemoryStore {
      override async loadJournal(runId: string, afterSeq?: number) {
        const records = await super.loadJournal(runId, afterSeq);
        if (!afterSeq) fullLoads.push(records.length);
        return records;
      }
    }
    const held = tool({
      name: 'held',
      description: 'Waits for a person.',
      schema: { n: { type: 'integer', required: true } },
      run: ({ n }, context) => (context.approval ? ok(n) : park('needs a person')),
    });
    const calls = Array.from({ length: 300 }, (_, n) => ({ name: 'held', arguments: { n } }));
    const model = new ScriptedModel([{ toolCalls: calls }, { text: 'done' }]);
    const wardrik = await createWardrik({
      store: new CountingStore(),
      agents: [defineAgent({ name: 'many', instructions: '', model, tools: [held] })],
    });
    opened.push(wardrik);
    const { runId, parks } = await wardrik.run('many', 'go');
    expect(parks).toHaveLength(300);
    for (const each of parks) await wardrik.answerPark(each.id, { type: 'retry' }, { callHash: each.callHash });
    expect(await wardrik.wait(runId)).toMatchObject({ status: 'completed', output: 'done' });
    // At most one rebuild (none while the parked run rests in memory), not one per answer.
    expect(fullLoads.length).toBeLessThanOrEqual(1);
  });
});
