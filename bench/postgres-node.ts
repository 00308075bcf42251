// One Wardrik node of the PostgreSQL benchmarks (bench/postgres.ts), as a process of its own:
//   node --conditions=@wardrik/source --import tsx bench/postgres-node.ts <databaseUrl> <schema> <nodeName>
// Settings from the environment: PGB_LEASE_MS, PGB_CLAIM_INTERVAL_MS (the runtime's defaults when
// unset), PGB_SYNCHRONOUS_COMMIT (on|off), PGB_CALLS (calls per run of the lookup and update agents),
// PGB_POOL_MAX (the pool's size; pg's default 10), PGB_MAX_RUNS (the runtime's maxRuns).
//
// Every statement this process sends to PostgreSQL is counted, by prepared statement name (or its
// text's first words), with its time (postgres-statements.ts), from before the store opens. Prints
// `{"ready":true,"pid":…}` once the node has migrated and recovered, then obeys one JSON command per
// line on stdin, answering each with a line carrying the command's id:
// - `{"id":1,"run":{"agent":"update","runs":64}}`: runs that many runs at once, until they end;
// - `{"id":2,"start":{"agent":"wait","runs":10000,"concurrency":500}}`: starts them and answers
//   once every one is on disk (the `wait` agent's runs then sit in a one-hour tool call);
// - `{"id":3,"stats":true}`: the statement counts, this process's CPU time, the store's stats();
// - `{"id":4,"close":true}`: closes the node (its leases are released) and exits.
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createWardrik, postgresStore } from 'wardrik';
import { benchAgents } from './postgres-agents.js';
import { countStatements, statements } from './postgres-statements.js';

const [databaseUrl, schema, nodeName] = process.argv.slice(2);
if (!databaseUrl || !schema || !nodeName) {
  process.stderr.write('usage: postgres-node.ts <databaseUrl> <schema> <nodeName>\n');
  process.exit(2);
}

countStatements();

function print(value: unknown): void {
  writeSync(1, `${JSON.stringify(value)}\n`);
}

const env = process.env;
const store = postgresStore(
  {
    connectionString: databaseUrl,
    application_name: `wardrik-bench-${nodeName}`,
    ...(env.PGB_POOL_MAX ? { max: Number(env.PGB_POOL_MAX) } : {}),
  },
  { schema, synchronousCommit: env.PGB_SYNCHRONOUS_COMMIT !== 'off' },
);
const wardrik = await createWardrik({
  store,
  agents: benchAgents(Number(env.PGB_CALLS ?? 100)),
  node: nodeName,
  ...(env.PGB_LEASE_MS ? { leaseMs: Number(env.PGB_LEASE_MS) } : {}),
  ...(env.PGB_CLAIM_INTERVAL_MS ? { claimIntervalMs: Number(env.PGB_CLAIM_INTERVAL_MS) } : {}),
  ...(env.PGB_MAX_RUNS ? { maxRuns: Number(env.PGB_MAX_RUNS) } : {}),
});
wardrik.onFailure((error) => {
  process.stderr.write(`node ${nodeName}: the store failed: ${error.message}\n`);
  process.exit(1);
});

interface Command {
  readonly id: number;
  readonly run?: { agent: string; runs: number };
  readonly start?: { agent: string; runs: number; concurrency: number };
  readonly stats?: boolean;
  readonly close?: boolean;
}

async function obey(command: Command): Promise<Record<string, unknown>> {
  if (command.run) {
    const { agent, runs } = command.run;
    const began = performance.now();
    const results = await Promise.all(Array.from({ length: runs }, () => wardrik.run(agent, 'go')));
    return {
      ms: performance.now() - began,
      completed: results.filter((result) => result.status === 'completed').length,
    };
  }
  if (command.start) {
    const { agent, runs, concurrency } = command.start;
    const began = performance.now();
    for (let done = 0; done < runs; done += concurrency) {
      const batch = Math.min(concurrency, runs - done);
      await Promise.all(Array.from({ length: batch }, () => wardrik.start(agent, 'go')));
    }
    return { ms: performance.now() - began, started: runs };
  }
  if (command.stats) {
    const cpu = process.cpuUsage();
    return {
      statements: Object.fromEntries(statements),
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      store: store.stats(),
      activeRuns: wardrik.activeRuns,
      rssMb: process.memoryUsage().rss / 2 ** 20,
    };
  }
  if (command.close) {
    await wardrik.close();
    return { closed: true };
  }
  throw new Error(`unknown command ${JSON.stringify(command)}`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as Command;
  obey(command).then(
    (answer) => {
      print({ id: command.id, ...answer });
      if (command.close) process.exit(0);
    },
    (thrown: Error) => print({ id: command.id, error: thrown.stack ?? thrown.message }),
  );
});
print({ ready: true, pid: process.pid });
