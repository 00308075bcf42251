import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

const ping = tool({ name: 'ping', description: 'pong', annotations: { readOnly: true }, run: () => 'pong' });
const paidModel = () =>
  new ScriptedModel((request) =>
    request.step < 6
      ? {
          toolCalls: [{ name: 'ping', arguments: {} }],
          measures: { usd: 0.4 },
          usage: { inputTokens: 100, outputTokens: 50 },
        }
      : { text: 'done', measures: { usd: 0.4 }, usage: { inputTokens: 100, outputTokens: 50 } },
  );

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('budgets', () => {
  it('park the run with kind budget when usd is reached; raising it resumes the run', async () => {
    const agent = defineAgent({ name: 'b', instructions: '', model: paidModel(), tools: [ping], budget: { usd: 1 } });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const parked = await wardrik.run('b', 'go');
    expect(parked.status).toBe('parked');
    expect(parked.parks[0]).toMatchObject({ kind: 'budget', reason: 'budget reached: spent 1.2 usd of 1' });
    expect(parked.measures.usd).toBeCloseTo(1.2);
    const [park] = parked.parks;
    await wardrik.answerPark(park!.id, { type: 'raise-budget', budget: { usd: 5 } }, { callHash: park!.callHash });
    const result = await wardrik.wait(parked.runId);
    expect(result.status).toBe('completed');
    expect(result.measures.usd).toBeCloseTo(2.4);
  });

  it('stop ends the run as failed', async () => {
    const agent = defineAgent({
      name: 'b',
      instructions: '',
      model: paidModel(),
      tools: [ping],
      budget: { tokens: 300 },
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const parked = await wardrik.run('b', 'go');
    expect(parked.parks[0]?.reason).toBe('budget reached: used 300 tokens of 300');
    const [park] = parked.parks;
    await wardrik.answerPark(park!.id, { type: 'stop', reason: 'too expensive' }, { callHash: park!.callHash });
    expect(await wardrik.wait(parked.runId)).toMatchObject({ status: 'failed', error: 'too expensive' });
  });

  it('a steps budget given when starting replaces the agent one', async () => {
    const agent = defineAgent({
      name: 'b',
      instructions: '',
      model: paidModel(),
      tools: [ping],
      budget: { steps: 100 },
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const parked = await wardrik.run('b', 'go', { budget: { steps: 2 } });
    expect(parked.parks[0]?.reason).toBe('budget reached: made 2 model steps of 2');
    await expect(
      wardrik.answerPark(
        parked.parks[0]!.id,
        { type: 'raise-budget', budget: { steps: -1 } },
        { callHash: parked.parks[0]!.callHash },
      ),
    ).rejects.toThrow(/decision.budget.steps: expected a positive number/);
  });
});
