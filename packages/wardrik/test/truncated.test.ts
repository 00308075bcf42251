/*
 * A model cut off at its output token limit: its answer may be incomplete, so the run fails with a
 * clear reason instead of taking the cut-off text as final or running the step's calls — also when
 * recovery finds the cut-off step in the journal after a crash. The step's cost is still counted.
 */
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EventPrinter } from '../src/cli/event-printer.js';
import { defineAgent, JOURNAL_VERSION, sqliteStore, type Wardrik } from '../src/index.js';
import { ScriptedModel, type ScriptedTurn } from '../src/testing/index.js';
import { modelSteps, openWardrik, tempDbPath } from './helpers.js';

const refunds: string[] = [];
const refund = tool({
  name: 'refund',
  description: 'Refunds an order.',
  schema: { order_id: { type: 'string', required: true } },
  run: ({ order_id }) => {
    refunds.push(String(order_id));
    return { refunded: order_id };
  },
});

function agentAnswering(turn: ScriptedTurn) {
  return defineAgent({ name: 'support', instructions: '', model: new ScriptedModel([turn]), tools: [refund] });
}

const opened: Wardrik[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  refunds.length = 0;
});

async function open(path: string, turn: ScriptedTurn): Promise<Wardrik> {
  const wardrik = await openWardrik(path, [agentAnswering(turn)]);
  opened.push(wardrik);
  return wardrik;
}

describe('a model cut off at its output token limit', () => {
  it('fails the run, naming why, instead of taking the cut-off text as the final answer', async () => {
    const wardrik = await open(tempDbPath(), {
      text: 'Your refund of 250 was approved and will',
      usage: { inputTokens: 40, outputTokens: 16 },
      measures: { usd: 0.001 },
      truncated: true,
    });

    const result = await wardrik.run('support', 'Refund A1');

    expect(result.status).toBe('failed');
    expect(result.output).toBeUndefined();
    expect(result.error).toMatch(/answer at step 1 was cut off at its output token limit/);
    expect(result.error).toMatch(/maxOutputTokens/);
    // What the step cost is counted, and the journal keeps what the model said, marked.
    expect(result.measures).toEqual({ inputTokens: 40, outputTokens: 16, usd: 0.001 });
    const steps = modelSteps((await wardrik.getRun(result.runId)).journal);
    expect(steps).toEqual([
      expect.objectContaining({ step: 1, text: 'Your refund of 250 was approved and will', truncated: true }),
    ]);

    // `wardrik run` shows it where the step is printed.
    let printed = '';
    const printer = new EventPrinter((text) => {
      printed += text;
    });
    for (const { runId, seq, record } of (await wardrik.getRun(result.runId)).journal) {
      printer.print({ runId, seq, record, type: record.type });
    }
    expect(printed).toContain('(step 1: 0.001 usd, 56 tokens — cut off at its output token limit)');
    expect(printed).toContain('cut off at its output token limit, so it may be incomplete');
  });

  it('does not run the tool calls of a cut-off step', async () => {
    const wardrik = await open(tempDbPath(), {
      toolCalls: [{ name: 'refund', arguments: { order_id: 'A1' } }],
      truncated: true,
    });

    const result = await wardrik.run('support', 'Refund A1 and B2');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/its tool calls were not run/);
    expect(refunds).toEqual([]);
    const types = (await wardrik.getRun(result.runId)).journal.map(({ record }) => record.type);
    expect(types).toEqual(['run-started', 'model-step', 'run-ended']);
  });

  it('a complete answer is unaffected: the same turn without truncated completes and runs its calls', async () => {
    const wardrik = await openWardrik(tempDbPath(), [
      defineAgent({
        name: 'support',
        instructions: '',
        model: new ScriptedModel([
          { toolCalls: [{ name: 'refund', arguments: { order_id: 'A1' } }] },
          { text: 'done' },
        ]),
        tools: [refund],
      }),
    ]);
    opened.push(wardrik);

    const result = await wardrik.run('support', 'Refund A1');

    expect(result.status).toBe('completed');
    expect(refunds).toEqual(['A1']);
  });

  it('recovery after a crash that left a cut-off step in the journal ends the run failed, running nothing', async () => {
    // The journal as a crash right after the cut-off step was written would leave it.
    const path = tempDbPath();
    const store = sqliteStore(path);
    const runId = 'run_cut-off';
    const at = Date.now();
    await store.write(
      {
        runId,
        run: {
          id: runId,
          agent: 'support',
          principal: 'alice',
          status: 'running',
          createdAt: at,
          updatedAt: at,
          measures: {},
          labels: [],
        },
        records: [
          {
            runId,
            seq: 1,
            record: {
              v: JOURNAL_VERSION,
              at,
              type: 'run-started',
              agent: 'support',
              principal: 'alice',
              input: 'Refund A1',
              budget: {},
              maxSteps: 10,
            },
          },
          {
            runId,
            seq: 2,
            record: {
              v: JOURNAL_VERSION,
              at,
              type: 'model-step',
              step: 1,
              model: 'scripted',
              text: '',
              toolCalls: [{ callId: 'c1.0', name: 'refund', arguments: { order_id: 'A1' } }],
              usage: { inputTokens: 40, outputTokens: 16 },
              measures: { inputTokens: 40, outputTokens: 16 },
              truncated: true,
            },
          },
        ],
      },
      { durable: true },
    );
    await store.close();

    const wardrik = await open(path, { text: 'a model that is never asked again' });
    const result = await wardrik.wait(runId);

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/cut off at its output token limit/);
    expect(refunds).toEqual([]);
  });
});
