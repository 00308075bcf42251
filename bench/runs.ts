// Benchmarks of durable runs (issue 3). Run with `npm run bench -- runs`.
// Every figure is printed next to a floor or peer measured in the same process run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Answer, park, tool } from '@wardrik/core';
import Database from 'better-sqlite3';
import { createWardrik, defineAgent, JOURNAL_VERSION, type Store, sqliteStore, type Wardrik } from 'wardrik';
import { memoryStore, ScriptedModel } from 'wardrik/testing';
import { completedRun } from './completed-run.js';
import { median, percentile, table, us } from './stats.js';

type Sync = 'full' | 'normal';

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'bench.db');
}

const readOnlyTool = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 42 }),
});
const plainTool = tool({
  name: 'update',
  description: 'Changes a record (not repeatable).',
  schema: { key: { type: 'string', required: true } },
  run: ({ key }) => ({ key, updated: true }),
});

/** A model that calls `toolName` on each of `calls` steps, then answers. */
function callingModel(toolName: string, calls: number, onStep?: (step: number) => void) {
  return new ScriptedModel((request) => {
    onStep?.(request.step);
    return request.step <= calls
      ? { toolCalls: [{ name: toolName, arguments: { key: `k${request.step}` } }] }
      : { text: 'done' };
  });
}

async function runtime(
  store: Store,
  agents: Parameters<typeof defineAgent>[0][],
  durableAnswers = true,
): Promise<Wardrik> {
  return createWardrik({ store, agents: agents.map(defineAgent), durableAnswers });
}

/**
 * Raw better-sqlite3 doing the journal writes of one step with one non-repeatable call, with the
 * same table and commits as Wardrik: the model step and the intent committed together before the
 * tool runs, then the answer committed before the model sees it (`durableAnswer`) or riding with
 * the next step's commit. The floor.
 */
function rawFloor(sync: Sync, steps: number, durableAnswer: boolean): number[] {
  const db = new Database(tempDb());
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync.toUpperCase()}`);
  db.exec(
    'CREATE TABLE journal (run_id TEXT, seq INTEGER, record TEXT); CREATE UNIQUE INDEX j ON journal (run_id, seq)',
  );
  const insert = db.prepare('INSERT INTO journal VALUES (?, ?, ?)');
  const commit = db.transaction((rows: Array<[string, number, string]>) => {
    for (const row of rows) insert.run(...row);
  });
  const runId = 'run_00000000-0000-0000-0000-000000000000';
  const record = (type: string, extra: object) =>
    JSON.stringify({ v: JOURNAL_VERSION, at: Date.now(), type, ...extra });
  const times: number[] = [];
  let seq = 0;
  let pending: Array<[string, number, string]> = [];
  for (let step = 1; step <= steps; step++) {
    const start = performance.now();
    pending.push([
      runId,
      ++seq,
      record('model-step', {
        step,
        text: '',
        toolCalls: [{ callId: `c${step}.0`, name: 'update', arguments: { key: `k${step}` } }],
      }),
    ]);
    pending.push([
      runId,
      ++seq,
      record('call-started', {
        callId: `c${step}.0`,
        name: 'update',
        arguments: { key: `k${step}` },
        idempotencyKey: `${runId}:c${step}.0`,
        repeatable: false,
        attempt: 1,
      }),
    ]);
    commit(pending);
    pending = [];
    pending.push([
      runId,
      ++seq,
      record('call-answered', {
        callId: `c${step}.0`,
        answer: { type: 'ok', value: { key: `k${step}`, updated: true }, measures: {}, labels: [] },
        attempts: 1,
      }),
    ]);
    if (durableAnswer) {
      commit(pending);
      pending = [];
    }
    times.push((performance.now() - start) * 1000);
  }
  commit(pending);
  db.close();
  return times;
}

/** Per-step latency inside one long run: the time between consecutive model steps. */
async function stepTimes(store: Store, toolName: string, steps: number, durableAnswers = true): Promise<number[]> {
  const marks: number[] = [];
  const model = callingModel(toolName, steps, () => marks.push(performance.now()));
  const wardrik = await runtime(
    store,
    [{ name: 'bench', instructions: '', model, tools: [readOnlyTool, plainTool], maxSteps: steps + 1 }],
    durableAnswers,
  );
  await completedRun(wardrik);
  await wardrik.close();
  return marks.slice(1).map((mark, index) => (mark - (marks[index] as number)) * 1000);
}

async function journaledCallLatency(): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (const sync of ['full', 'normal'] as const) {
    for (const durableAnswers of [true, false]) {
      const steps = sync === 'full' ? 300 : 2000;
      rawFloor(sync, 50, durableAnswers);
      const floor = rawFloor(sync, steps, durableAnswers);
      const wardrik = await stepTimes(sqliteStore(tempDb(), { synchronous: sync }), 'update', steps, durableAnswers);
      rows.push({
        synchronous: sync.toUpperCase(),
        durableAnswers: String(durableAnswers),
        'floor p50 (raw better-sqlite3)': us(median(floor)),
        'floor p99': us(percentile(floor, 99)),
        'wardrik p50': us(median(wardrik)),
        'wardrik p99': us(percentile(wardrik, 99)),
        'p50 ratio (target ≤ 1.5×)': `${(median(wardrik) / median(floor)).toFixed(2)}×`,
      });
    }
  }
  table(
    'One journaled call of a non-repeatable tool per step (intent on disk before it runs; with durableAnswers, its answer too before the model sees it)',
    rows,
  );
}

async function perStep(): Promise<void> {
  const rows: Record<string, string>[] = [];
  const runs = 100;
  for (const [label, toolName, target, durableAnswers] of [
    ['read-only tool', 'lookup', 150, true],
    ['unannotated tool', 'update', 500, true],
    ['unannotated tool, durableAnswers: false', 'update', 500, false],
  ] as const) {
    for (const [storeLabel, makeStore] of [
      ['SQLite FULL (default)', () => sqliteStore(tempDb())],
      ['in-memory (no disk)', () => memoryStore()],
    ] as const) {
      const agent = {
        name: 'bench',
        instructions: '',
        model: callingModel(toolName, 10),
        tools: [readOnlyTool, plainTool],
      };
      const wardrik = await runtime(makeStore(), [agent], durableAnswers);
      for (let warm = 0; warm < 10; warm++) await completedRun(wardrik);
      const times: number[] = [];
      for (let index = 0; index < runs; index++) {
        const start = performance.now();
        await completedRun(wardrik);
        times.push(((performance.now() - start) * 1000) / 10);
      }
      await wardrik.close();
      rows.push({
        tool: label,
        store: storeLabel,
        'per step p50': us(median(times)),
        'per step p99': us(percentile(times, 99)),
        target: storeLabel.startsWith('SQLite') ? `≤ ${target} µs` : '(floor: same loop, no journal on disk)',
      });
    }
  }
  const floorFull = rawFloor('full', 200, false);
  rows.push({
    tool: 'raw: one step, one commit',
    store: 'better-sqlite3 FULL',
    'per step p50': us(median(floorFull)),
    'per step p99': us(percentile(floorFull, 99)),
    target: 'floor',
  });
  table('Per step of a sequential run of 10 calls (run time ÷ 10, start and end barriers included)', rows);
}

/**
 * What a run costs beyond its steps (issue 18, item 2): on the in-memory store, the cost per step of
 * a run of one call (two model steps: start, call, end) next to a step in the middle of a long run
 * (the time between consecutive model steps, steps 50–150 of a 200-call run).
 */
export async function fixedCost(): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (let round = 0; round < 3; round++) {
    const short = await runtime(memoryStore(), [
      { name: 'bench', instructions: '', model: callingModel('lookup', 1), tools: [readOnlyTool] },
    ]);
    for (let warm = 0; warm < 2_000; warm++) await completedRun(short);
    const runs = 5_000;
    const start = performance.now();
    for (let index = 0; index < runs; index++) await completedRun(short);
    const perStep = ((performance.now() - start) * 1000) / runs / 2;
    await short.close();
    const middle: number[] = [];
    for (let long = 0; long < 5; long++) middle.push(...(await stepTimes(memoryStore(), 'lookup', 200)).slice(50, 150));
    const mid = median(middle);
    rows.push({
      round: String(round + 1),
      '1-call run, per step': us(perStep),
      'mid-run step (p50)': us(mid),
      'ratio (target ≤ 2×)': `${(perStep / mid).toFixed(2)}×`,
    });
  }
  table('Fixed cost of a run, in-memory store: a 1-call run per step, next to a step in the middle of a run', rows);
}

async function throughput(): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (const sync of ['full', 'normal'] as const) {
    for (const [label, toolName] of [
      ['read-only', 'lookup'],
      ['unannotated', 'update'],
    ] as const) {
      const store = sqliteStore(tempDb(), { synchronous: sync });
      const agent = {
        name: 'bench',
        instructions: '',
        model: callingModel(toolName, 100),
        tools: [readOnlyTool, plainTool],
        maxSteps: 200,
      };
      const wardrik = await runtime(store, [agent]);
      const start = performance.now();
      await Promise.all(Array.from({ length: 64 }, () => completedRun(wardrik)));
      const seconds = (performance.now() - start) / 1000;
      const stats = store.stats();
      await wardrik.close();
      rows.push({
        synchronous: sync.toUpperCase(),
        tool: label,
        'calls/s': Math.round(6400 / seconds).toLocaleString('en'),
        commits: String(stats.flushes),
        target: sync === 'full' ? '≥ 15,000 calls/s' : '',
      });
    }
  }
  table('Throughput: 64 concurrent runs × 100 calls, zero-latency scripted model', rows);
}

async function stepCostByLength(): Promise<void> {
  const times = await stepTimes(sqliteStore(tempDb()), 'lookup', 1100);
  const early = median(times.slice(5, 25));
  const late = median(times.slice(990, 1010));
  table('Step cost against run length (one run of 1,100 read-only calls)', [
    {
      'steps 6–25 (p50)': us(early),
      'steps 991–1010 (p50)': us(late),
      'ratio (target ≤ 1.2)': `${(late / early).toFixed(2)}×`,
    },
  ]);
}

async function parkedMemory(): Promise<void> {
  const total = Number(process.env.PARKED_RUNS ?? 100_000);
  const waits = tool({ name: 'approve', description: 'Needs a person.', run: (): Answer => park('needs a person') });
  const model = new ScriptedModel([{ toolCalls: [{ name: 'approve', arguments: {} }] }]);
  const store = sqliteStore(tempDb());
  const wardrik = await runtime(store, [{ name: 'parker', instructions: '', model, tools: [waits] }]);
  // Warm up as the measured runs will go (500 at a time), so that the store's commit thread, a
  // fixed cost of a few tens of MB, is running before the measure starts.
  await Promise.all(Array.from({ length: 500 }, () => wardrik.run('parker', 'warm up')));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const start = performance.now();
  const batch = 500;
  for (let done = 0; done < total; done += batch) {
    await Promise.all(Array.from({ length: batch }, () => wardrik.run('parker', 'park me')));
  }
  const seconds = (performance.now() - start) / 1000;
  gc?.();
  const after = process.memoryUsage();
  const parked = await store.listParks({ status: 'open', limit: 1 });
  await wardrik.close();
  table(
    `Memory with ${total.toLocaleString('en')} parked runs${gc ? '' : ' (run node with --expose-gc for exact figures)'}`,
    [
      {
        'RSS growth': `${((after.rss - before.rss) / 2 ** 20).toFixed(1)} MB`,
        'heap growth': `${((after.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1)} MB`,
        'runs in memory': String(wardrik.activeRuns),
        'parked runs/s': Math.round(total / seconds).toLocaleString('en'),
        target: 'RSS ≤ 50 MB',
        check: parked.length ? 'parks on disk' : 'NO PARKS FOUND',
      },
    ],
  );
}

async function recovery(): Promise<void> {
  const total = Number(process.env.RECOVERED_RUNS ?? 10_000);
  const path = tempDb();
  // Interrupted runs as a crash leaves them: started, a model step, a call's intent, no answer.
  const store = sqliteStore(path);
  await store.migrate();
  const at = Date.now();
  for (let index = 0; index < total; index++) {
    const runId = `run_${String(index).padStart(8, '0')}`;
    const call = { callId: 'c1.0', name: 'lookup', arguments: { key: 'k1' } };
    store.write(
      {
        runId,
        records: [
          {
            runId,
            seq: 1,
            record: {
              v: 1,
              at,
              type: 'run-started',
              agent: 'bench',
              principal: 'p',
              input: 'go',
              budget: {},
              maxSteps: 10,
            },
          },
          {
            runId,
            seq: 2,
            record: {
              v: 1,
              at,
              type: 'model-step',
              step: 1,
              model: 'scripted',
              text: '',
              toolCalls: [call],
              usage: { inputTokens: 1, outputTokens: 1 },
              measures: {},
            },
          },
          {
            runId,
            seq: 3,
            record: {
              v: 1,
              at,
              type: 'call-started',
              ...call,
              idempotencyKey: `${runId}:c1.0`,
              repeatable: true,
              attempt: 1,
            },
          },
        ],
        run: {
          id: runId,
          agent: 'bench',
          principal: 'p',
          status: 'running',
          createdAt: at,
          updatedAt: at,
          measures: {},
          labels: [],
        },
      },
      { durable: false },
    );
  }
  await store.close();
  const model = callingModel('lookup', 1);
  const start = performance.now();
  const recovering = sqliteStore(path);
  const wardrik = await runtime(recovering, [{ name: 'bench', instructions: '', model, tools: [readOnlyTool] }]);
  while (wardrik.activeRuns > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = (performance.now() - start) / 1000;
  const completed = (await wardrik.listRuns({ status: 'completed' })).length;
  await wardrik.close();
  table(`Recovery: re-driving ${total.toLocaleString('en')} interrupted runs to completion`, [
    {
      seconds: seconds.toFixed(2),
      'runs/s': Math.round(total / seconds).toLocaleString('en'),
      completed: `${completed} of ${total}`,
      target: '≤ 5 s',
    },
  ]);
}

/**
 * Answering every park of one step (issue 11, item 7: each answer used to rebuild the run from its
 * journal, so 1,000 answers took ~14 s). Next to its floor: raw better-sqlite3 making the same
 * number of durable single-answer commits (mark the park answered, append one record).
 */
export async function answeringParks(): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (const count of [200, 1_000]) {
    const held = tool({
      name: 'held',
      description: 'Waits for a person.',
      schema: { n: { type: 'integer', required: true } },
      run: ({ n }, context): Answer | { n: unknown } => (context.approval ? { n } : park('needs a person')),
    });
    const calls = Array.from({ length: count }, (_, n) => ({ name: 'held', arguments: { n } }));
    const model = new ScriptedModel([{ toolCalls: calls }, { text: 'done' }]);
    const wardrik = await runtime(sqliteStore(tempDb()), [{ name: 'many', instructions: '', model, tools: [held] }]);
    const { runId, parks } = await wardrik.run('many', 'go');
    const start = performance.now();
    for (const each of parks) await wardrik.answerPark(each.id, { type: 'retry' }, { callHash: each.callHash });
    const seconds = (performance.now() - start) / 1000;
    const status = (await wardrik.wait(runId)).status;
    await wardrik.close();
    const floor = rawAnswerFloor(count);
    rows.push({
      parks: count.toLocaleString('en'),
      'answering all': `${seconds.toFixed(2)} s`,
      'per answer': us((seconds * 1e6) / count),
      'floor (raw commits)': `${floor.toFixed(2)} s`,
      ratio: `${(seconds / floor).toFixed(2)}×`,
      target: count === 1_000 ? '≤ 1 s' : '',
      run: status,
    });
  }
  table('Answering every park of one step, one answer at a time (SQLite FULL)', rows);
}

/** Seconds for `count` durable commits of one answer each: the park row updated, one record appended. */
function rawAnswerFloor(count: number): number {
  const db = new Database(tempDb());
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    `CREATE TABLE journal (run_id TEXT, seq INTEGER, record TEXT); CREATE UNIQUE INDEX j ON journal (run_id, seq);
     CREATE TABLE parks (id TEXT PRIMARY KEY, status TEXT, decision TEXT)`,
  );
  const insertPark = db.prepare(`INSERT INTO parks VALUES (?, 'open', NULL)`);
  for (let index = 0; index < count; index++) insertPark.run(`park_${index}`);
  const answer = db.prepare(`UPDATE parks SET status = 'answered', decision = ? WHERE id = ? AND status = 'open'`);
  const append = db.prepare('INSERT INTO journal VALUES (?, ?, ?)');
  const commit = db.transaction((index: number) => {
    answer.run('{"type":"retry"}', `park_${index}`);
    append.run('run_1', index + 1, JSON.stringify({ v: 1, type: 'park-answered', parkId: `park_${index}` }));
  });
  const start = performance.now();
  for (let index = 0; index < count; index++) commit.immediate(index);
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return seconds;
}

export async function main(): Promise<void> {
  console.log(`\n## Durable runs (Node ${process.version}, ${(await import('node:os')).cpus().length} cores)`);
  await journaledCallLatency();
  await perStep();
  await fixedCost();
  await throughput();
  await stepCostByLength();
  await recovery();
  await answeringParks();
  await parkedMemory();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
