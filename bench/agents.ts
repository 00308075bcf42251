// Benchmarks of agents working together (issue 15). Run with `npm run bench -- agents`.
// A run whose first step hands it to another agent (transfer), or calls another agent as a tool (a
// child run), next to the same run with a plain tool call: each two model steps and one call,
// timed whole, rounds alternating, on the memory store and on SQLite (FULL).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import {
  type Agent,
  agentTool,
  createWardrik,
  defineAgent,
  type Store,
  sqliteStore,
  TRANSFER_TOOL,
  type Wardrik,
} from 'wardrik';
import { lastToolResults, memoryStore, ScriptedModel } from 'wardrik/testing';
import { median, table, us } from './stats.js';

const ROUNDS = Number(process.env.AGENT_ROUNDS ?? '7');
/** Runs of each kind in a round. */
const RUNS = Number(process.env.AGENT_RUNS ?? '50');

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 42 }),
});

/** Answers at once. */
const helper = defineAgent({
  name: 'helper',
  description: 'Answers.',
  instructions: 'Answer.',
  model: new ScriptedModel(() => ({ text: 'helped' })),
});

/** Step 1 makes `call`, step 2 answers. */
function caller(
  name: string,
  call: { name: string; arguments: Record<string, unknown> },
  extra: Partial<Parameters<typeof defineAgent>[0]>,
): Agent {
  return defineAgent({
    name,
    instructions: 'Work.',
    model: new ScriptedModel((request) =>
      lastToolResults(request).length > 0 || request.step > 1 ? { text: 'done' } : { toolCalls: [call] },
    ),
    ...extra,
  });
}

const plain = caller('plain', { name: 'lookup', arguments: { key: 'k' } }, { tools: [lookup] });
// After the transfer, helper answers: two steps, one call, like the others.
const transferring = caller(
  'transferring',
  { name: TRANSFER_TOOL, arguments: { agent_name: 'helper' } },
  { subAgents: [helper] },
);
const delegating = caller(
  'delegating',
  { name: 'helper', arguments: { request: 'help' } },
  { tools: [agentTool(helper)] },
);

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'bench.db');
}

/** µs per run of `agent`, over `RUNS` runs one after the other. */
async function perRun(wardrik: Wardrik, agent: string): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < RUNS; index++) {
    const result = await wardrik.run(agent, 'go');
    if (result.status !== 'completed') throw new Error(`run ${result.runId} ${result.status}: ${result.error}`);
  }
  return ((performance.now() - start) * 1000) / RUNS;
}

async function costs(label: string, store: Store): Promise<Record<string, string | number>> {
  const wardrik = await createWardrik({ store, agents: [plain, transferring, delegating] });
  const times = { plain: [] as number[], transferring: [] as number[], delegating: [] as number[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ['plain', 'transferring', 'delegating'] as const)
        times[name].push(await perRun(wardrik, name));
    }
  } finally {
    await wardrik.close();
  }
  const floor = median(times.plain);
  return {
    store: label,
    'plain tool call, per run (floor)': us(floor),
    'transfer, per run': us(median(times.transferring)),
    'transfer ratio': `${(median(times.transferring) / floor).toFixed(2)}×`,
    'agent as a tool (child run), per run': us(median(times.delegating)),
    'agent-as-tool ratio': `${(median(times.delegating) / floor).toFixed(2)}×`,
  };
}

export async function main(): Promise<void> {
  console.log(
    `\n## Agents working together (Node ${process.version}, ${(await import('node:os')).cpus().length} cores)`,
  );
  table(
    `A run of two model steps and one call: a plain tool call, a transfer, or another agent called as a tool (median of ${ROUNDS} rounds of ${RUNS} runs each)`,
    [await costs('memory', memoryStore()), await costs('SQLite FULL', sqliteStore(tempDb()))],
  );
}
