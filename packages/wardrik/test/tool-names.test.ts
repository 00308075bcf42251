/*
 * Model providers take tool names of 1–64 of `A–Z a–z 0–9 _ -`; `tool()` (like MCP) allows dots
 * and 128 characters. A local tool whose name a provider would refuse must not fail every run of
 * its agent (the sibling of issue 11, item 18, for worker tools): the model sees a safe name.
 */
import { tool } from '@wardrik/core';
import { afterEach, expect, it } from 'vitest';
import { AgentDefinitionError, createWardrik, defineAgent, type Wardrik } from '../src/index.js';
import { modelToolName } from '../src/model/tool-name.js';
import { lastToolResults, memoryStore, ScriptedModel } from '../src/testing/index.js';

let wardrik: Wardrik | undefined;
afterEach(async () => wardrik?.close());

const dotted = tool({
  name: 'orders.refund',
  description: 'Refund an order.',
  schema: { order: { type: 'string', required: true } },
  annotations: { idempotent: true },
  run: ({ order }) => ({ refunded: order }),
});
const long = tool({
  name: `lookup_${'x'.repeat(100)}`,
  description: 'Look up.',
  annotations: { readOnly: true },
  run: () => 'found',
});

it('a local tool named with a dot, or too long for providers, is offered under a safe name and runs', async () => {
  const offered: string[][] = [];
  const model = new ScriptedModel([
    (request) => {
      offered.push(request.tools.map((each) => each.name));
      return {
        toolCalls: request.tools.map((each) => ({
          name: each.name,
          arguments: each.name.startsWith('orders') ? { order: 'A1' } : {},
        })),
      };
    },
    (request) => ({ text: JSON.stringify(lastToolResults(request).map((message) => message.content)) }),
  ]);
  wardrik = await createWardrik({
    store: memoryStore(),
    agents: [defineAgent({ name: 'clerk', instructions: '', model, tools: [dotted, long] })],
  });
  const result = await wardrik.run('clerk', 'go');
  expect(offered[0]).toEqual([modelToolName('orders.refund'), modelToolName(long.name)]);
  for (const name of offered[0] ?? []) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  expect(modelToolName('orders.refund')).toMatch(/^orders_refund_[0-9a-f]{8}$/);
  expect(result).toMatchObject({ status: 'completed', output: '[{"refunded":"A1"},"found"]' });
});

it('two tools the model would see under one name are refused when the agent is defined', () => {
  const underscored = tool({ name: modelToolName('orders.refund'), description: 'Same name.', run: () => 'x' });
  expect(() =>
    defineAgent({ name: 'clash', instructions: '', model: new ScriptedModel([]), tools: [dotted, underscored] }),
  ).toThrow(AgentDefinitionError);
});
