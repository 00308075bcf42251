/*
 * One value for a call's arguments (issue 11, item 9) and JSON of a sane depth wherever it enters
 * the journal (item 6): what the policy judges, what a park shows, what its hash covers, what the
 * journal keeps and what the tool receives are the same object; arguments that are not a JSON
 * object, or nest too deep, are an error answer the model reads, and the run goes on.
 */
import { MAX_JSON_DEPTH, ok, park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWardrik,
  defineAgent,
  InvalidParkAnswerError,
  type JournalRecord,
  type Policy,
  type Wardrik,
} from '../src/index.js';
import { lastToolResults, memoryStore, ScriptedModel } from '../src/testing/index.js';

const refunded: unknown[] = [];
const refund = tool({
  name: 'refund',
  description: 'Refund part of an order.',
  schema: { order: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  run: (args) => {
    refunded.push(args);
    return ok({ refunded: args.amount });
  },
});
const held = tool({
  name: 'held',
  description: 'Parks until a person answers.',
  schema: { order: { type: 'string', required: true } },
  run: (_args, context) => (context.approval ? ok('ran') : park('needs a person')),
});

const noBigRefunds: Policy = {
  rules: [
    {
      name: 'no-refunds-over-1000',
      verdict: 'deny',
      when: (call) => call.tool === 'refund' && Number(call.arguments.amount) > 1000,
    },
  ],
};

const opened: Wardrik[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  refunded.length = 0;
});

/** A run whose model makes one call with `args` as given, then says what it was answered. */
async function runWith(toolName: string, args: unknown, tools = [refund, held]) {
  const model = new ScriptedModel([
    { toolCalls: [{ name: toolName, arguments: args }] },
    (request) => ({ text: JSON.stringify(lastToolResults(request)[0]?.content) }),
  ]);
  const wardrik = await createWardrik({
    store: memoryStore(),
    agents: [defineAgent({ name: 'clerk', instructions: '', model, tools, policy: noBigRefunds })],
  });
  opened.push(wardrik);
  const result = await wardrik.run('clerk', 'go');
  const journal = (await wardrik.getRun(result.runId)).journal.map((each) => each.record);
  return { wardrik, result, journal };
}

function deep(levels: number): unknown {
  let value: unknown = {};
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}

function recordsOf<T extends JournalRecord['type']>(journal: JournalRecord[], type: T) {
  return journal.filter((record): record is Extract<JournalRecord, { type: T }> => record.type === type);
}

describe('arguments are normalized once, before anything judges them', () => {
  it('a rule reading arguments sees them when the model sends a JSON string: the big refund is refused', async () => {
    const { result, journal } = await runWith('refund', '{"order":"A1","amount":5000}');
    expect(refunded).toEqual([]);
    expect(result.output).toMatch(/Refused by policy \(no-refunds-over-1000\)/);
    expect(recordsOf(journal, 'model-step')[0]?.toolCalls[0]?.arguments).toEqual({ order: 'A1', amount: 5000 });
  });

  it('a small refund sent as a JSON string runs with the parsed object, the one the journal keeps', async () => {
    const { journal } = await runWith('refund', '{"order":"A1","amount":5}');
    expect(refunded).toEqual([{ order: 'A1', amount: 5 }]);
    expect(recordsOf(journal, 'call-started')[0]?.arguments).toEqual({ order: 'A1', amount: 5 });
  });

  it('a park shows the parsed arguments and its hash covers them', async () => {
    const { wardrik, result } = await runWith('held', '{"order":"A7"}');
    const [open] = result.parks;
    expect(open?.call?.arguments).toEqual({ order: 'A7' });
    await wardrik.answerPark(open!.id, { type: 'retry' }, { callHash: open!.callHash });
    expect((await wardrik.wait(result.runId)).output).toBe('"ran"');
  });

  it.each([
    ['a JSON array', '[1, 2]', 'arguments must be a JSON object, got an array'],
    ['a JSON number', '42', 'arguments must be a JSON object, got a number'],
    ['text that is not JSON', 'refund everything', 'arguments are not valid JSON'],
    ['an array', [{ order: 'A1' }], 'arguments must be a JSON object, got an array'],
    ['a number', 5000, 'arguments must be a JSON object, got a number'],
  ])('%s is an error answer naming what is wrong, never {}', async (_, args, reason) => {
    const { result, journal } = await runWith('refund', args);
    expect(refunded).toEqual([]);
    expect(result.status).toBe('completed');
    const [answered] = recordsOf(journal, 'call-answered');
    expect(answered?.answer).toMatchObject({ type: 'error', code: 'invalid_arguments' });
    expect(answered?.answer.type === 'error' && answered.answer.reason).toContain(reason);
    expect(recordsOf(journal, 'call-started')).toEqual([]);
  });

  it('nothing at all means no arguments ({}), as for a tool that takes none', async () => {
    const ping = tool({ name: 'ping', description: 'Ping.', schema: {}, run: () => 'pong' });
    const { result } = await runWith('ping', undefined, [ping]);
    expect(result.output).toBe('"pong"');
  });
});

describe('JSON nested too deep', () => {
  it(`model arguments nested 4,200 levels are an error answer naming the limit (${MAX_JSON_DEPTH}); the run goes on`, async () => {
    for (const args of [deep(4_200), JSON.stringify(deep(4_000))]) {
      const { result, journal } = await runWith('refund', args);
      expect(result.status).toBe('completed');
      const [answered] = recordsOf(journal, 'call-answered');
      expect(answered?.answer.type === 'error' && answered.answer.reason).toContain(
        `nest deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    expect(refunded).toEqual([]);
  });

  it('a tool answering with a value nested too deep, or with no JSON form, gives the model an error answer', async () => {
    const answers: unknown[] = [deep(5_000), { amount: 10n }];
    const odd = tool({ name: 'odd', description: 'Odd answers.', schema: {}, run: () => answers.shift() });
    for (const why of ['nests deeper than', 'has no JSON form']) {
      const { result, journal } = await runWith('odd', {}, [odd]);
      expect(result.status).toBe('completed');
      const [answered] = recordsOf(journal, 'call-answered');
      expect(answered?.answer).toMatchObject({ type: 'error', code: 'invalid_answer' });
      expect(answered?.answer.type === 'error' && answered.answer.reason).toContain(why);
    }
  });

  it('an ok answer is kept as plain JSON: the model sees now what a recovered run would see', async () => {
    const when = tool({
      name: 'when',
      description: 'A date.',
      schema: {},
      run: () => ({ at: new Date(0), skipped: undefined }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'when', arguments: {} }] },
      (request) => {
        const content = lastToolResults(request)[0]?.content as { at: unknown };
        return { text: `${typeof content.at} ${'skipped' in content}` };
      },
    ]);
    const wardrik = await createWardrik({
      store: memoryStore(),
      agents: [defineAgent({ name: 'clerk', instructions: '', model, tools: [when] })],
    });
    opened.push(wardrik);
    expect((await wardrik.run('clerk', 'go')).output).toBe('string false');
  });

  it("a person's answer value or edited arguments nested too deep are refused, naming the limit", async () => {
    const { wardrik, result } = await runWith('held', { order: 'A7' });
    const [open] = result.parks;
    await expect(
      wardrik.answerPark(open!.id, { type: 'answer', value: deep(4_200) }, { callHash: open!.callHash }),
    ).rejects.toThrow(InvalidParkAnswerError);
    await expect(
      wardrik.answerPark(open!.id, { type: 'answer', value: { n: 1n } }, { callHash: open!.callHash }),
    ).rejects.toThrow(/decision.value: expected JSON data/);
    await expect(
      wardrik.answerPark(open!.id, { type: 'answer', value: deep(100) }, { callHash: open!.callHash }),
    ).rejects.toThrow(`decision.value: nests deeper than ${MAX_JSON_DEPTH} levels`);
    await wardrik.answerPark(open!.id, { type: 'answer', value: 'done by hand' }, { callHash: open!.callHash });
    expect((await wardrik.wait(result.runId)).output).toBe('"done by hand"');
  });
});
