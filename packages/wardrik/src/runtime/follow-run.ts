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
  const follower = new Follower(sources, runId, options);
  try {
    const row = await sources.store.getRun(runId);
    if (!row) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    if (yield* follower.journaled()) return;
    // It had ended when read, and its end was not after the cursor: everything was sent. (A run
    // that ends after it was read has its end in the journal just loaded, or in the queue.)
    if (isEnded(row.status)) return;
    yield* follower.live();
  } finally {
    follower.stop();
  }
}

/** One follower of a run: its cursor, the live events queued for it, and what wakes it. */
class Follower {
  readonly #sources: FollowSources;
  readonly #runId: string;
  readonly #signal: AbortSignal | undefined;
  readonly #queue: RunEvent[] = [];
  #wake: (() => void) | undefined;
  /** The last seq sent. */
  #last: number;
  /** The last seq another node is known to have appended. */
  #appendedUpTo = 0;
  readonly #stops: Array<() => void> = [];

  constructor(sources: FollowSources, runId: string, options: FollowOptions) {
    this.#sources = sources;
    this.#runId = runId;
    this.#signal = options.signal;
    this.#last = options.afterSeq ?? 0;
    this.#stops.push(
      sources.subscribe((event) => {
        this.#queue.push(event);
        this.#wake?.();
      }),
    );
    // Driven on another node: its journal grows there, and the store says so — and, in case a
    // signal was missed, a look at its last seq now and then says so too.
    this.#stops.push(sources.onAppended((seq) => this.#appended(seq)));
    const poll = setInterval(() => {
      if (sources.drivenHere()) return;
      sources.store.lastSeq(runId).then(
        (seq) => seq > this.#last && this.#appended(seq),
        () => {},
      );
    }, FOLLOW_POLL_MS);
    poll.unref();
    this.#stops.push(() => clearInterval(poll));
    const onAbort = () => this.#wake?.();
    this.#signal?.addEventListener('abort', onAbort);
    this.#stops.push(() => this.#signal?.removeEventListener('abort', onAbort));
  }

  #appended(seq: number): void {
    if (seq <= this.#appendedUpTo) return;
    this.#appendedUpTo = seq;
    this.#wake?.();
  }

  /** The records journaled after the cursor; returns whether the run's end was among them. */
  async *journaled(): AsyncGenerator<RunEvent, boolean> {
    for (const stored of await this.#sources.store.loadJournal(this.#runId, this.#last)) {
      this.#last = stored.seq;
      yield recordEvent(stored);
      if (stored.record.type === 'run-ended') return true;
    }
    return false;
  }

  /** Live events (and records appended elsewhere) until the run ends or the signal aborts. */
  async *live(): AsyncGenerator<RunEvent> {
    for (;;) {
      if (this.#appendedUpTo > this.#last && (yield* this.journaled())) return;
      if (yield* this.#queued()) return;
      if (this.#signal?.aborted) return;
      if (this.#appendedUpTo > this.#last) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  /** The live events queued, past the cursor; returns whether the run ended. */
  async *#queued(): AsyncGenerator<RunEvent, boolean> {
    while (this.#queue.length) {
      const event = this.#queue.shift() as RunEvent;
      if (isJournaled(event) && event.seq <= this.#last) {
        if (event.type === 'run-ended') return true; // the cursor was beyond the run's end
        continue;
      }
      if (isJournaled(event)) this.#last = event.seq;
      yield event;
      if (event.type === 'run-ended') return true;
    }
    return false;
  }

  stop(): void {
    for (const stop of this.#stops) stop();
  }
}
