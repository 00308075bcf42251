// The tools and agents of the PostgreSQL benchmarks (bench/postgres.ts), shared by the benchmark's
// own process and its node processes (bench/postgres-node.ts).
import { tool } from '@wardrik/core';
import { defineAgent } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

/** A read-only tool: repeatable, so its intent and answer ride with the next commit. */
export const lookupTool = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 42 }),
});

/** An unannotated tool: not repeatable, so its intent is committed before it runs (and its answer before the model sees it). */
export const updateTool = tool({
  name: 'update',
  description: 'Changes a record (not repeatable).',
  schema: { key: { type: 'string', required: true } },
  run: ({ key }) => ({ key, updated: true }),
});

/**
 * A read-only tool that takes an hour (or until its run stops): a run calling it stays owned by its
 * node, doing nothing. Read-only, so a node taking the run over calls it again at once (a new
 * `call-started`), which is how a failover shows in the journal.
 */
export const slowTool = tool({
  name: 'wait',
  description: 'Waits for a long time.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: async ({ key }, context) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 3_600_000);
      context.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    return { key, waited: true };
  },
});

/** A model that calls `toolName` on each of `calls` steps, then answers. */
export function callingModel(toolName: string, calls: number, onStep?: (step: number) => void): ScriptedModel {
  return new ScriptedModel((request) => {
    onStep?.(request.step);
    return request.step <= calls
      ? { toolCalls: [{ name: toolName, arguments: { key: `k${request.step}` } }] }
      : { text: 'done' };
  });
}

/** The agents a node runs: `lookup` and `update` (`calls` calls of that tool), `wait` (one slow call). */
export function benchAgents(calls: number) {
  const tools = [lookupTool, updateTool, slowTool];
  return [
    defineAgent({ name: 'lookup', instructions: '', model: callingModel('lookup', calls), tools, maxSteps: calls + 1 }),
    defineAgent({ name: 'update', instructions: '', model: callingModel('update', calls), tools, maxSteps: calls + 1 }),
    defineAgent({ name: 'wait', instructions: '', model: callingModel('wait', 1), tools, maxSteps: 2 }),
  ];
}
