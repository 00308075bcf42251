/*
 * A run's abort signal is shared by every call of a step, every retry and every model call: it must
 * get one listener, not one per call that waits on it (issue 11, item 23: 11 concurrent calls drew
 * MaxListenersExceededWarning).
 */
import { error, ok, tool } from '@wardrik/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createWardrik, defineAgent, type Wardrik } from '../src/index.js';
import { memoryStore, ScriptedModel } from '../src/testing/index.js';

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
let wardrik: Wardrik | undefined;
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await wardrik?.close();
});

/** Lets a warning emitted on the way reach the listener (Node emits them on the next tick). */
const warningsSoFar = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  return warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'));
};

it('a step of 24 concurrent calls, with timeouts and retries, adds no listener per call to the run signal', async () => {
  let failures = 0;
  const slow = tool({
    name: 'slow',
    description: 'Answers after a moment; fails once in three tries.',
    schema: { n: { type: 'integer', required: true } },
    annotations: { readOnly: true, timeout: 5_000 },
    run: async ({ n }) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if ((n as number) % 3 === 0 && failures++ < 8) throw new Error('try again');
      return ok(n);
    },
  });
  const calls = Array.from({ length: 24 }, (_, n) => ({ name: 'slow', arguments: { n } }));
  const model = new ScriptedModel([
    { delayMs: 2, toolCalls: calls },
    { delayMs: 2, text: 'done' },
  ]);
  wardrik = await createWardrik({
    store: memoryStore(),
    agents: [defineAgent({ name: 'busy', instructions: '', model, tools: [slow] })],
    toolRetry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 10 },
  });
  const result = await wardrik.run('busy', 'go');
  expect(result.status).toBe('completed');
  expect(failures).toBeGreaterThan(0);
  expect(await warningsSoFar()).toEqual([]);
});

it('a long run on a model that takes its time at every step leaves no listener behind', async () => {
  const echo = tool({ name: 'echo', description: 'Echo.', schema: {}, run: () => error('no') });
  const model = new ScriptedModel((request) =>
    request.step < 40 ? { delayMs: 1, toolCalls: [{ name: 'echo', arguments: {} }] } : { delayMs: 1, text: 'done' },
  );
  wardrik = await createWardrik({
    store: memoryStore(),
    agents: [defineAgent({ name: 'long', instructions: '', model, tools: [echo] })],
  });
  expect((await wardrik.run('long', 'go')).status).toBe('completed');
  expect(await warningsSoFar()).toEqual([]);
});
