/*
 * Structured output and guardrails: an agent's `outputSchema` makes every final answer checked
 * (one that does not match goes back to the model, journaled, until retries run out), and
 * `outputOf` gives it typed; input and output guardrails stop a run with a reason journaled on
 * `run-ended`. Recovery replays what the journal says: a rejected answer is not judged twice.
 */
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  AgentDefinitionError,
  defineAgent,
  type Guardrail,
  type ModelRequest,
  outputOf,
  type Wardrik,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const ticket = {
  queue: { type: 'string', enum: ['billing', 'shipping'], required: true },
  urgent: { type: 'boolean', default: false },
} as const;

describe('outputSchema', () => {
  it('a final answer that does not match goes back to the model saying why; the next one completes the run, typed', async () => {
    const seen: ModelRequest[] = [];
    const triage = defineAgent({
      name: 'triage',
      instructions: 'Classify the ticket.',
      outputSchema: ticket,
      model: new ScriptedModel((request: ModelRequest) => {
        seen.push(request);
        if (request.step === 1) return { text: 'It is about shipping, I think.' };
        if (request.step === 2) return { text: '{"queue":"post"}' };
        return { text: '```json\n{"queue":"shipping"}\n```' };
      }),
    });
    wardrik = await openWardrik(tempDbPath(), [triage]);
    const result = await wardrik.run('triage', 'My parcel never came!');
    expect(result.status).toBe('completed');
    const value = await outputOf(triage, result);
    expectTypeOf(value).toEqualTypeOf<{ queue: 'billing' | 'shipping'; urgent: boolean } | undefined>();
    expect(value).toEqual({ queue: 'shipping', urgent: false });
    // The model was given the schema, and told what was wrong each time.
    expect(seen[0]?.outputSchema).toMatchObject({ type: 'object', required: ['queue'] });
    const told = seen[2]?.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(told?.[1]).toContain('does not match the required output schema (it is not JSON)');
    expect(told?.[2]).toContain('queue');
    const steps = (await wardrik.getRun(result.runId)).journal.flatMap(({ record }) =>
      record.type === 'model-step' ? [record.outputRejected ?? null] : [],
    );
    expect(steps).toEqual(['it is not JSON', expect.stringContaining('queue'), null]);
  });

  it('fails the run once retries are used up, naming what is wrong', async () => {
    const triage = defineAgent({
      name: 'triage',
      instructions: '',
      outputSchema: z.object({ queue: z.enum(['billing', 'shipping']) }),
      maxOutputRetries: 1,
      model: new ScriptedModel(() => ({ text: '{"queue":"elsewhere"}' })),
    });
    wardrik = await openWardrik(tempDbPath(), [triage]);
    const result = await wardrik.run('triage', 'hello');
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^the final answer does not match the agent's output schema after 2 tries: queue/);
    expect(await outputOf(triage, result)).toBeUndefined();
  });

  it('refuses a bad definition, naming it', () => {
    const model = new ScriptedModel([{ text: '{}' }]);
    expect(() =>
      defineAgent({ name: 'a', instructions: '', model, outputSchema: { type: 'string' } as never }),
    ).toThrow(AgentDefinitionError);
    expect(() => defineAgent({ name: 'a', instructions: '', model, maxOutputRetries: -1 })).toThrow(
      'agent a: maxOutputRetries must be a whole number of 0 or more, got -1',
    );
  });
});

describe('guardrails', () => {
  const noAccountNumbers: Guardrail = {
    name: 'no-account-numbers',
    check: ({ text }) => (/\b\d{8,}\b/.test(text) ? { tripped: true, reason: 'holds an account number' } : undefined),
  };
  const ran: string[] = [];
  const lookup = tool({
    name: 'lookup',
    description: 'Looks up.',
    annotations: { readOnly: true },
    run: () => {
      ran.push('lookup');
      return 'found';
    },
  });

  it('an input guardrail stops the run before any step: nothing runs, the reason is journaled', async () => {
    ran.length = 0;
    let modelCalls = 0;
    const agent = defineAgent({
      name: 'bank',
      instructions: '',
      tools: [lookup],
      guardrails: { input: [noAccountNumbers] },
      model: new ScriptedModel((request: ModelRequest) => {
        modelCalls += 1;
        return request.step === 1 ? { toolCalls: [{ name: 'lookup' }] } : { text: 'done' };
      }),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const result = await wardrik.run('bank', 'move everything from 12345678 please');
    expect(result).toMatchObject({
      status: 'failed',
      error: 'the input guardrail no-account-numbers stopped the run: holds an account number',
    });
    expect(modelCalls).toBe(0);
    expect(ran).toEqual([]);
    const ended = (await wardrik.getRun(result.runId)).journal.at(-1)?.record;
    expect(ended).toMatchObject({
      type: 'run-ended',
      guardrail: { name: 'no-account-numbers', stage: 'input', reason: 'holds an account number' },
    });
    // A clean input passes.
    expect((await wardrik.run('bank', 'what is my balance?')).status).toBe('completed');
  });

  it('an output guardrail keeps a final answer from anyone; one that throws trips too (fail closed)', async () => {
    const agent = defineAgent({
      name: 'bank',
      instructions: '',
      guardrails: { output: [noAccountNumbers] },
      model: new ScriptedModel(() => ({ text: 'Your account is 987654321.' })),
    });
    const broken = defineAgent({
      name: 'broken',
      instructions: '',
      guardrails: {
        output: [
          {
            name: 'judge',
            check: () => {
              throw new Error('the judge is down');
            },
          },
        ],
      },
      model: new ScriptedModel(() => ({ text: 'fine' })),
    });
    wardrik = await openWardrik(tempDbPath(), [agent, broken]);
    const result = await wardrik.run('bank', 'my account?');
    expect(result.status).toBe('failed');
    expect(result.output).toBeUndefined();
    expect(result.error).toBe('the output guardrail no-account-numbers stopped the run: holds an account number');
    const failed = await wardrik.run('broken', 'hi');
    expect(failed.error).toBe('the output guardrail judge stopped the run: the guardrail failed: the judge is down');
  });

  it('refuses malformed guardrails, naming them', () => {
    const model = new ScriptedModel([{ text: 'x' }]);
    expect(() =>
      defineAgent({ name: 'a', instructions: '', model, guardrails: { input: [{ name: '' } as never] } }),
    ).toThrow('agent a: guardrails.input[0] must be { name, check(input) } with a non-empty name');
    expect(() => defineAgent({ name: 'a', instructions: '', model, guardrails: { during: [] } as never })).toThrow(
      'agent a: guardrails.during: unknown stage (expected input, output)',
    );
  });
});
