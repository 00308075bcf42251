import { OUTSIDE, ok, tool } from '@wardrik/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, type RunEvent, type Wardrik } from '../src/index.js';
import { JOURNAL_VERSION } from '../src/journal/records.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

const orderStatus = tool({
  name: 'order_status',
  description: 'Say where an order is.',
  schema: { order_id: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});

const fetchPage = tool({
  name: 'fetch_page',
  description: 'Fetch a web page.',
  schema: { url: { type: 'string', required: true } },
  annotations: { readOnly: true, openWorld: true },
  run: ({ url }, context) => {
    context.measure('usd', 0.01);
    return ok(`<html>page at ${url}</html>`, { labels: [OUTSIDE] });
  },
});

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('a run', () => {
  it('goes model step → calls → answers → final answer, journaling every step in order', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }], measures: { usd: 0.002 } },
      (request) => ({ text: `Order is ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ]);
    const agent = defineAgent({ name: 'support', instructions: 'Help.', model, tools: [orderStatus] });
    const path = tempDbPath();
    wardrik = await openWardrik(path, [agent]);
    const events: RunEvent[] = [];
    wardrik.subscribe('*', (event) => events.push(event));

    const result = await wardrik.run('support', 'Where is A1?', { principal: 'alice' });

    expect(result.status).toBe('completed');
    expect(result.output).toBe('Order is {"order_id":"A1","status":"shipped"}');
    expect(result.measures).toEqual({ inputTokens: 20, outputTokens: 10, usd: 0.002 });
    expect(events.map((event) => event.type)).toEqual([
      'run-started',
      'model-step',
      'call-started',
      'call-answered',
      'model-step',
      'run-ended',
    ]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const details = await wardrik.getRun(result.runId);
    expect(details.principal).toBe('alice');
    expect(details.journal.map((stored) => stored.record.type)).toEqual(events.map((event) => event.type));
    expect(details.journal.every((stored) => stored.record.v === JOURNAL_VERSION)).toBe(true);
  });

  it('is on disk when its caller hears that it ended (a second connection sees run-ended)', async () => {
    const agent = defineAgent({ name: 'quick', instructions: '', model: new ScriptedModel([{ text: 'hi' }]) });
    const path = tempDbPath();
    wardrik = await openWardrik(path, [agent]);
    const { runId } = await wardrik.start('quick', 'hello');
    const reader = new Database(path, { readonly: true });
    try {
      expect(reader.prepare('SELECT count(*) AS n FROM journal WHERE run_id = ?').get(runId)).toEqual({ n: 1 });
      await wardrik.wait(runId);
      const last = reader
        .prepare('SELECT record FROM journal WHERE run_id = ? ORDER BY seq DESC LIMIT 1')
        .get(runId) as {
        record: string;
      };
      expect(JSON.parse(last.record).type).toBe('run-ended');
    } finally {
      reader.close();
    }
  });

  it('runs the calls of one step concurrently', async () => {
    let started = 0;
    let releaseBoth: () => void = () => {};
    const bothStarted = new Promise<void>((resolve) => {
      releaseBoth = resolve;
    });
    const wait = tool({
      name: 'wait_for_peer',
      description: 'Waits until the other call has started too.',
      annotations: { readOnly: true },
      run: async () => {
        started += 1;
        if (started === 2) releaseBoth();
        await bothStarted;
        return 'both ran at once';
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'wait_for_peer', arguments: {} },
          { name: 'wait_for_peer', arguments: {} },
        ],
      },
      { text: 'done' },
    ]);
    wardrik = await openWardrik(tempDbPath(), [defineAgent({ name: 'pair', instructions: '', model, tools: [wait] })]);
    const result = await wardrik.run('pair', 'go');
    expect(result.status).toBe('completed');
    expect(started).toBe(2);
  });

  it('carries every label it has seen, its final answer included, and sums measures from tools', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'fetch_page', arguments: { url: 'https://example.com' } }] },
      { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }] },
      { text: 'summary' },
    ]);
    const agent = defineAgent({ name: 'reader', instructions: '', model, tools: [fetchPage, orderStatus] });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const result = await wardrik.run('reader', 'read it');
    expect(result.labels).toEqual(['outside']);
    expect(result.measures.usd).toBeCloseTo(0.01);
    const details = await wardrik.getRun(result.runId);
    expect(details.labels).toEqual(['outside']);
    const ended = details.journal.at(-1)?.record;
    expect(ended?.type === 'run-ended' && ended.labels).toEqual(['outside']);
  });

  it('gives the model an error answer for an unknown tool or bad arguments, and goes on', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'no_such_tool', arguments: {} },
          { name: 'order_status', arguments: { order_id: 42 } },
        ],
      },
      (request) => ({ text: JSON.stringify(lastToolResults(request).map((message) => message.content)) }),
    ]);
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'a', instructions: '', model, tools: [orderStatus] }),
    ]);
    const result = await wardrik.run('a', 'go');
    expect(result.status).toBe('completed');
    const [unknown, invalid] = JSON.parse(result.output ?? '[]');
    expect(unknown.error).toContain('Unknown tool "no_such_tool"');
    expect(invalid.error).toContain('order_id: expected string, got integer 42');
  });

  it('fails when maxSteps pass without a final answer', async () => {
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }] }));
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'loop', instructions: '', model, tools: [orderStatus], maxSteps: 3 }),
    ]);
    const result = await wardrik.run('loop', 'go');
    expect(result.status).toBe('failed');
    expect(result.error).toBe('reached maxSteps (3) without a final answer');
    expect(model.calls).toBe(3);
  });

  it('streams model text as text-delta events and follows a run from a seq', async () => {
    const model = new ScriptedModel([{ text: 'one two three' }], { stream: true });
    wardrik = await openWardrik(tempDbPath(), [defineAgent({ name: 's', instructions: '', model })]);
    const deltas: string[] = [];
    wardrik.subscribe('*', (event) => {
      if (event.type === 'text-delta') deltas.push(event.delta);
    });
    const result = await wardrik.run('s', 'talk');
    expect(deltas.join('')).toBe('one two three');
    const followed: string[] = [];
    for await (const event of wardrik.follow(result.runId, { afterSeq: 1 }))
      followed.push(`${event.seq}:${event.type}`);
    expect(followed).toEqual(['2:model-step', '3:run-ended']);
  });

  it('lists runs by status, agent and principal', async () => {
    const agent = defineAgent({ name: 'l', instructions: '', model: new ScriptedModel([{ text: 'x' }]) });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const first = await wardrik.run('l', 'a', { principal: 'p1' });
    await wardrik.run('l', 'b', { principal: 'p2' });
    const mine = await wardrik.listRuns({ principal: 'p1' });
    expect(mine.map((run) => run.id)).toEqual([first.runId]);
    expect((await wardrik.listRuns({ status: 'completed', agent: 'l' })).length).toBe(2);
    expect(await wardrik.listRuns({ status: 'running' })).toEqual([]);
  });

  it.each([
    [true, 1],
    [false, 0],
  ])(
    'durableAnswers %s: a non-repeatable answer on disk before the model sees it → %i',
    async (durableAnswers, expected) => {
      const path = tempDbPath();
      const send = tool({ name: 'send', description: 'Sends (not repeatable).', run: () => 'sent' });
      let answersOnDisk = -1;
      const model = new ScriptedModel([
        { toolCalls: [{ name: 'send', arguments: {} }] },
        () => {
          const reader = new Database(path, { readonly: true });
          answersOnDisk = (
            reader.prepare(`SELECT count(*) AS n FROM journal WHERE record LIKE '%"call-answered"%'`).get() as {
              n: number;
            }
          ).n;
          reader.close();
          return { text: 'done' };
        },
      ]);
      wardrik = await openWardrik(path, [defineAgent({ name: 'd', instructions: '', model, tools: [send] })], {
        durableAnswers,
      });
      await wardrik.run('d', 'go');
      expect(answersOnDisk).toBe(expected);
    },
  );
});
