import { tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { createWardrik, defineAgent } from '../src/index.js';
import { memoryStore, ScriptedModel } from '../src/testing/index.js';

// A model and tools that answer at once never make a run wait for I/O: without a pause now and
// then, many such runs would keep the event loop (HTTP, worker pings, timers) to themselves.

describe('runs that never wait for I/O', () => {
  it('let the event loop turn while they go on: a timer fires before they end', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Computes a value.',
      schema: { key: { type: 'string', required: true } },
      annotations: { readOnly: true },
      run: ({ key }) => ({ key, value: 42 }),
    });
    const model = new ScriptedModel((request) =>
      request.step <= 200
        ? { toolCalls: [{ name: 'lookup', arguments: { key: `k${request.step}` } }] }
        : { text: 'done' },
    );
    const wardrik = await createWardrik({
      store: memoryStore(),
      agents: [defineAgent({ name: 'busy', instructions: '', model, tools: [lookup], maxSteps: 300 })],
    });
    let ended = 0;
    let endedWhenTimerFired: number | undefined;
    const runs = Array.from({ length: 32 }, () =>
      wardrik.run('busy', 'go').then((result) => {
        ended += 1;
        return result;
      }),
    );
    setTimeout(() => {
      endedWhenTimerFired = ended;
    }, 0);
    const results = await Promise.all(runs);
    expect(results.every((result) => result.status === 'completed')).toBe(true);
    // 6,400 steps take far longer than one slice: the timer fired while most runs were still going.
    expect(endedWhenTimerFired).toBeDefined();
    expect(endedWhenTimerFired).toBeLessThan(32);
    await wardrik.close();
  });
});
