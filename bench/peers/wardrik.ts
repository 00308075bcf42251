// Wardrik running the peers workload (bench/peers.ts), in a process of its own:
//   node --expose-gc --conditions=@wardrik/source --import tsx bench/peers/wardrik.ts memory|read-only|unannotated
// `memory`: the in-memory store; `read-only`: SQLite FULL (the default store), the tool annotated
// read-only; `unannotated`: SQLite FULL, the tool without annotations (its intent and its answer are
// durability barriers).
import { tool } from '@wardrik/core';
import { createWardrik, defineAgent, type Store, sqliteStore } from 'wardrik';
import { memoryStore, ScriptedModel } from 'wardrik/testing';
import { measureAndReport, temporaryPath } from './harness.js';
import { addTool, inputFor, nextTurn, resultNumber, WORKLOAD } from './workload.js';

const variant = process.argv[2];
if (variant !== 'memory' && variant !== 'read-only' && variant !== 'unannotated') {
  console.error('usage: wardrik.ts memory|read-only|unannotated');
  process.exit(2);
}

const add = tool({
  name: addTool.name,
  description: addTool.description,
  schema: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
  ...(variant === 'unannotated' ? {} : { annotations: { readOnly: true } }),
  run: ({ a, b }) => addTool.run({ a: a as number, b: b as number }),
});

const model = new ScriptedModel((request) => {
  const first = request.messages[0];
  const last = request.messages[request.messages.length - 1];
  const turn = nextTurn(
    first?.role === 'user' ? first.content : '',
    last?.role === 'tool' ? resultNumber(last.content) : undefined,
  );
  return turn.type === 'call'
    ? { toolCalls: [{ id: turn.callId, name: addTool.name, arguments: turn.arguments }] }
    : { text: turn.text };
});

await measureAndReport(async () => {
  const store: Store = variant === 'memory' ? memoryStore() : sqliteStore(temporaryPath('wardrik.db'));
  const agent = defineAgent({
    name: 'adder',
    instructions: 'Add.',
    model,
    tools: [add],
    maxSteps: WORKLOAD.longCalls + 1,
  });
  const wardrik = await createWardrik({ store, agents: [agent] });
  return {
    async run(calls) {
      const result = await wardrik.run('adder', inputFor(calls));
      if (result.status !== 'completed') throw new Error(`the run ended ${result.status}`);
      return String(result.output);
    },
    close: () => wardrik.close(),
    notes: variant === 'memory' ? 'in-memory store' : `SQLite synchronous=FULL, ${variant} tool`,
  };
});
