import type { Answer } from '@wardrik/core';
import type { ParkKind } from '../journal/records.js';
import { isEnded } from '../journal/run-status.js';
import { isJournaled, type RunEvent } from '../runtime/events.js';
import type { RunResult, Wardrik } from '../runtime/wardrik.js';
import type { ParkRow } from '../store/store.js';
import { Wakeup } from './wakeup.js';

/** The events after which the run's status or open parks may have changed (else nothing is read again). */
const CHANGES: ReadonlySet<RunEvent['type']> = new Set([
  'run-parked',
  'input-requested',
  'input-withdrawn',
  'park-answered',
  'run-ended',
]);

/** What became of a park the call met, as the result's `_meta` tells the client. */
export interface ParkNote {
  readonly park: string;
  readonly kind: ParkKind;
  /**
   * - `answered`: this client answered it;
   * - `answered-elsewhere`: someone answered it (console, CLI, API) while the client was asked;
   * - `refused`: the client's answer came after another one and was refused;
   * - `left-to-people`: the client did not answer in time (or could not be asked): people answer it.
   */
  readonly outcome: 'answered' | 'answered-elsewhere' | 'refused' | 'left-to-people';
  readonly detail: string;
}

/** How to see a run through to its end for an MCP request. */
export interface SettleOptions {
  readonly wardrik: Wardrik;
  readonly runId: string;
  /** Events journaled up to this seq were seen already. */
  readonly afterSeq: number;
  /** Stops waiting (the run goes on). */
  readonly signal: AbortSignal;
  /** Each event of the run from `afterSeq` on (for progress notifications). */
  readonly onEvent?: (event: RunEvent) => void;
  /**
   * Asks the client about an open park and answers it with the reply; undefined when the client
   * can't be asked. `signal` aborts (its reason says why) when the park is answered elsewhere or
   * the run ends meanwhile. Rejects only for a reply that must fail the request.
   */
  readonly ask?: (park: ParkRow, signal: AbortSignal) => Promise<ParkNote>;
  /** Whether the client is asked about this park. Default: no park. */
  readonly askable?: (park: ParkRow) => boolean;
  /** Told once of each park left to people (or, for `external`, to outside work). */
  readonly onWaiting?: (park: ParkRow) => void;
  /**
   * The run was started by this request on this node a moment ago (`afterSeq` 0, no `onEvent`):
   * until it parks, it is seen through from memory (`wardrik.wait`, as `run` does) rather than by
   * following its journal, whose reads would commit the run's records while it goes on.
   */
  readonly startedHere?: boolean;
}

/** A run seen through: how it ended, and what became of the parks the client was asked about. */
export interface Settled {
  readonly result: RunResult;
  readonly notes: readonly ParkNote[];
  /**
   * The answer of the run's first call, when its events said it (every record up to it was seen,
   * in order): `{ answer: undefined }` for a run seen to its end with no call answered; undefined
   * when its events did not say (then the journal does).
   */
  readonly firstAnswer?: { readonly answer: Answer | undefined };
}

/**
 * The first `call-answered` of a run, from its events, trusted only when every record before it
 * was seen, in order (from seq 1, or from 2 when `run-started` was missed: it is always seq 1).
 */
class FirstAnswer {
  #next: number;
  #gap = false;
  #found: { readonly answer: Answer | undefined } | undefined;

  constructor(fromSeq: number) {
    this.#next = fromSeq;
  }

  see(event: RunEvent): void {
    if (this.#gap || this.#found || !isJournaled(event) || event.seq < this.#next) return;
    if (event.seq > this.#next) {
      this.#gap = true;
      return;
    }
    this.#next += 1;
    const { record } = event;
    if (record.type === 'call-answered') this.#found = { answer: record.answer };
    else if (record.type === 'run-ended') this.#found = { answer: undefined };
  }

  get found(): { readonly answer: Answer | undefined } | undefined {
    return this.#found;
  }
}

/**
 * Waits until a run ends, meanwhile asking the client about each park it may answer (one question
 * per park, at most one at a time per park), and telling it of the others. A question whose park
 * is answered elsewhere first is withdrawn, saying by whom. Works for a run driven on any node:
 * it follows the run's journal. Rejects when `signal` aborts, or with what `ask` rejected with.
 */
export async function settleRun(options: SettleOptions): Promise<Settled> {
  if (options.startedHere && options.afterSeq === 0 && options.onEvent === undefined) {
    const settled = await settleFromMemory(options);
    if (settled) return settled;
  }
  return settleFollowing(options);
}

/**
 * Sees a run this node drives through until it ends (the result) or parks (undefined: the
 * journal is followed from there) without reading the store: `wardrik.wait` resolves from the
 * driver's state (a run no longer driven here, it reads the row once). Its events are listened to
 * meanwhile only for the first call's answer; `run-started` (seq 1) was sent before the request
 * could listen. Rejects when `signal` aborts (the run goes on).
 */
async function settleFromMemory(options: SettleOptions): Promise<Settled | undefined> {
  const { wardrik, runId, signal } = options;
  signal.throwIfAborted();
  const first = new FirstAnswer(2);
  // A call's question (an `input` park) keeps the run running: `wait` would not return for it.
  let onQuestion: (() => void) | undefined;
  const questioned = new Promise<undefined>((resolve) => {
    onQuestion = () => resolve(undefined);
  });
  let nextSeq = 2;
  let lookedForMissed = false;
  const stopListening = wardrik.subscribe(runId, (event) => {
    first.see(event);
    if (!isJournaled(event)) return;
    if (event.type === 'input-requested') onQuestion?.();
    else if (event.seq > nextSeq && !lookedForMissed) {
      // Records went by before this listened (seldom): a question among them would be missed.
      lookedForMissed = true;
      wardrik.listParks({ runId, status: 'open', kind: 'input' }).then(
        (open) => open.length > 0 && onQuestion?.(),
        () => onQuestion?.(),
      );
    }
    nextSeq = Math.max(nextSeq, event.seq + 1);
  });
  let onAbort: (() => void) | undefined;
  try {
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const result = await Promise.race([wardrik.wait(runId), questioned, aborted]);
    if (result === undefined || !isEnded(result.status)) return undefined;
    const firstAnswer = first.found;
    return { result, notes: [], ...(firstAnswer ? { firstAnswer } : {}) };
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    stopListening();
  }
}

/** Sees a run through by following its journal (any node), asking about its parks as they open. */
async function settleFollowing(options: SettleOptions): Promise<Settled> {
  const { wardrik, runId } = options;
  // Followed from the start: every record is seen, in order, up to the end (unless following stops).
  const first = options.afterSeq === 0 ? new FirstAnswer(1) : undefined;
  const changed = new Wakeup();
  const stop = new AbortController();
  const stopFollowing = () => stop.abort();
  options.signal.addEventListener('abort', stopFollowing, { once: true });
  let followFailure: unknown;
  // Whether a call of the run asked a question (an `input` park, open while the run runs), and why
  // each withdrawn one was withdrawn.
  let questions = options.afterSeq > 0;
  const withdrawals = new Map<string, string>();
  const following = (async () => {
    try {
      for await (const event of wardrik.follow(runId, { afterSeq: options.afterSeq, signal: stop.signal })) {
        first?.see(event);
        options.onEvent?.(event);
        if (event.type === 'input-requested') questions = true;
        else if (isJournaled(event) && event.record.type === 'input-withdrawn')
          withdrawals.set(event.record.parkId, event.record.reason);
        if (CHANGES.has(event.type)) changed.wake();
      }
    } catch (thrown) {
      followFailure = thrown;
    } finally {
      changed.wake();
    }
  })();
  const notes: ParkNote[] = [];
  const asking = new Map<string, AbortController>();
  const seen = new Set<string>();
  const withdrawn = new Set<string>();
  let askFailure: { readonly error: unknown } | undefined;
  const ask = (park: ParkRow) => {
    const controller = new AbortController();
    asking.set(park.id, controller);
    options
      .ask?.(park, controller.signal)
      .then(
        (note) => notes.push(note),
        (thrown: unknown) => {
          askFailure ??= { error: thrown };
        },
      )
      .finally(() => {
        asking.delete(park.id);
        changed.wake();
      });
  };
  try {
    for (;;) {
      if (askFailure) throw askFailure.error;
      options.signal.throwIfAborted();
      const row = await wardrik.getRunSummary(runId);
      if (isEnded(row.status)) break;
      // A running run has open parks only when its calls asked questions (most never do: no read).
      const open = row.status === 'parked' || questions ? await wardrik.listParks({ runId, status: 'open' }) : [];
      const openIds = new Set(open.map((park) => park.id));
      for (const [parkId, controller] of asking) {
        if (openIds.has(parkId) || withdrawn.has(parkId)) continue;
        withdrawn.add(parkId);
        withdraw(wardrik, parkId, controller, withdrawals);
      }
      for (const park of open) {
        if (seen.has(park.id)) continue;
        seen.add(park.id);
        if (options.ask && options.askable?.(park)) ask(park);
        else options.onWaiting?.(park);
      }
      if (followFailure !== undefined) throw followFailure;
      await changed.next(options.signal);
    }
    const result = await wardrik.wait(runId);
    // Questions still out are withdrawn saying what became of their parks (answered, or closed with the run).
    for (const [parkId, controller] of asking) {
      if (withdrawn.has(parkId)) continue;
      withdrawn.add(parkId);
      withdraw(wardrik, parkId, controller, withdrawals);
    }
    while (asking.size > 0) await changed.next();
    const firstAnswer = first?.found;
    return { result, notes, ...(firstAnswer ? { firstAnswer } : {}) };
  } finally {
    options.signal.removeEventListener('abort', stopFollowing);
    stop.abort();
    for (const controller of asking.values()) controller.abort('the request ended');
    await following;
  }
}

/**
 * Withdraws the question about a park that is no longer open, saying who answered it and how —
 * or, for a call's question withdrawn in the run (`input-withdrawn`), why.
 */
function withdraw(
  wardrik: Wardrik,
  parkId: string,
  controller: AbortController,
  withdrawals: ReadonlyMap<string, string>,
): void {
  wardrik.getPark(parkId).then(
    (park) =>
      controller.abort(
        park.status === 'answered'
          ? `park ${parkId} was answered by ${park.answeredBy ?? 'someone'} (${park.decision?.type ?? 'answer'}) before you answered; your answer would not count`
          : park.kind === 'input'
            ? `park ${parkId} was withdrawn: ${withdrawals.get(parkId) ?? 'the call that asked no longer waits for an answer'}`
            : `park ${parkId} was closed (its run was cancelled)`,
      ),
    () => controller.abort(`park ${parkId} is no longer open`),
  );
}
