// Measures one framework running the workload (bench/peers/workload.ts), in the child process
// bench/peers.ts started for it, and prints the figures as one `RESULT {json}` line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, percentile } from '../stats.js';
import { expectedOutput, startMarking, stopMarking, WORKLOAD } from './workload.js';

/** A framework set up to run the workload. */
export interface Subject {
  /** Runs the agent on a fresh conversation for `calls` calls; resolves to its final text. */
  run(calls: number): Promise<string>;
  close?(): Promise<void>;
  /** Facts worth printing with the figures (e.g. the SQLite synchronous mode in use). */
  notes?: string;
}

/** What one child measures; bench/peers.ts keeps the median of several children per figure. */
export interface Figures {
  /** Per step of a 10-call run (run time ÷ 10), over `WORKLOAD.shortRuns` runs. */
  stepUsP50: number;
  stepUsP99: number;
  /** In one long run: median step time at steps 6–25 and at steps 991–1010, in µs. */
  earlyStepUs: number;
  lateStepUs: number;
  longRunSeconds: number;
  /** Resident set size after the long run (after a full GC), and when the subject was ready. */
  rssAfterLongMb: number;
  rssReadyMb: number;
  /** Steps (calls) per second of 64 concurrent runs of 100 calls. */
  concurrentStepsPerSecond: number;
  notes?: string;
}

const temporaryFolders: string[] = [];

/** A path in a fresh temporary folder, removed when the child has measured. */
export function temporaryPath(name: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'wardrik-peers-'));
  temporaryFolders.push(folder);
  return join(folder, name);
}

function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function rssMb(): number {
  collect();
  return process.memoryUsage().rss / 2 ** 20;
}

async function checked(subject: Subject, calls: number): Promise<void> {
  const output = await subject.run(calls);
  if (output !== expectedOutput(calls)) {
    throw new Error(`a run of ${calls} calls answered ${JSON.stringify(output)}, not ${expectedOutput(calls)}`);
  }
}

export async function measure(subject: Subject): Promise<Figures> {
  const rssReadyMb = rssMb();
  for (let index = 0; index < WORKLOAD.warmRuns; index++) await checked(subject, WORKLOAD.shortCalls);

  const perStep: number[] = [];
  for (let index = 0; index < WORKLOAD.shortRuns; index++) {
    const began = performance.now();
    await checked(subject, WORKLOAD.shortCalls);
    perStep.push(((performance.now() - began) * 1000) / WORKLOAD.shortCalls);
  }

  collect();
  const longBegan = performance.now();
  startMarking();
  await checked(subject, WORKLOAD.longCalls);
  const marks = stopMarking();
  const longRunSeconds = (performance.now() - longBegan) / 1000;
  // The time from one model turn to the next is one whole step: the model, the call, the framework
  // (and its journal or checkpoint). steps[k] is step k + 1.
  const steps = marks.slice(1).map((mark, index) => (mark - (marks[index] as number)) * 1000);
  const rssAfterLongMb = rssMb();

  const concurrentBegan = performance.now();
  await Promise.all(Array.from({ length: WORKLOAD.concurrentRuns }, () => checked(subject, WORKLOAD.concurrentCalls)));
  const concurrentSeconds = (performance.now() - concurrentBegan) / 1000;
  const notes = subject.notes;
  await subject.close?.();

  return {
    stepUsP50: median(perStep),
    stepUsP99: percentile(perStep, 99),
    earlyStepUs: median(steps.slice(5, 25)),
    lateStepUs: median(steps.slice(990, 1010)),
    longRunSeconds,
    rssAfterLongMb,
    rssReadyMb,
    concurrentStepsPerSecond: (WORKLOAD.concurrentRuns * WORKLOAD.concurrentCalls) / concurrentSeconds,
    ...(notes ? { notes } : {}),
  };
}

/** Measures the subject and prints its figures for the parent; exits non-zero on failure. */
export async function measureAndReport(makeSubject: () => Promise<Subject>): Promise<void> {
  try {
    const figures = await measure(await makeSubject());
    for (const folder of temporaryFolders) rmSync(folder, { recursive: true, force: true });
    // Exit once written: a framework may leave timers or handles open (tracing, pools).
    process.stdout.write(`RESULT ${JSON.stringify(figures)}\n`, () => process.exit(0));
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
