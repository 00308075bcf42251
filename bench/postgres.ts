// Benchmarks of the PostgreSQL store and of nodes sharing it (issue 13). Run with
//   npm run bench -- postgres
//   node --expose-gc --conditions=@wardrik/source --import tsx bench/run.ts postgres
// PostgreSQL at WARDRIK_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), each
// benchmark in a fresh schema, dropped afterwards. Every figure is printed next to a floor or peer
// measured in the same run, Wardrik and the floor alternating round by round (the machine is shared
// and noisy): the tables give medians over rounds.
//
// Cases (PG_CASES=latency,throughput,failover,upkeep picks some) and their sizes:
// - latency: one long run whose every step calls an unannotated tool, next to raw `pg` inserts of the
//   same journal records with the same commits. PG_ROUNDS (9), PG_LATENCY_STEPS (300 with
//   synchronous_commit on, 1000 off).
// - throughput: PG_RUNS (64) concurrent runs × PG_CALLS (100) calls on 1 node and on PG_NODES (3) node
//   processes, next to pgbench inserting rows of the same sizes. PG_ROUNDS (3 here unless set),
//   PG_PGBENCH_SECONDS (3), PG_PGBENCH_CLIENTS (32).
// - failover: a node process driving PG_FAILOVER_RUNS (64) runs parked in a slow tool is SIGKILLed;
//   the time until another node's first journal record of each run. PG_FAILOVER_LEASES ("5000,1000"),
//   PG_FAILOVER_ROUNDS (3).
// - upkeep: statements per second of a node owning PG_UPKEEP_RUNS (10000) runs, over
//   PG_UPKEEP_SECONDS (10), with maxRuns PG_UPKEEP_MAX_RUNS (twice the runs: it keeps claiming).
import { cpus } from 'node:os';
import type pg from 'pg';
import { createWardrik, defineAgent, postgresStore } from 'wardrik';
import { callingModel, updateTool } from './postgres-agents.js';
import { NodeProcess, type NodeStats, statementCount } from './postgres-cluster.js';
import {
  BackendCpu,
  counterDelta,
  DATABASE_URL,
  dropSchema,
  machineCpuSeconds,
  pgbench,
  type ServerCounters,
  schemaName,
  serverCounters,
  withClient,
} from './postgres-db.js';
import { countStatements, statementDelta, statementSnapshot } from './postgres-statements.js';
import { median, percentile, table, us } from './stats.js';

const env = process.env;
const number = (name: string, fallback: number): number => (env[name] ? Number(env[name]) : fallback);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ratio = (value: number) => `${value.toFixed(2)}×`;
const fixed = (value: number, digits = 0) =>
  value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = (value: number) => `${Math.round(value * 100)}%`;

/** The time between consecutive marks, in µs. */
function intervals(marks: readonly number[]): number[] {
  return marks.slice(1).map((mark, index) => (mark - (marks[index] as number)) * 1000);
}

// ---------------------------------------------------------------------------------------------
// 1. Journaled call cost

/** The steps measured are those after the first few (the pool's connections open there). */
const WARM_STEPS = 5;

/** One side's round: the time between steps (µs), and per step the time spent in statements and the CPU this process used (µs). */
interface SideRound {
  readonly times: number[];
  readonly statementUs: number;
  readonly cpuUs: number;
}

/** Runs `steps` steps of `work`, counting this process's CPU and the time it spent in statements. */
async function side(steps: number, work: () => Promise<number[]>): Promise<SideRound> {
  const before = statementSnapshot();
  const cpu = process.cpuUsage();
  const times = await work();
  const used = process.cpuUsage(cpu);
  const sent = statementDelta(before, statementSnapshot());
  return { times, statementUs: (sent.ms * 1000) / steps, cpuUs: (used.user + used.system) / steps };
}

/** One run of `steps` unannotated calls on a new node; the time between its model steps. */
async function wardrikStepTimes(options: {
  schema: string;
  synchronousCommit: boolean;
  durableAnswers: boolean;
  steps: number;
}): Promise<{ round: SideRound; runId: string }> {
  const marks: number[] = [];
  const model = callingModel('update', options.steps, () => marks.push(performance.now()));
  const wardrik = await createWardrik({
    store: postgresStore(DATABASE_URL, { schema: options.schema, synchronousCommit: options.synchronousCommit }),
    agents: [
      defineAgent({ name: 'latency', instructions: '', model, tools: [updateTool], maxSteps: options.steps + 1 }),
    ],
    durableAnswers: options.durableAnswers,
  });
  let runId = '';
  const round = await side(options.steps, async () => {
    runId = (await wardrik.run('latency', 'go')).runId;
    return intervals(marks).slice(WARM_STEPS);
  });
  await wardrik.close();
  return { round, runId };
}

/** The journal records of one step of a Wardrik run (JSON text as stored), to replay raw. */
interface StepRecords {
  readonly model: string;
  readonly started: string;
  readonly answered: string;
}

async function stepRecords(client: pg.Client, runId: string): Promise<StepRecords[]> {
  const { rows } = await client.query<{ record: string }>('SELECT record FROM journal WHERE run_id = $1 ORDER BY seq', [
    runId,
  ]);
  const byType = (type: string) =>
    rows.map((row) => row.record).filter((record) => (JSON.parse(record) as { type: string }).type === type);
  const [models, started, answered] = [byType('model-step'), byType('call-started'), byType('call-answered')];
  return started.map((record, index) => ({
    model: models[index] as string,
    started: record,
    answered: answered[index] as string,
  }));
}

/**
 * The floor: raw `pg` on one connection inserting the same records into the same journal table
 * with the same commits — the model step and the intent in one statement (its own transaction)
 * before the tool would run, then the answer in another (or, without durable answers, with the next
 * step's). Prepared statements, as the store uses.
 */
async function floorStepTimes(
  client: pg.Client,
  templates: readonly StepRecords[],
  steps: number,
  durableAnswers: boolean,
  runId: string,
): Promise<number[]> {
  let seq = 0;
  let pending: string[] = [];
  const flush = async () => {
    const seqs = pending.map(() => ++seq);
    await client.query({
      name: 'floor_insert',
      text: 'INSERT INTO journal (run_id, seq, record) SELECT $1, s, r FROM unnest($2::bigint[], $3::text[]) AS t (s, r)',
      values: [runId, seqs, pending],
    });
    pending = [];
  };
  const marks: number[] = [];
  for (let step = 0; step < steps; step++) {
    marks.push(performance.now());
    const records = templates[step % templates.length] as StepRecords;
    pending.push(records.model, records.started);
    await flush();
    pending.push(records.answered);
    if (durableAnswers) await flush();
  }
  marks.push(performance.now());
  if (pending.length > 0) await flush();
  return intervals(marks).slice(WARM_STEPS);
}

async function journaledCallLatency(): Promise<void> {
  countStatements();
  const rounds = number('PG_ROUNDS', 9);
  const rows: Record<string, string>[] = [];
  for (const synchronousCommit of [true, false]) {
    for (const durableAnswers of [true, false]) {
      const steps = number('PG_LATENCY_STEPS', synchronousCommit ? 300 : 1000) + WARM_STEPS;
      const schema = schemaName();
      try {
        const warm = await wardrikStepTimes({ schema, synchronousCommit, durableAnswers, steps: 50 });
        const perRound = await withClient(schema, async (client) => {
          await client.query(`SET synchronous_commit TO ${synchronousCommit ? 'on' : 'off'}`);
          const templates = await stepRecords(client, warm.runId);
          await floorStepTimes(client, templates, 50, durableAnswers, 'floor_warm');
          const results: { floor: SideRound; wardrik: SideRound }[] = [];
          for (let round = 0; round < rounds; round++) {
            const floorFirst = round % 2 === 0;
            let floor: SideRound | undefined;
            const measureFloor = async () => {
              floor = await side(steps, () =>
                floorStepTimes(client, templates, steps, durableAnswers, `floor_${round}`),
              );
            };
            if (floorFirst) await measureFloor();
            const wardrik = await wardrikStepTimes({ schema, synchronousCommit, durableAnswers, steps });
            if (!floorFirst) await measureFloor();
            results.push({ floor: floor as SideRound, wardrik: wardrik.round });
          }
          return results;
        });
        const p = (which: 'floor' | 'wardrik', q: number) =>
          median(perRound.map((round) => percentile(round[which].times, q)));
        const per = (which: 'floor' | 'wardrik', of: 'statementUs' | 'cpuUs') =>
          us(median(perRound.map((round) => round[which][of])));
        const p50Ratios = perRound.map((round) => median(round.wardrik.times) / median(round.floor.times));
        const p99Ratios = perRound.map(
          (round) => percentile(round.wardrik.times, 99) / percentile(round.floor.times, 99),
        );
        rows.push({
          synchronous_commit: synchronousCommit ? 'on (default)' : 'off',
          durableAnswers: durableAnswers ? 'true (default)' : 'false',
          'floor p50 (raw pg)': us(p('floor', 50)),
          'floor p99': us(p('floor', 99)),
          'wardrik p50': us(p('wardrik', 50)),
          'wardrik p99': us(p('wardrik', 99)),
          'p50 ratio (target ≤ 1.5×)': ratio(median(p50Ratios)),
          'p50 ratio, rounds': `${ratio(Math.min(...p50Ratios))}–${ratio(Math.max(...p50Ratios))}`,
          'p99 ratio': ratio(median(p99Ratios)),
          'in statements / step: floor, wardrik': `${per('floor', 'statementUs')}, ${per('wardrik', 'statementUs')}`,
          'Node CPU / step: floor, wardrik': `${per('floor', 'cpuUs')}, ${per('wardrik', 'cpuUs')}`,
        });
      } finally {
        await dropSchema(schema);
      }
    }
  }
  table(
    `PostgreSQL: one journaled call of a non-repeatable tool per step (medians of ${rounds} alternating rounds; ` +
      'the intent committed before the tool runs; with durableAnswers, its answer too before the model sees it; ' +
      'per step: time from query() to its result, and CPU of this process, all threads)',
    rows,
  );
}

// ---------------------------------------------------------------------------------------------
// 2. Throughput

interface Measured {
  readonly calls: number;
  readonly seconds: number;
  /** Write transactions the nodes' stores committed (stats().flushes). */
  readonly flushes: number;
  /** Statements the nodes sent. */
  readonly statements: number;
  readonly server: ServerCounters;
  readonly nodeCpu: number;
  /** CPU seconds of the backends serving this benchmark's connections. */
  readonly postgresCpu: number;
  /** CPU seconds of pgbench's own process. */
  readonly clientCpu: number;
  readonly machineBusy: number;
}

/** Runs `work` with every counter read around it. */
async function measured(
  client: pg.Client,
  nodes: readonly NodeProcess[],
  work: () => Promise<{ calls: number; seconds?: number; clientCpu?: number }>,
): Promise<Measured> {
  const server0 = await serverCounters(client, 1100);
  const stats0 = await Promise.all(nodes.map((node) => node.stats()));
  const backends = new BackendCpu(client);
  await backends.start();
  const machine0 = machineCpuSeconds();
  const began = performance.now();
  const done = await work();
  const seconds = done.seconds ?? (performance.now() - began) / 1000;
  const postgresCpu = await backends.stop();
  const machine1 = machineCpuSeconds();
  const stats1 = await Promise.all(nodes.map((node) => node.stats()));
  const server1 = await serverCounters(client, 1100);
  const sum = (stats: NodeStats[], of: (each: NodeStats) => number) =>
    stats.reduce((total, each) => total + of(each), 0);
  return {
    calls: done.calls,
    seconds,
    flushes: sum(stats1, (each) => each.store.flushes) - sum(stats0, (each) => each.store.flushes),
    statements: sum(stats1, statementCount) - sum(stats0, statementCount),
    server: counterDelta(server0, server1),
    nodeCpu: sum(stats1, (each) => each.cpuSeconds) - sum(stats0, (each) => each.cpuSeconds),
    postgresCpu,
    clientCpu: done.clientCpu ?? 0,
    machineBusy: (machine1.busy - machine0.busy) / (machine1.total - machine0.total),
  };
}

/** Runs `runs` runs of `agent`, shared out among `nodes`, each node starting its share at once. */
async function runOn(nodes: readonly NodeProcess[], agent: string, runs: number, calls: number) {
  const began = performance.now();
  const answers = await Promise.all(
    nodes.map((node, index) => {
      const share = Math.floor(runs / nodes.length) + (index < runs % nodes.length ? 1 : 0);
      return node.request({ run: { agent, runs: share } });
    }),
  );
  const completed = answers.reduce((sum, answer) => sum + Number(answer.completed), 0);
  if (completed !== runs) throw new Error(`${completed} of ${runs} runs completed`);
  return { calls: runs * calls, seconds: (performance.now() - began) / 1000 };
}

/** One call's journal writes as pgbench transactions: model step + intent, then the answer (rows of the sizes given). */
const PGBENCH_SCRIPT = `\\set r random(1, 1000000000000)
INSERT INTO bench_journal (run_id, seq, record) VALUES ('pgbench_' || :client_id || '_' || :r, 1, repeat('x', :model)), ('pgbench_' || :client_id || '_' || :r, 2, repeat('x', :started));
INSERT INTO bench_journal (run_id, seq, record) VALUES ('pgbench_' || :client_id || '_' || :r, 3, repeat('x', :answered));
`;

async function throughput(): Promise<void> {
  const runs = number('PG_RUNS', 64);
  const calls = number('PG_CALLS', 100);
  const nodeCount = number('PG_NODES', 3);
  const rounds = number('PG_ROUNDS', 3);
  const pgbenchSeconds = number('PG_PGBENCH_SECONDS', 3);
  const pgbenchClients = number('PG_PGBENCH_CLIENTS', 32);
  const schema = schemaName();
  const nodes = Array.from(
    { length: nodeCount },
    (_, index) =>
      new NodeProcess({
        databaseUrl: DATABASE_URL,
        schema,
        name: `node-${index + 1}`,
        env: { PGB_CALLS: String(calls) },
      }),
  );
  try {
    await Promise.all(nodes.map((node) => node.ready));
    // Warm-up: every node runs both agents (JIT, pools, prepared statements).
    for (const agent of ['lookup', 'update']) await runOn(nodes, agent, runs, calls);
    await withClient(schema, async (client) => {
      const { rows: sizes } = await client.query<{ type: string; size: string }>(
        `SELECT record::json->>'type' AS type, round(avg(octet_length(record))) AS size FROM journal
         WHERE run_id IN (SELECT id FROM runs WHERE agent = 'update') GROUP BY 1`,
      );
      const size = (type: string) => Number(sizes.find((row) => row.type === type)?.size ?? 200);
      const variables = { model: size('model-step'), started: size('call-started'), answered: size('call-answered') };
      await client.query('CREATE TABLE bench_journal (LIKE journal INCLUDING ALL)');
      const cases: { label: string; work: () => Promise<{ calls: number; seconds?: number; clientCpu?: number }> }[] =
        [];
      for (const [tool, agent] of [
        ['read-only', 'lookup'],
        ['unannotated', 'update'],
      ] as const) {
        cases.push({ label: `1 node, ${tool}`, work: () => runOn(nodes.slice(0, 1), agent, runs, calls) });
        cases.push({ label: `${nodeCount} nodes, ${tool}`, work: () => runOn(nodes, agent, runs, calls) });
      }
      for (const synchronousCommit of [true, false]) {
        cases.push({
          label: `pgbench, synchronous_commit ${synchronousCommit ? 'on' : 'off'}`,
          work: async () => {
            const result = await pgbench({
              schema,
              script: PGBENCH_SCRIPT,
              clients: pgbenchClients,
              seconds: pgbenchSeconds,
              synchronousCommit,
              variables,
            });
            return {
              calls: result.executions,
              seconds: result.executions / result.perSecond,
              clientCpu: result.clientCpu,
            };
          },
        });
      }
      const results = new Map<string, Measured[]>(cases.map((each) => [each.label, []]));
      for (let round = 0; round < rounds; round++) {
        // Each round starts at a different case, so that none always runs first or last.
        for (let index = 0; index < cases.length; index++) {
          const each = cases[(index + round) % cases.length] as (typeof cases)[number];
          results.get(each.label)?.push(await measured(client, nodes, each.work));
        }
      }
      const rate = (label: string) => median((results.get(label) ?? []).map((each) => each.calls / each.seconds));
      const rows: Record<string, string>[] = [];
      for (const [label, measurements] of results) {
        const m = (of: (each: Measured) => number) => median(measurements.map(of));
        const rates = measurements.map((each) => each.calls / each.seconds);
        const isPgbench = label.startsWith('pgbench');
        const peer = label.includes('unannotated')
          ? 'pgbench, synchronous_commit on'
          : label.includes('read-only')
            ? 'pgbench, synchronous_commit off'
            : undefined;
        rows.push({
          case: label,
          'calls/s': fixed(median(rates)),
          'calls/s, rounds': `${fixed(Math.min(...rates))}–${fixed(Math.max(...rates))}`,
          '÷ pgbench': peer ? `${ratio(median(rates) / rate(peer))} (${peer.endsWith('on') ? 'on' : 'off'})` : '',
          'write commits': isPgbench ? fixed(m((each) => each.calls * 2)) : fixed(m((each) => each.flushes)),
          'db commits (all sessions)': fixed(m((each) => each.server.commits)),
          'WAL syncs (cluster)': fixed(m((each) => each.server.walSyncs)),
          'WAL MB': fixed(
            m((each) => each.server.walBytes / 2 ** 20),
            1,
          ),
          statements: isPgbench ? fixed(m((each) => each.calls * 2)) : fixed(m((each) => each.statements)),
          'Node CPU': isPgbench
            ? `${percent(m((each) => each.clientCpu / each.seconds))} (pgbench)`
            : percent(m((each) => each.nodeCpu / each.seconds)),
          'PostgreSQL CPU (its backends)': percent(m((each) => each.postgresCpu / each.seconds)),
          'machine busy (all processes)': percent(m((each) => each.machineBusy)),
        });
      }
      table(
        `PostgreSQL throughput: ${runs} concurrent runs × ${calls} calls, zero-latency scripted model, synchronous_commit on ` +
          `(medians of ${rounds} rounds, cases alternating; ${nodeCount} nodes: ${nodeCount} processes on one schema, each starting its share; ` +
          `pgbench: ${pgbenchClients} clients × ${pgbenchSeconds} s, one "call" = 2 transactions inserting rows of ` +
          `${variables.model}+${variables.started} and ${variables.answered} bytes; CPU in % of one core: the nodes' processes (or pgbench's), the PostgreSQL backends serving them, and the whole machine, other sessions included)`,
        rows,
      );
    });
  } finally {
    await Promise.all(nodes.map((node) => node.kill()));
    await dropSchema(schema);
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Failover

/** How many of `runIds` sit in the slow tool on `node`: it holds them and their last record is a call's intent. */
async function parkedInTool(client: pg.Client, node: string): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    `SELECT count(*) FROM runs r JOIN leases l ON l.run_id = r.id AND l.node = $1 AND l.expires_at > now()
     JOIN LATERAL (SELECT record FROM journal j WHERE j.run_id = r.id ORDER BY seq DESC LIMIT 1) last ON true
     WHERE last.record::json->>'type' = 'call-started'`,
    [node],
  );
  return Number(rows[0]?.count);
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function failover(): Promise<void> {
  const runs = number('PG_FAILOVER_RUNS', 64);
  const rounds = number('PG_FAILOVER_ROUNDS', 3);
  const leases = (env.PG_FAILOVER_LEASES ?? '5000,1000').split(',').map(Number);
  const rows: Record<string, string>[] = [];
  for (const leaseMs of leases) {
    const schema = schemaName();
    const nodeEnv = { PGB_LEASE_MS: String(leaseMs) };
    const spawned: NodeProcess[] = [];
    const spawn = (index: number) => {
      const node = new NodeProcess({ databaseUrl: DATABASE_URL, schema, name: `failover-${index}`, env: nodeEnv });
      spawned.push(node);
      return node;
    };
    try {
      const delays: number[] = [];
      const leftAtKill: number[] = [];
      const afterExpiry: number[] = [];
      const roundMax: number[] = [];
      await withClient(schema, async (client) => {
        let holder = spawn(1);
        await holder.ready;
        await holder.request({ start: { agent: 'wait', runs, concurrency: runs } });
        for (let round = 0; round < rounds; round++) {
          const standby = spawn(round + 2);
          await standby.ready;
          const name = holder.name;
          await until(`${runs} runs in the slow tool on ${name}`, 60_000, async () => {
            return (await parkedInTool(client, name)) === runs;
          });
          // Kill at a random point of the renewal cycle (renewals come every third of the lease).
          await sleep(Math.random() * (leaseMs / 3));
          const { rows: before } = await client.query<{ run_id: string; seq: string; left_ms: number }>(
            `SELECT l.run_id, (SELECT max(seq) FROM journal j WHERE j.run_id = l.run_id) AS seq,
                    extract(epoch FROM l.expires_at - now()) * 1000 AS left_ms
             FROM leases l WHERE l.node = $1`,
            [name],
          );
          const killedAt = Date.now();
          await holder.kill('SIGKILL');
          const runIds = before.map((row) => row.run_id);
          const seqs = before.map((row) => Number(row.seq));
          let firsts: { run_id: string; at: string }[] = [];
          await until(`every run to advance on another node after ${name} was killed`, leaseMs + 60_000, async () => {
            firsts = (
              await client.query<{ run_id: string; at: string }>(
                `SELECT t.run_id, min((j.record::json->>'at')::bigint) AS at
                 FROM unnest($1::text[], $2::bigint[]) AS t (run_id, seq)
                 JOIN journal j ON j.run_id = t.run_id AND j.seq > t.seq GROUP BY t.run_id`,
                [runIds, seqs],
              )
            ).rows;
            return firsts.length === runIds.length;
          });
          const left = new Map(before.map((row) => [row.run_id, Number(row.left_ms)]));
          const these = firsts.map((row) => Number(row.at) - killedAt);
          delays.push(...these);
          roundMax.push(Math.max(...these));
          for (const row of firsts) {
            const leftMs = left.get(row.run_id) ?? 0;
            leftAtKill.push(leftMs);
            afterExpiry.push(Number(row.at) - killedAt - leftMs);
          }
          holder = standby;
        }
      });
      const target = leaseMs + 1000;
      rows.push({
        leaseMs: `${fixed(leaseMs)}${leaseMs === 5000 ? ' (default)' : ''}`,
        'claimIntervalMs (default)': '500',
        'runs × kills': `${runs} × ${rounds}`,
        'lease left at kill p50 (floor)': `${fixed(median(leftAtKill))} ms`,
        'kill → advancing p50': `${fixed(median(delays))} ms`,
        'p99 / max': `${fixed(percentile(delays, 99))} / ${fixed(Math.max(...delays))} ms`,
        'after expiry p50 / max': `${fixed(median(afterExpiry))} / ${fixed(Math.max(...afterExpiry))} ms`,
        'max ÷ target': ratio(Math.max(...delays) / target),
        target: `≤ ${fixed(target)} ms`,
        'worst kill per round': roundMax.map((each) => fixed(each)).join(', '),
      });
    } finally {
      await Promise.all(spawned.map((node) => node.kill()));
      await dropSchema(schema);
    }
  }
  table(
    'Failover: from SIGKILL of the node driving the runs (parked in a slow read-only tool) to another node\'s first journal record of each run (its "at")',
    rows,
  );
}

// ---------------------------------------------------------------------------------------------
// 4. Lease upkeep

async function leaseUpkeep(): Promise<void> {
  const runs = number('PG_UPKEEP_RUNS', 10_000);
  const seconds = number('PG_UPKEEP_SECONDS', 10);
  const leaseMs = 5000; // the default
  const schema = schemaName();
  // maxRuns above what it holds: the node keeps looking for runs to take over, as a node with room
  // does (at its cap it skips the claim statement).
  const maxRuns = number('PG_UPKEEP_MAX_RUNS', 2 * runs);
  const node = new NodeProcess({
    databaseUrl: DATABASE_URL,
    schema,
    name: 'upkeep',
    env: { PGB_MAX_RUNS: String(maxRuns) },
  });
  try {
    await node.ready;
    await withClient(schema, async (client) => {
      const began = performance.now();
      await node.request({ start: { agent: 'wait', runs, concurrency: 500 } });
      await until(
        `${runs} runs in the slow tool`,
        300_000,
        async () => (await parkedInTool(client, 'upkeep')) === runs,
      );
      const startSeconds = (performance.now() - began) / 1000;
      await sleep(leaseMs); // a few renewals and claim passes before measuring
      const server0 = await serverCounters(client, 1100);
      const stats0 = await node.stats();
      const backends = new BackendCpu(client);
      await backends.start();
      const time0 = performance.now();
      await sleep(seconds * 1000);
      const stats1 = await node.stats();
      const postgresCpu = await backends.stop();
      const window = (performance.now() - time0) / 1000;
      const server1 = await serverCounters(client, 1100);
      const serverSeconds = window + 1.1;
      const held = await parkedInTool(client, 'upkeep');
      const byName = Object.entries(stats1.statements)
        .map(([name, entry]) => {
          const was = stats0.statements[name] ?? { count: 0, ms: 0 };
          return { name, count: entry.count - was.count, ms: entry.ms - was.ms };
        })
        .filter((each) => each.count > 0)
        .sort((a, b) => b.count - a.count);
      const total = byName.reduce((sum, each) => sum + each.count, 0);
      const renewals = byName.find((each) => each.name === 'wardrik_renew_leases_v1') ?? { count: 0, ms: 0 };
      const server = counterDelta(server0, server1);
      const perRunPeer = runs / (leaseMs / 3 / 1000);
      table(
        `Lease upkeep: one node owning ${fixed(held)} runs parked in a slow tool (leaseMs 5,000, claimIntervalMs 500: defaults; maxRuns ${fixed(maxRuns)}), ${fixed(window, 1)} s`,
        [
          {
            'statements/s (this node)': fixed(total / window, 2),
            'renewals/s': fixed(renewals.count / window, 2),
            'renewal statement, mean': `${fixed(renewals.count ? renewals.ms / renewals.count : 0, 1)} ms`,
            'leases renewed/s': fixed((renewals.count * held) / window),
            'peer: one UPDATE per lease per heartbeat': `${fixed(perRunPeer)} statements/s`,
            'statements ÷ peer': `${((total / window / perRunPeer) * 100).toFixed(3)}%`,
            'Node CPU': percent((stats1.cpuSeconds - stats0.cpuSeconds) / window),
            'PostgreSQL CPU (its backends)': percent(postgresCpu / window),
            'db commits/s (all sessions)': fixed(server.commits / serverSeconds, 1),
            'WAL kB/s (cluster)': fixed(server.walBytes / 1024 / serverSeconds),
            'node RSS': `${fixed(stats1.rssMb)} MB`,
            'starting them': `${fixed(startSeconds, 1)} s`,
          },
        ],
      );
      table(
        'Lease upkeep: the statements of that window, by name',
        byName.map((each) => ({
          statement: each.name,
          count: each.count,
          'per second': fixed(each.count / window, 2),
          'mean ms': fixed(each.ms / each.count, 2),
        })),
      );
    });
  } finally {
    await node.kill();
    await dropSchema(schema);
  }
}

export async function main(): Promise<void> {
  const version = await withClient(undefined, async (client) => {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version;
  });
  console.log(
    `\n## PostgreSQL (Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, PostgreSQL ${version} at ${new URL(DATABASE_URL).host})`,
  );
  const selected = (env.PG_CASES ?? 'latency,throughput,failover,upkeep').split(',');
  if (selected.includes('latency')) await journaledCallLatency();
  if (selected.includes('throughput')) await throughput();
  if (selected.includes('failover')) await failover();
  if (selected.includes('upkeep')) await leaseUpkeep();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
