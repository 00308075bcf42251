import { RunNotFoundError } from '../errors.js';
import type { RunStore } from '../store/run-store.js';
import { isEnded } from '../store/store.js';
import { isJournaled, type RunEvent, type RunEventListener, recordEvent } from './events.js';

/** How often a follower of a run driven elsewhere looks at its journal, in case a signal was missed. */
const FOLLOW_POLL_MS = 1_000;

/** Where to follow a run from. */
export interface FollowOptions {
  /** Only events journaled after this seq (resuming where a follower left off). Default: from the start. */
  readonly afterSeq?: number;
  /** Stops following when aborted. */
  readonly signal?: AbortSignal;
}

/** What following one run reads: the store, this node's live events, and word of records appended elsewhere. */
export interface FollowSources {
  readonly store: Pick<RunStore, 'getRun' | 'loadJournal' | 'lastSeq'>;
  /** This node's live events of the run. */
  subscribe(listener: RunEventListener): () => void;
  /** Told the run's last seq when another node appended to its journal (the store's signal). */
  onAppended(listener: (seq: number) => void): () => void;
  /** Whether this node drives the run now (then its live events say everything). */
  drivenHere(): boolean;
}

/**
 * A run's events: those journaled after `afterSeq`, then live ones, until the run ends — whichever
 * node drives it (see `Wardrik.follow`).
 */
export async function* followRun(
  sources: FollowSources,
  runId: string,
  options: FollowOptions = {},
): AsyncGenerator<RunEvent> {
  const queue: RunEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = sources.subscribe((event) => {
    queue.push(event);
    wake?.();
  });
  // Driven on another node: its journal grows there, and the store says so — and, in case a
  // signal was missed, a look at its last seq now and then says so too.
  let appendedUpTo = 0;
  let last = options.afterSeq ?? 0;
  const appended = (seq: number) => {
    if (seq <= appendedUpTo) return;
    appendedUpTo = seq;
    wake?.();
  };
  const stopAppended = sources.onAppended(appended);
  const poll = setInterval(() => {
    if (sources.drivenHere()) return;
    sources.store.lastSeq(runId).then(
      (seq) => seq > last && appended(seq),
      () => {},
    );
  }, FOLLOW_POLL_MS);
  poll.unref();
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort);
  try {
    const row = await sources.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    for (const stored of await sources.store.loadJournal(runId, last)) {
      last = stored.seq;
      yield recordEvent(stored);
      if (stored.record.type === 'run-ended') return;
    }
    // It had ended when read, and its end was not after the cursor: everything was sent. (A run
    // that ends after it was read has its end in the journal just loaded, or in the queue.)
    if (isEnded(row.status)) return;
    for (;;) {
      if (appendedUpTo > last) {
        for (const stored of await sources.store.loadJournal(runId, last)) {
          last = stored.seq;
          yield recordEvent(stored);
          if (stored.record.type === 'run-ended') return;
        }
      }
      while (queue.length) {
        const event = queue.shift() as RunEvent;
        if (isJournaled(event) && event.seq <= last) {
          if (event.type === 'run-ended') return; // the cursor was beyond the run's end
          continue;
        }
        if (isJournaled(event)) last = event.seq;
        yield event;
        if (event.type === 'run-ended') return;
      }
      if (options.signal?.aborted) return;
      if (appendedUpTo > last) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    stopAppended();
    clearInterval(poll);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
