// call() on a tool with a 5-field shorthand schema, against calling its run function directly.
// Run: node --conditions=@wardrik/source --import tsx bench/core-call.ts   (or: npm run bench -- core-call)
import { pathToFileURL } from 'node:url';
import {
  type Arguments,
  type ContextOptions,
  call,
  createContext,
  type Shorthand,
  type ToolCall,
  tool,
} from '@wardrik/core';

/** The target: call() adds at most this much per call on valid arguments. */
export const TARGET_ADDED_NS = 2_000;

const schema: Shorthand = {
  name: { type: 'string', required: true },
  count: { type: 'integer', required: true },
  price: { type: 'number' },
  urgent: { type: 'boolean' },
  tags: { type: 'list', of: 'string' },
};

// Cheap work that reads every argument, so neither side can skip it.
const run = (args: Arguments) =>
  (args.name as string).length +
  (args.count as number) +
  (args.price as number) +
  (args.urgent ? 1 : 0) +
  (args.tags as string[]).length;

const args = { name: 'order-1001', count: 3, price: 9.5, urgent: true, tags: ['gift', 'express'] };
const identity: ContextOptions = {
  runId: 'run-1',
  agent: 'bench',
  principal: 'user-1',
  callId: 'call-1',
  idempotencyKey: 'run-1:call-1',
};

interface Case {
  readonly label: string;
  readonly toolCall: ToolCall;
  readonly tools: Parameters<typeof call>[0];
}

const plain = tool({ name: 'place_order', description: 'Place an order.', schema, run });
const withDefault = tool({
  name: 'place_order',
  description: 'Place an order.',
  schema: { ...schema, price: { type: 'number', default: 0 } },
  run,
});

const cases: Case[] = [
  {
    label: 'object arguments (target)',
    tools: [plain],
    toolCall: { id: 'call-1', name: 'place_order', arguments: args },
  },
  {
    label: 'JSON string arguments',
    tools: [plain],
    toolCall: { id: 'call-1', name: 'place_order', arguments: JSON.stringify(args) },
  },
  {
    label: 'a default to fill (args copied)',
    tools: [withDefault],
    toolCall: { id: 'call-1', name: 'place_order', arguments: { ...args, price: undefined } },
  },
];

export interface Result {
  readonly label: string;
  readonly directNs: number;
  readonly callNs: number;
  readonly addedNs: number;
  readonly ratio: number;
}

let sink = 0;

async function timeDirect(iterations: number): Promise<number> {
  const context = createContext(identity);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink += await run(args, context);
  return Number(process.hrtime.bigint() - start) / iterations;
}

async function timeCall(entry: Case, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const answer = await call(entry.tools, entry.toolCall, identity);
    if (answer.type !== 'ok') throw new Error(`bench call failed: ${JSON.stringify(answer)}`);
    sink += answer.value as number;
  }
  return Number(process.hrtime.bigint() - start) / iterations;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Measures each case: warm-up, then alternating rounds of direct and call(); reports the medians. */
export async function measure(
  options: { rounds?: number; iterations?: number; warmup?: number } = {},
): Promise<Result[]> {
  const { rounds = 9, iterations = 100_000, warmup = 200_000 } = options;
  await timeDirect(warmup);
  for (const entry of cases) await timeCall(entry, warmup);
  const results: Result[] = [];
  for (const entry of cases) {
    const direct: number[] = [];
    const called: number[] = [];
    for (let round = 0; round < rounds; round++) {
      direct.push(await timeDirect(iterations));
      called.push(await timeCall(entry, iterations));
    }
    const directNs = median(direct);
    const callNs = median(called);
    results.push({ label: entry.label, directNs, callNs, addedNs: callNs - directNs, ratio: callNs / directNs });
  }
  return results;
}

export async function main(): Promise<Result[]> {
  console.log('core-call: call() on a 5-field shorthand schema (string, integer, number, boolean, list of strings)');
  console.log(`node ${process.version}, ${process.platform}-${process.arch}`);
  const results = await measure();
  const rows = [
    ['case', 'direct ns/call', 'call() ns/call', 'added µs/call', 'ratio'],
    ...results.map((r) => [
      r.label,
      r.directNs.toFixed(0),
      r.callNs.toFixed(0),
      (r.addedNs / 1_000).toFixed(2),
      `${r.ratio.toFixed(1)}x`,
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows) {
    console.log(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd : cell.padStart).call(cell, widths[column] ?? 0))
        .join('  '),
    );
  }
  const target = results[0];
  if (target) {
    const met = target.addedNs <= TARGET_ADDED_NS;
    console.log(
      `target: call() adds ≤ ${TARGET_ADDED_NS / 1_000} µs per call on valid arguments: ${met ? 'met' : 'NOT met'} (${(target.addedNs / 1_000).toFixed(2)} µs)`,
    );
  }
  if (sink === Number.MIN_VALUE) console.log(sink);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
