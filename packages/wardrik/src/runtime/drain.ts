import { WardrikError } from '@wardrik/core';
import type { CallState } from '../journal/state.js';

/**
 * This node is stopping (draining its runs before it exits): it takes no new runs and no answers.
 * The server answers 503 with `Retry-After`: send them to another node, or again once it restarted.
 */
export class NodeStoppingError extends WardrikError {
  static readonly code = 'node_stopping';

  constructor(message: string, options?: ErrorOptions) {
    super('node_stopping', message, options);
  }

  static override isInstance(value: unknown): value is NodeStoppingError {
    return WardrikError.isInstance(value) && value.code === 'node_stopping';
  }
}

/** A run this node drives, as a drain sees it. */
export interface DrainedRun {
  readonly runId: string;
  /** Its calls as they stand now. */
  readonly calls: () => readonly Pick<CallState, 'status'>[];
  /** Stops driving it at once, writing nothing more (what is on disk decides how it goes on). */
  readonly stop: () => void;
  /** Settles once its driver stopped, or the run parked or ended. */
  readonly done: Promise<void>;
  /** Gives its lease back once its driver stopped, so that another node takes it over at once. */
  readonly handOver: () => Promise<void>;
}

/** What a drain works with: the runs driven, and where it hears of their records and model calls. */
export interface DrainDeps {
  /** The runs driven now. */
  readonly driven: () => readonly DrainedRun[];
  /** The run driven now under this id, if any. */
  readonly find: (runId: string) => DrainedRun | undefined;
  /** Listens to every journal record as it is written (before the driver goes on). */
  readonly onRecord: (listener: (runId: string, type: string) => void) => () => void;
  /** Listens to model calls as they start (before the model is asked). */
  readonly onModelCall: (listener: (runId: string) => void) => () => void;
}

/** How a drain went. */
export interface DrainReport {
  /** Runs that reached a journal record with nothing in flight and stopped there (or parked, or ended). */
  readonly settled: number;
  /** Runs still in flight when the grace period ran out, stopped where they were. */
  readonly cutShort: number;
}

/**
 * Stops every run this node drives at its next safe point, within `graceMs`: a journal record
 * after which nothing is in flight (no call started or about to start: the model step that asked
 * for calls is one; the answer of the last call in flight is one), or a model call about to begin
 * (it is not made: the next node makes it). A call under way is let finish and its answer is
 * journaled, so that a call that is not repeatable does not end in doubt; a run that parks or
 * ends meanwhile settles as usual. Each run's lease is handed over as soon as its driver stops.
 * When `graceMs` runs out, the runs still going are stopped where they are (nothing is lost:
 * the journal decides how they go on, as after a crash).
 *
 * @example
 * ```ts
 * const report = await drainRuns(deps, { graceMs: 20_000 }) // { settled: 12, cutShort: 0 }
 * ```
 */
export async function drainRuns(deps: DrainDeps, options: { readonly graceMs: number }): Promise<DrainReport> {
  const stopped = new Set<string>();
  const stop = (runId: string) => {
    const run = deps.find(runId);
    if (!run || stopped.has(runId)) return;
    stopped.add(runId);
    run.stop();
  };
  const stopRecords = deps.onRecord((runId, type) => {
    const run = deps.find(runId);
    if (run && (type === 'model-step' || !inFlight(run.calls()))) stop(runId);
  });
  const stopModelCalls = deps.onModelCall(stop);
  const handovers: Promise<void>[] = [];
  const watched = new Set<string>();
  const watch = (runs: readonly DrainedRun[]) =>
    runs.map((run) => {
      if (!watched.has(run.runId)) {
        watched.add(run.runId);
        handovers.push(run.done.then(() => run.handOver()).catch(() => {}));
      }
      return run.done;
    });
  let cutShort = 0;
  try {
    const first = deps.driven();
    const inTime = await within(Promise.all(watch(first)), options.graceMs);
    if (!inTime) {
      // Out of time: whatever still goes (runs begun meanwhile too: a child run) stops where it is.
      for (const run of deps.driven()) {
        if (!stopped.has(run.runId)) cutShort += 1;
        stopped.add(run.runId);
        run.stop();
      }
    }
    // Runs begun during the drain (a call's child run) are stopped at once.
    for (let runs = deps.driven(); runs.length > 0; runs = deps.driven()) {
      for (const run of runs) stop(run.runId);
      await Promise.all(watch(runs));
    }
  } finally {
    stopRecords();
    stopModelCalls();
  }
  await Promise.all(handovers);
  return { settled: watched.size - cutShort, cutShort };
}

/** Whether a call has been started or is about to be (requested, or allowed to run). */
function inFlight(calls: readonly Pick<CallState, 'status'>[]): boolean {
  return calls.some((call) => call.status === 'started' || call.status === 'requested' || call.status === 'to-run');
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
