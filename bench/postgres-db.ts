// The PostgreSQL side of the PostgreSQL benchmarks (bench/postgres.ts): schemas, the server's
// counters (commits, WAL), the CPU its processes use, and pgbench.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The benchmark's database (trust auth on 127.0.0.1, as the tests use). */
export const DATABASE_URL = process.env.WARDRIK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name for one benchmark. */
export function schemaName(): string {
  return `wardrik_bench_${randomBytes(5).toString('hex')}`;
}

/** Runs `work` on a connection of its own, whose search path is `schema` (if given). */
export async function withClient<T>(schema: string | undefined, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL, application_name: APPLICATION_NAME });
  await client.connect();
  try {
    if (schema) await client.query(`SET search_path TO "${schema}"`);
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await withClient(undefined, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** The server's cumulative counters: commits of this database, WAL writes, syncs and bytes of the cluster. */
export interface ServerCounters {
  readonly commits: number;
  readonly walSyncs: number;
  readonly walWrites: number;
  readonly walBytes: number;
}

/**
 * Reads the server's counters. Backends publish their statistics when idle, at most once a second,
 * so a reading taken less than a second after the work may miss its last transactions: `settle`
 * waits that long first.
 */
export async function serverCounters(client: pg.Client, settleMs = 0): Promise<ServerCounters> {
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ commits: string; syncs: string; writes: string; bytes: string }>(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits,
            wal_sync AS syncs, wal_write AS writes, wal_bytes AS bytes FROM pg_stat_wal`,
  );
  const row = rows[0];
  return {
    commits: Number(row?.commits),
    walSyncs: Number(row?.syncs),
    walWrites: Number(row?.writes),
    walBytes: Number(row?.bytes),
  };
}

export function counterDelta(before: ServerCounters, after: ServerCounters): ServerCounters {
  return {
    commits: after.commits - before.commits,
    walSyncs: after.walSyncs - before.walSyncs,
    walWrites: after.walWrites - before.walWrites,
    walBytes: after.walBytes - before.walBytes,
  };
}

const TICKS_PER_SECOND = 100;

function statFields(pid: string): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after it are plain.
    return [
      text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
      ...text.slice(text.lastIndexOf(')') + 2).split(' '),
    ];
  } catch {
    return undefined;
  }
}

/** A `postgres` process's CPU time so far (utime + stime), in clock ticks; undefined once it has exited. */
function processTicks(pid: number): number | undefined {
  const fields = statFields(String(pid));
  return fields ? Number(fields[12]) + Number(fields[13]) : undefined;
}

/** The application name of every connection this benchmark opens (its nodes', pgbench's), so that their backends can be told from others'. */
export const APPLICATION_NAME = 'wardrik-bench';

/**
 * CPU seconds used by the PostgreSQL backends serving this benchmark's connections (application
 * name starting with {@link APPLICATION_NAME}) while it runs: other sessions on the same server
 * (the machine is shared) are left out. Sampled every 100 ms, so a backend that exits loses at most
 * its last 100 ms. Linux only.
 */
export class BackendCpu {
  readonly #client: pg.Client;
  readonly #baseline = new Map<number, number>();
  readonly #last = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #started = false;

  constructor(client: pg.Client) {
    this.#client = client;
  }

  async start(): Promise<void> {
    await this.#poll();
    this.#started = true;
    this.#timer = setInterval(() => void this.#poll(), 100);
  }

  /** Stops sampling; the CPU seconds used since `start`. */
  async stop(): Promise<number> {
    clearInterval(this.#timer);
    await this.#polling;
    await this.#poll();
    let ticks = 0;
    for (const [pid, last] of this.#last) ticks += last - (this.#baseline.get(pid) ?? 0);
    return ticks / TICKS_PER_SECOND;
  }

  #poll(): Promise<void> {
    this.#polling ??= (async () => {
      const { rows } = await this.#client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()',
        [`${APPLICATION_NAME}%`],
      );
      for (const { pid } of rows) {
        const ticks = processTicks(pid);
        if (ticks === undefined) continue;
        if (!this.#baseline.has(pid)) this.#baseline.set(pid, this.#started ? 0 : ticks);
        this.#last.set(pid, ticks);
      }
    })().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }
}

/** The machine's busy and total CPU seconds so far (all cores), from /proc/stat. */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((sum, value) => sum + value, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** What one pgbench run did. */
export interface PgbenchResult {
  /** Script executions per second (each one call's journal writes). */
  readonly perSecond: number;
  readonly executions: number;
  /** CPU seconds of the pgbench process itself (its client side). */
  readonly clientCpu: number;
}

/**
 * Runs pgbench on `schema` with `script` for `seconds`, `clients` connections, prepared statements,
 * `synchronous_commit` on or off, no vacuum. Variables are passed with -D.
 */
export async function pgbench(options: {
  schema: string;
  script: string;
  clients: number;
  seconds: number;
  synchronousCommit: boolean;
  variables: Record<string, number>;
}): Promise<PgbenchResult> {
  const url = new URL(DATABASE_URL);
  const file = join(tmpdir(), `wardrik-bench-${randomBytes(4).toString('hex')}.sql`);
  writeFileSync(file, options.script);
  const args = [
    '-h',
    url.hostname,
    '-p',
    url.port || '5432',
    '-U',
    decodeURIComponent(url.username) || 'postgres',
    '-n',
    '-M',
    'prepared',
    '-c',
    String(options.clients),
    '-j',
    '2',
    '-T',
    String(options.seconds),
    '-f',
    file,
    ...Object.entries(options.variables).flatMap(([name, value]) => ['-D', `${name}=${value}`]),
    url.pathname.slice(1) || 'postgres',
  ];
  // The shell reports its reaped child's CPU (cutime, cstime of /proc/$$/stat) after pgbench ends.
  const child = spawn('sh', ['-c', 'pgbench "$@" && echo "CPU $(cut -d" " -f16,17 /proc/$$/stat)"', 'sh', ...args], {
    env: {
      ...process.env,
      PGAPPNAME: `${APPLICATION_NAME}-pgbench`,
      PGOPTIONS: `-c search_path=${options.schema} -c synchronous_commit=${options.synchronousCommit ? 'on' : 'off'}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
  const processed = /number of transactions actually processed: (\d+)/.exec(output);
  const cpu = /CPU (\d+) (\d+)/.exec(output);
  if (code !== 0 || !tps || !processed) throw new Error(`pgbench failed (${code}):\n${output}\n${errors}`);
  return {
    perSecond: Number(tps[1]),
    executions: Number(processed[1]),
    clientCpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) / TICKS_PER_SECOND : Number.NaN,
  };
}
