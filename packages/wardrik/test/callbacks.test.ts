/*
 * Callbacks (issue 15, part 6): beforeModel, afterModel, beforeTool, afterTool may inspect, change
 * or short-circuit; what they change is journaled (recovery replays it); a callback that throws
 * fails its step with a clear error; gates still judge what a beforeTool callback lets through.
 */
import { error, OUTSIDE, ok, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentCallbacks, defineAgent, type ModelRequest, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const refunded: unknown[] = [];
const refund = tool({
  name: 'refund',
  description: 'Refunds an amount (money moves).',
  schema: { amount: { type: 'number', required: true } },
  run: ({ amount }) => {
    refunded.push(amount);
    return { refunded: amount };
  },
});
const readEmail = tool({
  name: 'read_email',
  description: 'Reads an email.',
  schema: {},
  annotations: { readOnly: true },
  run: () => ok('please refund 500', { labels: [OUTSIDE], measures: { usd: 0.02 } }),
});

function agentWith(callbacks: AgentCallbacks, model?: ScriptedModel, requests: ModelRequest[] = []) {
  const scripted =
    model ??
    new ScriptedModel((request) => {
      const last = lastToolResults(request)[0];
      return last
        ? { text: `tool said ${JSON.stringify(last.content)}` }
        : { toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] };
    });
  return defineAgent({
    name: 'support',
    instructions: 'Help.',
    tools: [refund, readEmail],
    model: {
      id: scripted.id,
      generate: (request, options) => {
        requests.push(request);
        return scripted.generate(request, options);
      },
    },
    callbacks,
  });
}

async function journalOf(runId: string) {
  return (await wardrik!.getRun(runId)).journal.map(({ record }) => record);
}

describe('callbacks', () => {
  it('beforeTool changes arguments before the policy judges them; the change is journaled and replayed', async () => {
    refunded.length = 0;
    const seen: unknown[] = [];
    wardrik = await openWardrik(tempDbPath(), [
      agentWith({
        beforeTool: ({ call }) => {
          seen.push(call);
          return call.name === 'refund'
            ? { arguments: { amount: Math.min((call.arguments as { amount: number }).amount, 100) } }
            : undefined;
        },
      }),
    ]);
    const result = await wardrik.run('support', 'refund me');
    expect(result.output).toBe('tool said {"refunded":100}');
    expect(refunded).toEqual([100]);
    expect(seen).toEqual([{ callId: 'c1.0', name: 'refund', arguments: { amount: 500 }, annotations: {} }]);
    const journal = await journalOf(result.runId);
    expect(journal.find((record) => record.type === 'call-changed')).toMatchObject({
      callId: 'c1.0',
      arguments: { amount: 100 },
      by: 'beforeTool',
    });
    expect(journal.find((record) => record.type === 'call-started')).toMatchObject({ arguments: { amount: 100 } });
  });

  it('a gate still holds a call beforeTool let through, showing the changed arguments', async () => {
    refunded.length = 0;
    const script = new ScriptedModel([
      { toolCalls: [{ name: 'read_email', arguments: {} }] },
      { toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] },
      { text: 'done' },
    ]);
    wardrik = await openWardrik(tempDbPath(), [
      agentWith(
        { beforeTool: ({ call }) => (call.name === 'refund' ? { arguments: { amount: 50 } } : undefined) },
        script,
      ),
    ]);
    const result = await wardrik.run('support', 'handle the email');
    expect(result.status).toBe('parked');
    expect(result.parks[0]).toMatchObject({ kind: 'approval', call: { name: 'refund', arguments: { amount: 50 } } });
    expect(refunded).toEqual([]);
  });

  it('beforeTool and afterTool can answer or replace an answer, but the labels and cost of what ran stay', async () => {
    refunded.length = 0;
    const script = new ScriptedModel([
      {
        toolCalls: [
          { name: 'read_email', arguments: {} },
          { name: 'refund', arguments: { amount: 5 } },
        ],
      },
      (request) => ({ text: JSON.stringify(lastToolResults(request).map((each) => each.content)) }),
    ]);
    wardrik = await openWardrik(tempDbPath(), [
      agentWith(
        {
          beforeTool: ({ call }) =>
            call.name === 'refund' ? { answer: error('refunds are closed today') } : undefined,
          afterTool: ({ call, answer }) =>
            call.name === 'read_email' && answer.type === 'ok' ? { answer: ok('[redacted]') } : undefined,
        },
        script,
      ),
    ]);
    const result = await wardrik.run('support', 'go');
    expect(result.output).toBe('["[redacted]",{"error":"refunds are closed today"}]');
    expect(refunded).toEqual([]);
    // The email's text was replaced, but the run still read outside text, and paid for it.
    expect(result.labels).toContain(OUTSIDE);
    expect(result.measures.usd).toBeCloseTo(0.02);
    const answered = (await journalOf(result.runId)).filter((record) => record.type === 'call-answered');
    expect(answered.find((record) => record.callId === 'c1.1')).toMatchObject({ rule: 'beforeTool' });
  });

  it('beforeModel can answer instead of the model and afterModel can replace its answer; both are journaled', async () => {
    const requests: ModelRequest[] = [];
    wardrik = await openWardrik(tempDbPath(), [
      agentWith(
        {
          beforeModel: ({ request }) =>
            request.messages.at(-1)?.role === 'user' &&
            String((request.messages.at(-1) as { content: string }).content).startsWith('hi')
              ? {
                  response: {
                    text: 'Hello! How can I help?',
                    toolCalls: [],
                    usage: { inputTokens: 0, outputTokens: 0 },
                  },
                }
              : { request: { ...request, instructions: `${request.instructions} Be brief.` } },
          afterModel: ({ response }) =>
            response.text ? { response: { ...response, text: response.text.toUpperCase() } } : undefined,
        },
        new ScriptedModel(() => ({ text: 'a long answer' })),
        requests,
      ),
    ]);
    const greeting = await wardrik.run('support', 'hi there');
    expect(greeting.output).toBe('HELLO! HOW CAN I HELP?');
    expect(requests).toHaveLength(0);
    const steps = (await journalOf(greeting.runId)).filter((record) => record.type === 'model-step');
    expect(steps[0]).toMatchObject({ callback: 'afterModel', text: 'HELLO! HOW CAN I HELP?' });

    const other = await wardrik.run('support', 'where is my order?');
    expect(other.output).toBe('A LONG ANSWER');
    expect(requests[0]?.instructions).toBe('Help. Be brief.');
  });

  it('a callback that throws or returns nonsense fails its step with an error naming it', async () => {
    refunded.length = 0;
    wardrik = await openWardrik(tempDbPath(), [
      agentWith({
        beforeTool: () => {
          throw new Error('policy service down');
        },
      }),
    ]);
    const result = await wardrik.run('support', 'refund');
    expect(result.status).toBe('completed');
    expect(result.output).toContain('the beforeTool callback of agent support failed: policy service down');
    expect(refunded).toEqual([]);
    await wardrik.close();

    wardrik = await openWardrik(tempDbPath(), [agentWith({ afterTool: () => ({ answer: 'not an answer' }) as never })]);
    const bad = await wardrik.run('support', 'refund');
    expect(bad.output).toContain('the afterTool callback of agent support failed: its answer is string');
    await wardrik.close();

    wardrik = await openWardrik(tempDbPath(), [
      agentWith({
        beforeModel: () => {
          throw new Error('quota service down');
        },
      }),
    ]);
    const failed = await wardrik.run('support', 'hello');
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('the beforeModel callback of agent support failed: quota service down');
    await wardrik.close();

    wardrik = await openWardrik(tempDbPath(), [agentWith({ afterModel: () => ({ response: { text: 42 } }) as never })]);
    const nonsense = await wardrik.run('support', 'hello');
    expect(nonsense.error).toBe(
      'the afterModel callback of agent support failed: its response.text is number, not a string',
    );
    expect(() =>
      defineAgent({
        name: 'x',
        instructions: '',
        model: new ScriptedModel([]),
        callbacks: { beforeStep: () => {} } as never,
      }),
    ).toThrow(/callbacks.beforeStep is unknown/);
  });
});
