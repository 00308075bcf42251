// Benchmarks of sessions and toolsets (issue 14). Run with `npm run bench -- sessions`.
// Every figure is printed next to its floor measured in the same process run, rounds alternating.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Tool, tool, toolset } from '@wardrik/core';
import { createWardrik, defineAgent, type Store, sqliteStore, type Wardrik } from 'wardrik';
import { memoryStore, ScriptedModel } from 'wardrik/testing';
import { median, table, us } from './stats.js';

const ROUNDS = Number(process.env.SESSION_ROUNDS ?? '7');
/** Model steps (each with one call) of each measured run. */
const STEPS = Number(process.env.SESSION_STEPS ?? '10');
/** Earlier messages in the long session. */
const EARLIER = Number(process.env.SESSION_EARLIER ?? '1000');

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 42 }),
});

/** When the model was last asked for a step (for the time between steps). */
const marks: number[] = [];

/** Calls `lookup` on each of `steps` steps, then answers. */
function callingModel(steps: number) {
  return new ScriptedModel((request) => {
    marks.push(performance.now());
    return request.step <= steps
      ? { toolCalls: [{ name: 'lookup', arguments: { key: `k${request.step}` } }] }
      : { text: 'done' };
  });
}

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'bench.db');
}

/** One run of `STEPS` calls in `session`: µs per step with its start and end, and the median µs between model steps. */
async function runCost(wardrik: Wardrik, session: string): Promise<{ whole: number; step: number }> {
  marks.length = 0;
  const start = performance.now();
  const result = await wardrik.run('chat', 'next', { session });
  if (result.status !== 'completed') throw new Error(`run ${result.runId} ${result.status}: ${result.error}`);
  const whole = ((performance.now() - start) * 1000) / STEPS;
  const between = marks.slice(1).map((mark, index) => (mark - (marks[index] as number)) * 1000);
  return { whole, step: median(between) };
}

/** A session whose conversation holds at least `messages` messages (runs of `STEPS` calls: 2 + 2·STEPS messages each). */
async function sessionWith(wardrik: Wardrik, messages: number): Promise<string> {
  const { id } = await wardrik.createSession('chat');
  for (let held = 0; held < messages; held += 2 + 2 * STEPS) await wardrik.run('chat', 'earlier', { session: id });
  return id;
}

async function sessionCost(window: number): Promise<Record<string, string | number>> {
  const store = sqliteStore(tempDb());
  const agent = defineAgent({
    name: 'chat',
    instructions: 'Chat.',
    model: callingModel(STEPS),
    tools: [lookup],
    history: { maxMessages: window },
  });
  const wardrik = await createWardrik({ store, agents: [agent] });
  try {
    const long = await sessionWith(wardrik, EARLIER);
    const fresh: { whole: number; step: number }[] = [];
    const old: { whole: number; step: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh session per round (its first run), and the next turn of the long one, alternating.
      const { id } = await wardrik.createSession('chat');
      fresh.push(await runCost(wardrik, id));
      old.push(await runCost(wardrik, long));
    }
    const step = (list: typeof fresh) => median(list.map((each) => each.step));
    const whole = (list: typeof fresh) => median(list.map((each) => each.whole));
    return {
      window: `${window} messages`,
      'step, fresh': us(step(fresh)),
      [`step, after ${EARLIER}`]: us(step(old)),
      'step ratio': `${(step(old) / step(fresh)).toFixed(2)}×`,
      'run ÷ steps, fresh': us(whole(fresh)),
      [`run ÷ steps, after ${EARLIER}`]: us(whole(old)),
      'run ratio': `${(whole(old) / whole(fresh)).toFixed(2)}×`,
    };
  } finally {
    await wardrik.close();
  }
}

/** The resolver alone: µs per `resolve()` with one toolset returning the same array, next to an agent's fixed tools. */
async function resolverCost(): Promise<Record<string, string | number>> {
  const { ToolResolver } = await import('../packages/wardrik/src/tool-sources/tool-resolver.ts');
  const same: readonly Tool<never>[] = [lookup as unknown as Tool<never>];
  const catalogue = toolset({ name: 'catalogue', tools: () => same });
  const model = callingModel(1);
  const fixed = new ToolResolver(
    defineAgent({ name: 'a', instructions: '', model, tools: [lookup] }),
    undefined,
    10_000,
  );
  const sets = new ToolResolver(
    defineAgent({ name: 'b', instructions: '', model, toolsets: [catalogue] }),
    undefined,
    10_000,
  );
  const input = {
    runId: 'r',
    principal: 'p',
    sessionId: undefined,
    step: 1,
    labels: [],
    state: { entry: () => undefined, keys: () => [] },
    signal: new AbortController().signal,
  };
  const N = 200_000;
  const time = async (resolver: InstanceType<typeof ToolResolver>) => {
    const start = performance.now();
    for (let index = 0; index < N; index++) await resolver.resolve(input);
    return ((performance.now() - start) * 1000) / N;
  };
  const floor: number[] = [];
  const measured: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floor.push(await time(fixed));
    measured.push(await time(sets));
  }
  return {
    'fixed tools, per step (floor)': us(median(floor)),
    'one toolset, nothing changed, per step': us(median(measured)),
    'cost of the toolset': us(median(measured) - median(floor)),
  };
}

/** µs per step of a run of `steps` calls on the memory store, its tools given `how`. */
async function toolsetCost(steps: number): Promise<Record<string, string | number>> {
  const same: readonly Tool<never>[] = [lookup as unknown as Tool<never>];
  const asked = { count: 0 };
  const catalogue = toolset({
    name: 'catalogue',
    tools: () => {
      asked.count += 1;
      return same;
    },
  });
  const make = (store: Store, withToolset: boolean) =>
    createWardrik({
      store,
      agents: [
        defineAgent({
          name: 'chat',
          instructions: 'Chat.',
          model: callingModel(steps),
          maxSteps: steps + 1,
          ...(withToolset ? { toolsets: [catalogue] } : { tools: [lookup] }),
        }),
      ],
    });
  const local = await make(memoryStore(), false);
  const fromToolset = await make(memoryStore(), true);
  const perStep = async (wardrik: Wardrik) => {
    const start = performance.now();
    const result = await wardrik.run('chat', 'go');
    if (result.status !== 'completed') throw new Error(`run ${result.runId} ${result.status}: ${result.error}`);
    return ((performance.now() - start) * 1000) / steps;
  };
  const floor: number[] = [];
  const measured: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      floor.push(await perStep(local));
      measured.push(await perStep(fromToolset));
    }
  } finally {
    await local.close();
    await fromToolset.close();
  }
  if (asked.count < ROUNDS * steps) throw new Error(`the toolset was asked ${asked.count} times`);
  return {
    'run of': `${steps} steps (memory store)`,
    'agent tools, per step (floor)': us(median(floor)),
    'the same tool from a toolset, per step': us(median(measured)),
    'resolution per step': us(median(measured) - median(floor)),
    ratio: `${(median(measured) / median(floor)).toFixed(2)}×`,
  };
}

export async function main(): Promise<void> {
  console.log(`\n## Sessions and toolsets (Node ${process.version}, ${(await import('node:os')).cpus().length} cores)`);
  const rows = [];
  for (const window of [100, 2 * EARLIER]) rows.push(await sessionCost(window));
  table(
    `Per-step cost of a run in a session with ${EARLIER} earlier messages next to a fresh session's (SQLite FULL, ${STEPS} read-only calls a run, median of ${ROUNDS} rounds, target ≤ 1.2×)`,
    rows,
  );
  table(
    `Toolset resolution when nothing changed: one toolset returning the same array each step, next to the same tool given to the agent (target ≤ 5 µs a step; median of ${ROUNDS} rounds)`,
    [await resolverCost()],
  );
  table(
    `The same in whole runs: a run of 1,000 steps with its tool from a toolset, next to the tool given to the agent (memory store; median of ${ROUNDS} rounds; noisy: the difference is within the runs' spread)`,
    [await toolsetCost(1000)],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
