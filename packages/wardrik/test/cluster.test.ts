/*
 * Three nodes as separate processes on one PostgreSQL (issue 13): they run the crash test's agent
 * (a read-only tool, an idempotent one, one that is not repeatable, with a side-effect log) while
 * nodes are SIGKILLed (and started again) and SIGSTOPped past their lease (then SIGCONTed) at
 * random. Every run must end, no call that is not repeatable may run twice on its own, every lost
 * one must be parked in doubt, and a node that wakes up after losing a lease must never append to
 * that run (every journal stays whole: no record twice, no gap, each call answered once).
 * The chaos is counted in actions, not seconds: a slow machine makes the test longer, never red.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import type { JournalRecord } from '../src/journal/records.js';
import { rebuildState } from '../src/journal/state.js';
import type { ExecLine } from './crash/agent.js';
import { verifyExecutions, verifyStateWrites } from './crash/verify.js';
import { dropTestSchema, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const nodePath = fileURLToPath(new URL('./cluster/node.ts', import.meta.url));
const NODES = ['node-1', 'node-2', 'node-3'] as const;
const LEASE_MS = 1_000;
const RUNS = 24;
const MIN_KILLS = 6;
const MIN_STOPS = 4;
/** The chaos stops after this many actions even if short of kills (then the assertions fail, with counts). */
const MAX_ACTIONS = 300;

const directory = mkdtempSync(join(tmpdir(), 'wardrik-cluster-'));
const execLogPath = join(directory, 'exec.log');
const schema = testSchemaName();
afterAll(async () => {
  for (const node of nodes.values()) stopNode(node);
  rmSync(directory, { recursive: true, force: true });
  await dropTestSchema(schema);
});

interface Node {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: Record<string, unknown>[];
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  stopped: boolean;
  isReady: boolean;
  stderr: string;
}

const nodes = new Map<string, Node>();
const startedRuns = new Set<string>();

function startNode(name: string): Node {
  const child = spawn(
    process.execPath,
    ['--conditions=@wardrik/source', '--import', 'tsx', nodePath, TEST_DATABASE_URL, schema, execLogPath, name],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, CLUSTER_LEASE_MS: String(LEASE_MS), CLUSTER_TOOL_DELAY_MS: '120' },
    },
  );
  const node: Node = {
    name,
    child,
    lines: [],
    stopped: false,
    isReady: false,
    stderr: '',
    ready: new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
          const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
          buffer = buffer.slice(newline + 1);
          node.lines.push(line);
          if (typeof line.runId === 'string') startedRuns.add(line.runId);
          if (line.ready) {
            node.isReady = true;
            resolve();
          }
        }
      });
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}):\n${node.stderr}`)));
    }),
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
  node.ready.catch(() => {});
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    node.stderr += chunk;
  });
  nodes.set(name, node);
  return node;
}

function stopNode(node: Node): void {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  if (node.stopped) node.child.kill('SIGCONT');
  node.child.kill('SIGKILL');
}

function send(node: Node, command: object): void {
  node.child.stdin?.write(`${JSON.stringify(command)}\n`);
}

/** Nodes that are up and ready (a node still starting is left alone). */
function alive(): Node[] {
  return [...nodes.values()].filter(
    (node) => node.isReady && node.child.exitCode === null && node.child.signalCode === null,
  );
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function query<Row extends object>(sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function counts(): Promise<{ running: number; openInDoubt: number; runs: number }> {
  const [row] = await query<{ running: string; open_in_doubt: string; runs: string }>(
    `SELECT (SELECT count(*) FROM runs WHERE status = 'running') AS running,
            (SELECT count(*) FROM parks WHERE status = 'open' AND kind = 'in_doubt') AS open_in_doubt,
            (SELECT count(*) FROM runs) AS runs`,
  );
  return { running: Number(row?.running), openInDoubt: Number(row?.open_in_doubt), runs: Number(row?.runs) };
}

/** What a run still `running` looks like, to tell why it never settled: its lease, its last records, the nodes. */
async function stuckRuns(): Promise<string> {
  const runs = await query<{ id: string; node: string | null; epoch: string; expires_at: Date; now: Date }>(
    `SELECT r.id, l.node, l.epoch, l.expires_at, now() AS now FROM runs r LEFT JOIN leases l ON l.run_id = r.id
      WHERE r.status = 'running'`,
  );
  const lines = [];
  for (const run of runs) {
    const records = await query<{ seq: string; record: unknown }>(
      `SELECT seq, record FROM journal WHERE run_id = '${run.id}' ORDER BY seq DESC LIMIT 4`,
    );
    lines.push(
      `run ${run.id}: lease ${run.node ?? 'none'} epoch ${run.epoch} expires ${run.expires_at?.toISOString()} (now ${run.now?.toISOString()})`,
      ...records.reverse().map((row) => `  ${row.seq} ${JSON.stringify(row.record).slice(0, 300)}`),
    );
  }
  for (const node of nodes.values()) {
    lines.push(`node ${node.name}: ${node.stopped ? 'stopped' : 'live'}, stderr: ${node.stderr.slice(-500)}`);
  }
  return lines.join('\n');
}

it(`no run is lost, stuck or double-run across ${MIN_KILLS}+ SIGKILLs and ${MIN_STOPS}+ SIGSTOPs of three nodes`, async () => {
  for (const name of NODES) startNode(name);
  await Promise.all([...nodes.values()].map((node) => node.ready));

  let kills = 0;
  let stops = 0;
  let answerTurn = 0;
  let actions = 0;
  const restarts: Array<Promise<void>> = [];
  for (; actions < MAX_ACTIONS; actions++) {
    const live = alive().filter((node) => !node.stopped);
    if (kills >= MIN_KILLS && stops >= MIN_STOPS && startedRuns.size >= RUNS) break;
    const roll = Math.random();
    if (startedRuns.size < RUNS && roll < 0.4 && live.length > 0) {
      send(pick(live), { start: 1 + Math.floor(Math.random() * 3) });
    } else if (roll < 0.6 && live.length > 1) {
      // A node dies mid-work; it comes back a little later, as a supervisor would start it again.
      const victim = pick(live);
      victim.child.kill('SIGKILL');
      kills += 1;
      restarts.push(
        victim.exited.then(async () => {
          await sleep(200 + Math.random() * 800);
          await startNode(victim.name).ready;
        }),
      );
      await victim.exited;
    } else if (roll < 0.8 && live.length > 1) {
      // A node pauses past its lease: the others take its runs over; it wakes and must not write them.
      const paused = pick(live);
      paused.child.kill('SIGSTOP');
      paused.stopped = true;
      stops += 1;
      setTimeout(
        () => {
          paused.child.kill('SIGCONT');
          paused.stopped = false;
        },
        LEASE_MS * (1.5 + Math.random() * 1.5),
      );
    } else if (live.length > 0) {
      send(pick(live), { answer: answerTurn });
      answerTurn += 1;
    }
    await sleep(100 + Math.random() * 300);
  }

  // Every node back, no pause left: then answer what waits for a person until every run has ended.
  await Promise.all(restarts);
  for (const node of nodes.values()) {
    if (node.stopped) {
      node.child.kill('SIGCONT');
      node.stopped = false;
    }
  }
  for (let round = 0; ; round++) {
    const state = await counts();
    if (state.running === 0 && state.openInDoubt === 0 && round > 0) break;
    if (round > 600) throw new Error(`runs never settled: ${JSON.stringify(state)}\n${await stuckRuns()}`);
    if (state.openInDoubt > 0) {
      send(pick(alive()), { answer: answerTurn });
      answerTurn += 1;
    }
    await sleep(200);
  }

  const runs = await query<{ id: string; status: string }>('SELECT id, status FROM runs');
  const journal = await query<{ run_id: string; seq: number; record: unknown }>(
    'SELECT run_id, seq, record FROM journal ORDER BY run_id, seq',
  );
  const parkRows = await query<{ id: string; status: string; decision: unknown }>(
    'SELECT id, status, decision FROM parks',
  );
  const stateRows = await query<{ key: string; value: string }>('SELECT key, value FROM state_values');
  const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const execs = existsSync(execLogPath)
    ? readFileSync(execLogPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ExecLine)
    : [];
  const stats = verifyExecutions({
    runIds: startedRuns,
    runs,
    journal: journal.map((row) => ({ run_id: row.run_id, seq: Number(row.seq), record: asText(row.record) })),
    parkRows: parkRows.map((row) => ({
      id: row.id,
      status: row.status,
      decision: row.decision === null ? null : asText(row.decision),
    })),
    execs,
    seenNonces: new Set(),
  });
  // State writes: stored exactly as the journaled answers carry them (a paused node's were refused).
  const stateWrites = verifyStateWrites(
    journal.map((row) => ({ run_id: row.run_id, seq: Number(row.seq), record: asText(row.record) })),
    stateRows,
  );
  expect(stateWrites).toBeGreaterThan(0);
  // Every journal whole, as one node at a time wrote it: no gap, and it folds to the run's status.
  for (const run of runs) {
    const records = journal.filter((row) => row.run_id === run.id);
    expect(
      records.map((row) => Number(row.seq)),
      `run ${run.id}`,
    ).toEqual(records.map((_, index) => index + 1));
    const state = rebuildState(
      run.id,
      records.map((row) => ({
        runId: run.id,
        seq: Number(row.seq),
        record: JSON.parse(asText(row.record)) as JournalRecord,
      })),
    );
    expect(state.status, `run ${run.id}`).toBe(run.status);
  }
  console.log(
    [
      `cluster test: ${kills} kills and ${stops} pauses of ${NODES.length} nodes in ${actions} actions, ${runs.length} runs`,
      `  executions: ${execs.length} (send_email ${execs.filter((exec) => exec.tool === 'send_email').length}); repeatable calls run more than once: ${stats.repeatedRepeatable}`,
      `  in_doubt parks: ${stats.inDoubt} (the try never reached the tool: ${stats.emailParksNotRun}); send_email executions whose answer was lost: ${stats.lostEmails}`,
    ].join('\n'),
  );
  expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
  expect(stops).toBeGreaterThanOrEqual(MIN_STOPS);
  expect(runs.length).toBeGreaterThanOrEqual(RUNS);
}, 1_800_000);
