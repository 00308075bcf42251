// Benchmarks of telemetry (issue 17). Run with `npm run bench -- telemetry`.
// Per-step cost of a run with tracing and metrics (and logs) on next to off, and what the hooks
// cost when nobody listens, each measured in the same process run, configurations interleaved.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Span, SpanContext, Tracer } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { tool } from '@wardrik/core';
import {
  createLogger,
  createWardrik,
  defineAgent,
  enableMetrics,
  enableTracing,
  type HookName,
  logRuntime,
  type Store,
  sqliteStore,
  type Wardrik,
} from 'wardrik';
import { memoryStore, ScriptedModel } from 'wardrik/testing';
import { completedRun } from './completed-run.js';
import { median, table, us } from './stats.js';

const STEPS = 200;
/** Rounds of the CPU workloads (`TELEMETRY_ROUNDS`; the wall-time ones scale with it). */
const ROUNDS = Number(process.env.TELEMETRY_ROUNDS ?? 15);
/** Which workloads to run (`TELEMETRY_ONLY=1,2`: by their number in the list below, from 1). Default all. */
const ONLY = process.env.TELEMETRY_ONLY?.split(',').map(Number);
const HOOK_NAMES: readonly HookName[] = [
  'run-started',
  'run-start-failed',
  'run-resumed',
  'run-suspended',
  'run-ended',
  'model-call-started',
  'model-call-ended',
  'call-attempt-started',
  'call-attempt-ended',
  'call-settled',
  'park-opened',
  'park-answered',
  'store-committed',
  'worker-connected',
  'worker-disconnected',
];

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 42 }),
});

const update = tool({
  name: 'update',
  description: 'Changes a record (not repeatable: its intent and answer are on disk before and after).',
  schema: { key: { type: 'string', required: true } },
  run: ({ key }) => ({ key, updated: true }),
});

/** How a runtime is set up before its run: what listens. */
type Setup = (wardrik: Wardrik) => (() => void) | undefined;

/** A span exporter that drops what it gets (the SDK's work is measured, not a collector's). */
const dropping: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
const tracer = provider.getTracer('bench');
/** The same SDK, sampling nothing (as a ratio sampler does for the runs it leaves out). */
const sampledOutProvider = new BasicTracerProvider({
  sampler: new AlwaysOffSampler(),
  spanProcessors: [new BatchSpanProcessor(dropping)],
});
const sampledOut = sampledOutProvider.getTracer('bench');
/**
 * A tracer whose spans are recorded but cost nothing (no ids drawn, no attributes kept, nothing
 * exported): what tracing costs with it is Wardrik's own work, the rest of the SDK row the SDK's.
 */
class IdleSpan implements Span {
  static made = 0;
  readonly #context: SpanContext = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: (++IdleSpan.made).toString(16).padStart(16, '0'),
    traceFlags: 1,
  };
  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {}
  isRecording(): boolean {
    return true;
  }
  recordException(): void {}
}
class IdleTracer implements Tracer {
  startSpan(): Span {
    return new IdleSpan();
  }
  startActiveSpan(): never {
    throw new Error('not used');
  }
}
const idle = new IdleTracer();
const nowhere = new Writable({ write: (_chunk, _encoding, done) => done() });

/** One logger for every run, as a process has (pino's first lines on a new logger cost far more). */
const logger = createLogger({ level: 'info', destination: nowhere });
/** Runs `each` and gives the function that stops them all. */
const all =
  (...each: Array<() => void>) =>
  () => {
    for (const stop of each) stop();
  };

const SETUPS: Record<string, Setup> = {
  off: () => undefined,
  'a listener added, then removed': (wardrik) => {
    for (const stop of HOOK_NAMES.map((name) => wardrik.hooks.on(name, () => {}))) stop();
    return undefined;
  },
  'a no-op listener on every hook': (wardrik) => all(...HOOK_NAMES.map((name) => wardrik.hooks.on(name, () => {}))),
  'tracing, spans that cost nothing (Wardrik’s share)': (wardrik) => enableTracing(wardrik, { tracer: idle }),
  'tracing, runs sampled out': (wardrik) => enableTracing(wardrik, { tracer: sampledOut }),
  tracing: (wardrik) => enableTracing(wardrik, { tracer }),
  metrics: (wardrik) => enableMetrics(wardrik, { processMetrics: false }).stop,
  'tracing + metrics': (wardrik) =>
    all(enableTracing(wardrik, { tracer }), enableMetrics(wardrik, { processMetrics: false }).stop),
  'tracing + metrics + logs (info)': (wardrik) =>
    all(
      enableTracing(wardrik, { tracer }),
      enableMetrics(wardrik, { processMetrics: false }).stop,
      logRuntime(wardrik, logger),
    ),
};

/** A workload: its store, its tool, how many steps a run, and what is measured of it. */
interface Workload {
  readonly label: string;
  readonly store: () => Store;
  readonly tool: typeof lookup | typeof update;
  readonly steps: number;
  readonly rounds: number;
  /** How long the scripted model takes to answer (0: at once). */
  readonly modelMs?: number;
  /** `cpu`: this process' CPU time (user + system; garbage collection included, waiting not); `wall`: elapsed. */
  readonly measure: 'cpu' | 'wall';
}

/** What one step of a run of `workload` costs, measured as it says. */
async function stepCost(workload: Workload, setup: Setup): Promise<number> {
  let spent = 0;
  await stepTimes(workload, setup, (cpu, wall) => {
    spent = workload.measure === 'cpu' ? cpu : wall;
  });
  return spent / workload.steps;
}

/** The time between consecutive model steps of one run; `spent` is told its CPU and wall time (µs). */
async function stepTimes(
  workload: Pick<Workload, 'store' | 'tool' | 'steps' | 'modelMs'>,
  setup: Setup,
  spent?: (cpu: number, wall: number) => void,
): Promise<number[]> {
  const marks: number[] = [];
  const steps = workload.steps;
  const scripted = new ScriptedModel((request) => {
    marks.push(performance.now());
    return request.step <= steps
      ? { toolCalls: [{ name: workload.tool.name, arguments: { key: `k${request.step}` } }] }
      : { text: 'done' };
  });
  const delay = workload.modelMs ?? 0;
  const model =
    delay === 0
      ? scripted
      : {
          id: scripted.id,
          generate: async (...args: Parameters<ScriptedModel['generate']>) => {
            await sleep(delay);
            return scripted.generate(...args);
          },
        };
  const wardrik = await createWardrik({
    store: workload.store(),
    agents: [defineAgent({ name: 'bench', instructions: '', model, tools: [workload.tool], maxSteps: steps + 1 })],
  });
  const stop = setup(wardrik);
  // The garbage of the run before, out of the way. A minor collection only: a full one (plain gc())
  // leaves the heap cold, and the run after it spends 2–3 times the CPU of a steady process.
  (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' });
  const cpu = process.cpuUsage();
  const began = performance.now();
  await completedRun(wardrik);
  const used = process.cpuUsage(cpu);
  spent?.(used.user + used.system, (performance.now() - began) * 1000);
  stop?.();
  await wardrik.close();
  // The run's spans exported now, not during a later run (whichever setup that is).
  await Promise.all([provider.forceFlush(), sampledOutProvider.forceFlush()]);
  return marks.slice(1).map((mark, index) => (mark - (marks[index] as number)) * 1000);
}

/** Per-step medians of each setup, rounds interleaved (each round in a rotated order). */
async function perStep(workload: Workload): Promise<Map<string, number>> {
  const names = Object.keys(SETUPS);
  const samples = new Map<string, number[]>(names.map((name) => [name, []]));
  for (const name of names) await stepCost(workload, SETUPS[name] as Setup); // warm-up
  for (let round = 0; round < workload.rounds; round++) {
    for (let index = 0; index < names.length; index++) {
      const name = names[(index + round) % names.length] as string;
      samples.get(name)?.push(await stepCost(workload, SETUPS[name] as Setup));
    }
  }
  return new Map(names.map((name) => [name, median(samples.get(name) ?? [])]));
}

/**
 * What the hooks add to a loop that had none, when nobody listens: the `has(name)` checks at the
 * emit points. Counts them per step (a run with `has` counted), and times one check in a loop.
 */
async function hookChecks(): Promise<{ perStep: number; nsEach: number }> {
  let checks = 0;
  const marks: number[] = [];
  const model = new ScriptedModel((request) => {
    marks.push(checks);
    return request.step <= STEPS
      ? { toolCalls: [{ name: 'lookup', arguments: { key: `k${request.step}` } }] }
      : { text: 'done' };
  });
  const wardrik = await createWardrik({
    store: memoryStore(),
    agents: [defineAgent({ name: 'bench', instructions: '', model, tools: [lookup], maxSteps: STEPS + 1 })],
  });
  const has = wardrik.hooks.has.bind(wardrik.hooks);
  wardrik.hooks.has = (name) => {
    checks += 1;
    return has(name);
  };
  await completedRun(wardrik);
  await wardrik.close();
  const perStep = median(marks.slice(1).map((mark, index) => mark - (marks[index] as number)));
  // One check, timed over many (the same Hooks object, nobody listening).
  const hooks = (await createWardrik({ store: memoryStore(), agents: [] })).hooks;
  let seen = 0;
  const loops = 5_000_000;
  let nsEach = 0;
  for (let round = 0; round < 2; round++) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < loops; index++) if (hooks.has(HOOK_NAMES[index % 9] as HookName)) seen++;
    nsEach = Number(process.hrtime.bigint() - start) / loops; // the second round's, warmed up
  }
  if (seen > 0) throw new Error('nobody listens, yet has() said yes');
  return { perStep, nsEach };
}

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'bench.db');
const WORKLOADS: readonly Workload[] = [
  {
    label: 'in memory, a read-only call a step (the runtime alone: CPU a step)',
    store: () => memoryStore(),
    tool: lookup,
    steps: STEPS,
    rounds: ROUNDS,
    measure: 'cpu',
  },
  {
    label: 'SQLite (FULL), a read-only call a step (CPU a step)',
    store: () => sqliteStore(tempDb()),
    tool: lookup,
    steps: STEPS,
    rounds: ROUNDS,
    measure: 'cpu',
  },
  {
    label: 'SQLite (FULL), a call that is not repeatable a step (intent and answer fsynced: wall time a step)',
    store: () => sqliteStore(tempDb()),
    tool: update,
    steps: 40,
    rounds: Math.ceil((ROUNDS * 7) / 15),
    measure: 'wall',
  },
  {
    label: 'SQLite (FULL), a read-only call a step, a model that answers in 20 ms (wall time a step)',
    store: () => sqliteStore(tempDb()),
    tool: lookup,
    steps: 20,
    rounds: Math.ceil(ROUNDS / 3),
    modelMs: 20,
    measure: 'wall',
  },
];

export async function main(): Promise<void> {
  console.log(`\n## Telemetry: what a step costs with telemetry on, next to off (scripted model, one call a step)`);
  for (const [index, workload] of WORKLOADS.entries()) {
    if (ONLY && !ONLY.includes(index + 1)) continue;
    const medians = await perStep(workload);
    const off = medians.get('off') ?? Number.NaN;
    table(
      `${workload.label}; ${workload.steps} steps a run, median of ${workload.rounds} runs`,
      [...medians].map(([setup, value]) => ({
        setup,
        [workload.measure === 'cpu' ? 'CPU a step' : 'wall a step']: us(value),
        'vs off': `${(value / off).toFixed(3)}×`,
        target: setup.startsWith('tracing + metrics') ? '≤ 1.1×' : '',
      })),
    );
  }
  const { perStep: checks, nsEach } = await hookChecks();
  const memoryOff = await stepCost(WORKLOADS[0] as Workload, () => undefined);
  table('Hooks nobody listens to, next to a loop without hooks (in memory)', [
    {
      'has() checks a step': checks,
      'ns a check': nsEach.toFixed(2),
      'their cost a step': `${((checks * nsEach) / 1000).toFixed(3)} µs`,
      'CPU a step (off)': us(memoryOff),
      'ratio (target ≤ 1.02×)': `${(1 + (checks * nsEach) / 1000 / memoryOff).toFixed(4)}×`,
    },
  ]);
}
