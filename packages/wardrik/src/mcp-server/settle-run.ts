import type { ParkKind } from '../journal/records.js';
import type { RunEvent } from '../runtime/events.js';
import type { RunResult, Wardrik } from '../runtime/wardrik.js';
import { isEnded, type ParkRow } from '../store/store.js';
import { Wakeup } from './wakeup.js';

/** The events after which the run's status or open parks may have changed (else nothing is read again). */
const CHANGES: ReadonlySet<RunEvent['type']> = new Set(['run-parked', 'park-answered', 'run-ended']);

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
}

/** A run seen through: how it ended, and what became of the parks the client was asked about. */
export interface Settled {
  readonly result: RunResult;
  readonly notes: readonly ParkNote[];
}

/**
 * Waits until a run ends, meanwhile asking the client about each park it may answer (one question
 * per park, at most one at a time per park), and telling it of the others. A question whose park
 * is answered elsewhere first is withdrawn, saying by whom. Works for a run driven on any node:
 * it follows the run's journal. Rejects when `signal` aborts, or with what `ask` rejected with.
 */
export async function settleRun(options: SettleOptions): Promise<Settled> {
  const { wardrik, runId } = options;
  const changed = new Wakeup();
  const stop = new AbortController();
  const stopFollowing = () => stop.abort();
  options.signal.addEventListener('abort', stopFollowing, { once: true });
  let followFailure: unknown;
  const following = (async () => {
    try {
      for await (const event of wardrik.follow(runId, { afterSeq: options.afterSeq, signal: stop.signal })) {
        options.onEvent?.(event);
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
      const open = row.status === 'parked' ? await wardrik.listParks({ runId, status: 'open' }) : [];
      const openIds = new Set(open.map((park) => park.id));
      for (const [parkId, controller] of asking) {
        if (openIds.has(parkId) || withdrawn.has(parkId)) continue;
        withdrawn.add(parkId);
        withdraw(wardrik, parkId, controller);
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
      withdraw(wardrik, parkId, controller);
    }
    while (asking.size > 0) await changed.next();
    return { result, notes };
  } finally {
    options.signal.removeEventListener('abort', stopFollowing);
    stop.abort();
    for (const controller of asking.values()) controller.abort('the request ended');
    await following;
  }
}

/** Withdraws the question about a park that is no longer open, saying who answered it and how. */
function withdraw(wardrik: Wardrik, parkId: string, controller: AbortController): void {
  wardrik.getPark(parkId).then(
    (park) =>
      controller.abort(
        park.status === 'answered'
          ? `park ${parkId} was answered by ${park.answeredBy ?? 'someone'} (${park.decision?.type ?? 'answer'}) before you answered; your answer would not count`
          : `park ${parkId} was closed (its run was cancelled)`,
      ),
    () => controller.abort(`park ${parkId} is no longer open`),
  );
}
