import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EventPrinter } from '../src/cli/event-printer.js';
import { defineAgent, ModelError, type RunEvent, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

function oneCall(name: string) {
  return new ScriptedModel([
    { toolCalls: [{ name, arguments: {} }] },
    (request) => ({ text: JSON.stringify(lastToolResults(request)[0]?.content) }),
  ]);
}

async function runWith(tools: Parameters<typeof defineAgent>[0]['tools'], name: string) {
  wardrik = await openWardrik(tempDbPath(), [
    defineAgent({ name: 'r', instructions: '', model: oneCall(name), tools }),
  ]);
  const result = await wardrik.run('r', 'go');
  const journal = (await wardrik.getRun(result.runId)).journal.map((stored) => stored.record);
  return { result, journal };
}

describe('retries', () => {
  it('retries a repeatable call that throws, with the same idempotency key, and keeps what each try paid', async () => {
    const keys: string[] = [];
    const flaky = tool({
      name: 'flaky',
      description: 'Fails twice.',
      annotations: { idempotent: true },
      run: (_args, context) => {
        keys.push(context.idempotencyKey);
        context.measure('usd', 0.01);
        if (keys.length < 3) throw new Error(`boom ${keys.length}`);
        return 'third time';
      },
    });
    const { result, journal } = await runWith([flaky], 'flaky');
    expect(result.output).toBe('"third time"');
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(`${result.runId}:c1.0`);
    const intents = journal.filter((record) => record.type === 'call-started');
    expect(intents.map((record) => record.type === 'call-started' && record.attempt)).toEqual([1, 2, 3]);
    expect(result.measures.usd).toBeCloseTo(0.03);
  });

  it('tells the model when retries run out', async () => {
    const broken = tool({
      name: 'broken',
      description: 'Always fails.',
      annotations: { readOnly: true },
      run: () => {
        throw new Error('service down');
      },
    });
    const { result, journal } = await runWith([broken], 'broken');
    expect(JSON.parse(result.output ?? '')).toEqual({ error: 'failed after 3 attempts: service down' });
    const answered = journal.find((record) => record.type === 'call-answered');
    expect(answered?.type === 'call-answered' && answered.answer).toMatchObject({
      type: 'error',
      code: 'retries_exhausted',
    });
  });

  it('does not retry a call that is not repeatable', async () => {
    let tries = 0;
    const send = tool({
      name: 'send',
      description: 'Sends; fails.',
      run: () => {
        tries += 1;
        throw new Error('smtp refused');
      },
    });
    const { result } = await runWith([send], 'send');
    expect(tries).toBe(1);
    expect(JSON.parse(result.output ?? '')).toEqual({ error: 'smtp refused' });
  });

  it('does not retry an error the tool answered on purpose', async () => {
    let tries = 0;
    const lookup = tool({
      name: 'lookup',
      description: 'Says no such order.',
      annotations: { readOnly: true },
      run: async () => {
        tries += 1;
        const { error } = await import('@wardrik/core');
        return error('no such order');
      },
    });
    const { result } = await runWith([lookup], 'lookup');
    expect(tries).toBe(1);
    expect(JSON.parse(result.output ?? '')).toEqual({ error: 'no such order' });
  });
});

describe('timeouts', () => {
  it('abort the call through its signal and retry a repeatable one', async () => {
    const aborted: unknown[] = [];
    const hang = tool({
      name: 'hang',
      description: 'Never answers.',
      annotations: { readOnly: true, timeout: 20 },
      run: (_args, context) =>
        new Promise(() => {
          context.signal.addEventListener('abort', () => aborted.push(context.signal.reason));
        }),
    });
    const { result, journal } = await runWith([hang], 'hang');
    expect(aborted).toHaveLength(3);
    expect(JSON.parse(result.output ?? '')).toEqual({ error: 'failed after 3 attempts: timed out after 20 ms' });
    const answered = journal.find((record) => record.type === 'call-answered');
    expect(answered?.type === 'call-answered' && answered.answer).toMatchObject({ code: 'timeout' });
  });

  it('park a call that is not repeatable as in_doubt: it may have run', async () => {
    let tries = 0;
    const pay = tool({
      name: 'pay',
      description: 'Pays; hangs.',
      annotations: { timeout: 20 },
      run: (_args, context) => {
        tries += 1;
        context.measure('usd', 1);
        return new Promise(() => {});
      },
    });
    const { result } = await runWith([pay], 'pay');
    expect(tries).toBe(1);
    expect(result.status).toBe('parked');
    expect(result.parks[0]).toMatchObject({ kind: 'in_doubt', call: { name: 'pay' } });
    expect(result.parks[0]?.reason).toContain('timed out after 20 ms');
    expect(result.measures.usd).toBe(1);
  });
});

describe('model failures', () => {
  it('retries a failing model step, then goes on', async () => {
    let failures = 0;
    const model = new ScriptedModel((request) => {
      if (failures < 2) {
        failures += 1;
        return { fail: new Error('503 from provider') };
      }
      return { text: `ok at step ${request.step}` };
    });
    wardrik = await openWardrik(tempDbPath(), [defineAgent({ name: 'm', instructions: '', model })]);
    const result = await wardrik.run('m', 'go');
    expect(result).toMatchObject({ status: 'completed', output: 'ok at step 1' });
    expect(model.calls).toBe(3);
  });

  it('fails the run at once, clearly, on an error that will not get better', async () => {
    const model = new ScriptedModel([{ fail: new ModelError('401: invalid API key', { retryable: false }) }]);
    wardrik = await openWardrik(tempDbPath(), [defineAgent({ name: 'm', instructions: '', model })]);
    const result = await wardrik.run('m', 'go');
    expect(result).toMatchObject({ status: 'failed', error: 'the model failed: 401: invalid API key' });
    expect(model.calls).toBe(1);
  });

  it('fails the run when retries of the model run out', async () => {
    const model = new ScriptedModel(() => ({ fail: new Error('overloaded') }));
    wardrik = await openWardrik(tempDbPath(), [defineAgent({ name: 'm', instructions: '', model })]);
    const result = await wardrik.run('m', 'go');
    expect(result).toMatchObject({ status: 'failed', error: 'the model failed after 3 attempts: overloaded' });
  });
});

describe('model retries are told to followers', () => {
  it('each retry of a model call is a live model-retry event; wardrik run prints it as a line', async () => {
    let tries = 0;
    const model = new ScriptedModel(() => {
      tries += 1;
      return tries < 3
        ? { fail: new ModelError('HTTP 429 (rate limited) from https://api.example', { retryable: true }) }
        : { text: 'done' };
    });
    wardrik = await openWardrik(tempDbPath(), [defineAgent({ name: 'r', instructions: '', model })]);
    const seen: RunEvent[] = [];
    wardrik.subscribe('*', (event) => seen.push(event));
    const result = await wardrik.run('r', 'go');
    expect(result.status).toBe('completed');
    const retries = seen.filter((event) => event.type === 'model-retry');
    expect(retries).toMatchObject([
      { step: 1, attempt: 1, error: expect.stringContaining('HTTP 429') },
      { step: 1, attempt: 2 },
    ]);
    // Live only: the journal has one model step.
    expect(
      (await wardrik.getRun(result.runId)).journal.filter((each) => each.record.type === 'model-step'),
    ).toHaveLength(1);
    let printed = '';
    const printer = new EventPrinter((text) => {
      printed += text;
    });
    for (const event of retries) printer.print(event);
    expect(printed).toMatch(/^ {2}↻ retrying in \d+ (ms|s): HTTP 429 \(rate limited\) from https:\/\/api.example\n/);
  });
});
