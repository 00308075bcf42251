/*
 * Crash test with real child processes killed by SIGKILL (issue 3, "Tests (real parts)").
 *
 * The child (`crash/child.ts`) opens one SQLite file, recovers what was running, and starts runs,
 * recovers, or answers in-doubt parks. Its agent calls a read-only tool (`lookup`), an idempotent
 * one (`charge`) and an unannotated one (`send_email`, not repeatable), several at once in some
 * steps; every real execution of a tool is one line of the exec log. Runs are started of that agent,
 * of `desk` (which hands each run to it: a transfer) and of `boss` (which calls it as a tool: a
 * child run whose answer boss waits for, parked while the child is). Children die by SIGKILL from
 * this process at random times, or by their own hand at named points: inside a tool right after
 * its effect (between intent and answer), during a model step, after the model returned calls but
 * before their intents are on disk, and at the start of the next model step (after answers).
 * Then a child without kills recovers everything, in-doubt parks are answered (answer / retry /
 * fail, in turn) until every run has ended, and the exec log is checked against the SQLite file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import type { ExecLine } from './crash/agent.js';
import { verifyExecutions, verifyStateWrites } from './crash/verify.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const childPath = fileURLToPath(new URL('./crash/child.ts', import.meta.url));

/** The named points where a child kills itself; `random` counts the kills sent from here. */
const POINTS = ['tool', 'model', 'before-intent', 'after-answer'] as const;
const PROBABILITY: Record<(typeof POINTS)[number], number> = {
  tool: 0.15,
  model: 0.2,
  'before-intent': 0.2,
  'after-answer': 0.2,
};
const MIN_KILLS = 60;
/** Runs to start at least (more are started if everything has ended and kills are still short). */
const RUNS = 14;
/**
 * The kill loop stops after this many children even if short of kills (then the assertions fail,
 * with the counts). It counts children, not seconds: a slow or loaded machine makes the test take
 * longer, never fail. (About one child in four is killed, so this is several times what is needed.)
 */
const MAX_CHILDREN = 12 * MIN_KILLS;

const directory = mkdtempSync(join(tmpdir(), 'wardrik-crash-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const dbPath = join(directory, 'wardrik.db');
const execLogPath = join(directory, 'exec.log');
const notesPath = join(directory, 'notes.log');

type Note =
  | { readonly type: 'kill'; readonly point: string; readonly child: string }
  | { readonly type: 'seen'; readonly nonce: string; readonly child: string };

interface ChildResult {
  readonly id: string;
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: Record<string, unknown>[];
  readonly stderr: string;
  readonly killedHere: boolean;
}

interface ChildOptions {
  readonly point?: string;
  readonly probability?: number;
  /** SIGKILL the child this long after it is ready. */
  readonly killAfterMs?: number;
}

let childCount = 0;

function runChild(args: readonly string[], options: ChildOptions = {}): Promise<ChildResult> {
  childCount += 1;
  const id = String(childCount);
  const child = spawn(
    process.execPath,
    ['--conditions=@wardrik/source', '--import', 'tsx', childPath, dbPath, execLogPath, ...args],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CRASH_POINT: options.point ?? 'none',
        CRASH_PROBABILITY: String(options.probability ?? 0),
        CRASH_NOTES: notesPath,
        CRASH_CHILD: id,
      },
    },
  );
  const lines: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  let killedHere = false;
  let timer: NodeJS.Timeout | undefined;
  // Only a guard against a child that hangs (then the test fails naming it), not a time limit on work.
  const guard = setTimeout(() => child.kill('SIGKILL'), 300_000);
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    let newline = stdout.indexOf('\n');
    while (newline >= 0) {
      const line = JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>;
      stdout = stdout.slice(newline + 1);
      lines.push(line);
      if (line.ready && options.killAfterMs !== undefined) {
        timer = setTimeout(() => {
          killedHere = true;
          child.kill('SIGKILL');
        }, options.killAfterMs);
      }
      newline = stdout.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      resolve({ id, pid: child.pid as number, code, signal, lines, stderr, killedHere });
    });
  });
}

function readLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

/** What the file holds now (no child is running). */
function summary(): { runs: number; running: number; openParks: number; handed: number; children: number } {
  if (!existsSync(dbPath)) return { runs: 0, running: 0, openParks: 0, handed: 0, children: 0 };
  const database = new Database(dbPath, { fileMustExist: true });
  try {
    const count = (sql: string) => (database.prepare(sql).get() as { n: number }).n;
    return {
      runs: count('SELECT count(*) AS n FROM runs'),
      running: count(`SELECT count(*) AS n FROM runs WHERE status = 'running'`),
      openParks: count(`SELECT count(*) AS n FROM parks WHERE status = 'open'`),
      // Runs handed to crashy (desk's) and runs calling it as a tool (boss's).
      handed: count(`SELECT count(*) AS n FROM runs WHERE agent = 'desk'`),
      children: count(`SELECT count(*) AS n FROM runs WHERE agent = 'boss'`),
    };
  } finally {
    database.close();
  }
}

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

function describeChild(args: readonly string[], result: ChildResult): string {
  return `child ${args.join(' ')} (pid ${result.pid}) exited with code ${result.code}, signal ${result.signal}:\n${result.stderr}`;
}

it(`no run is lost and no unsafe call repeats across ${MIN_KILLS}+ SIGKILLs`, async () => {
  const began = performance.now();
  const kills = new Map<string, number>();
  const printedRunIds = new Set<string>();
  const decisions = new Map<string, number>();
  let decisionTurn = 0;

  const record = (args: readonly string[], result: ChildResult, killable: boolean): void => {
    for (const line of result.lines) {
      if (typeof line.runId === 'string') printedRunIds.add(line.runId);
      if (typeof line.answered === 'string') {
        decisionTurn += 1;
        const type = String(line.decision);
        decisions.set(type, (decisions.get(type) ?? 0) + 1);
      }
    }
    if (result.signal === 'SIGKILL' && killable) {
      const own = readLines<Note>(notesPath).find((note) => note.type === 'kill' && note.child === result.id);
      const point = own?.type === 'kill' ? own.point : 'random';
      if (point === 'random' && !result.killedHere) throw new Error(describeChild(args, result));
      kills.set(point, (kills.get(point) ?? 0) + 1);
      return;
    }
    // Not killed: it must have finished its work cleanly.
    if (result.code !== 0 || !result.lines.some((line) => line.done)) throw new Error(describeChild(args, result));
  };

  // 1. Start, recover and answer, with a SIGKILL in nearly every child.
  const totalKills = () => [...kills.values()].reduce((sum, each) => sum + each, 0);
  for (let round = 0; ; round++) {
    const state = summary();
    const startMore = state.runs < RUNS || state.handed < 2 || state.children < 2;
    if (totalKills() >= MIN_KILLS && POINTS.every((point) => kills.has(point)) && !startMore) break;
    if (round >= MAX_CHILDREN) break;
    // Every mode also recovers the runs that were running.
    const modes = [
      ...(startMore ? ['start'] : []),
      ...(state.running > 0 ? ['recover'] : []),
      ...(state.openParks > 0 ? ['answer'] : []),
    ];
    const mode = modes[randomInt(0, modes.length - 1)] ?? 'start';
    const args =
      mode === 'start'
        ? ['start', String(randomInt(1, 3))]
        : mode === 'answer'
          ? ['answer', String(decisionTurn)]
          : ['recover'];
    const point = POINTS[round % (POINTS.length + 1)];
    const result = await runChild(args, {
      ...(point ? { point, probability: PROBABILITY[point] } : {}),
      // One child in seven runs to the end unless it kills itself, so the runs move on.
      ...(round % 7 === 6 ? {} : { killAfterMs: randomInt(0, 250) }),
    });
    record(args, result, true);
    if (process.env.CRASH_DEBUG) {
      console.log(
        `#${result.id} ${args.join(' ')} point=${point} ${result.signal ?? result.code} ${JSON.stringify(state)}`,
      );
    }
  }
  const killPhaseMs = performance.now() - began;

  // 2. Recover without kills, then answer every in-doubt park until every run has ended.
  const recovered = await runChild(['recover']);
  record(['recover'], recovered, false);
  for (let round = 0; round < 10; round++) {
    const state = summary();
    if (state.running === 0 && state.openParks === 0) break;
    const args = state.openParks > 0 ? ['answer', String(decisionTurn)] : ['recover'];
    record(args, await runChild(args), false);
  }

  // 3. Check the exec log against the file.
  const database = new Database(dbPath, { readonly: true, fileMustExist: true });
  const runs = database.prepare('SELECT id, status, agent, summary FROM runs').all() as {
    id: string;
    status: string;
    agent: string;
    summary: string;
  }[];
  const journal = database.prepare('SELECT run_id, seq, record FROM journal ORDER BY run_id, seq').all() as {
    run_id: string;
    seq: number;
    record: string;
  }[];
  const parkRows = database.prepare('SELECT id, run_id, kind, status, park, decision FROM parks').all() as {
    id: string;
    run_id: string;
    kind: string;
    status: string;
    park: string;
    decision: string | null;
  }[];
  const stateRows = database.prepare('SELECT key, value FROM state_values').all() as { key: string; value: string }[];
  database.close();
  const execs = readLines<ExecLine>(execLogPath);
  const notes = readLines<Note>(notesPath);

  const { lostEmails, lostAfterSeen, emailParksNotRun, repeatedRepeatable, inDoubt } = verifyExecutions({
    runIds: printedRunIds,
    runs,
    journal,
    parkRows,
    execs,
    seenNonces: new Set(notes.flatMap((note) => (note.type === 'seen' ? [note.nonce] : []))),
  });

  // Transfers and child runs were among what was killed: each recovered like any run (verified above).
  const records = journal.map((row) => JSON.parse(row.record) as { type: string });
  const transfers = records.filter((record) => record.type === 'agent-transferred').length;
  const childRuns = records.filter((record) => record.type === 'child-run-started').length;
  expect(transfers, 'runs handed from desk to crashy').toBeGreaterThanOrEqual(2);
  expect(childRuns, 'child runs of boss').toBeGreaterThanOrEqual(2);

  // State writes under SIGKILL: stored exactly as the journaled answers carry them.
  expect(verifyStateWrites(journal, stateRows)).toBeGreaterThan(0);

  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    [
      `crash test: ${totalKills()} kills in ${childCount} children, ${runs.length} runs (${printedRunIds.size} reported by a child)`,
      `  kills by point: ${[...POINTS, 'random'].map((point) => `${point} ${kills.get(point) ?? 0}`).join(', ')}`,
      `  transfers (desk → crashy): ${transfers}; child runs (boss calling crashy as a tool): ${childRuns}`,
      `  executions: ${execs.length} (send_email ${execs.filter((exec) => exec.tool === 'send_email').length}); ` +
        `repeatable calls run more than once: ${repeatedRepeatable}`,
      `  in_doubt parks: ${inDoubt} (of which the try never reached the tool: ${emailParksNotRun}); answers: ` +
        [...decisions].map(([type, count]) => `${type} ${count}`).join(', '),
      `  send_email executions whose answer was lost: ${lostEmails}, of which the model had already seen: ${lostAfterSeen}`,
      `  kill phase ${seconds(killPhaseMs)}, total ${seconds(performance.now() - began)}`,
    ].join('\n'),
  );
  // The answer of a call that is not repeatable is on disk before the model sees it (the contract):
  // no execution whose answer the model saw may have lost that answer in a crash.
  expect(lostAfterSeen, 'send_email answers the model saw but the journal lost').toBe(0);

  expect(totalKills()).toBeGreaterThanOrEqual(MIN_KILLS);
  for (const point of POINTS) expect(kills.get(point) ?? 0, `kills at ${point}`).toBeGreaterThan(0);
  expect(runs.length).toBeGreaterThanOrEqual(RUNS);
}, 1_800_000);
