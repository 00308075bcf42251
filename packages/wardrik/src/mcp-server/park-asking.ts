import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow } from '../store/store.js';
import type { ElicitationModes, ElicitationParams } from './input-question.js';
import type { ParkNote } from './settle-run.js';

/** What asking an MCP client about a park needs. */
export interface ParkAskDeps {
  readonly wardrik: Wardrik;
  /** Who is asked (and answers: their name is the answer's `by`). */
  readonly principal: Principal;
  /** Sends `elicitation/create` on the request's stream; rejects on timeout, on a closed stream, or when `signal` aborts. */
  readonly elicit: (params: ElicitationParams, signal: AbortSignal) => Promise<ElicitResult>;
  /** Tells the client something worth a log line (`notifications/message`). */
  readonly log: (level: 'info' | 'warning', message: string) => void;
  /** The elicitation modes the client declared (default: form only). */
  readonly modes?: ElicitationModes;
  /** Tells the client a URL-mode elicitation it accepted is done (`notifications/elicitation/complete`). */
  readonly completed?: (elicitationId: string) => void;
}

/** What came of sending an elicitation about a park: the client's reply, or a note saying why there is none. */
export type Elicited = { readonly reply: ElicitResult } | { readonly note: ParkNote };

/** A note about `park` saying what became of it. */
export function noteOf(park: ParkRow, outcome: ParkNote['outcome'], detail: string): ParkNote {
  return { park: park.id, kind: park.kind, outcome, detail };
}

/**
 * Sends `params` about `park` and waits for the reply. No reply: a note — `answered-elsewhere`
 * when `signal` aborted (the park was answered or withdrawn elsewhere: its reason says how),
 * else `left-to-people` (timeout, closed stream), which the client is told in a log line.
 */
export async function elicitAbout(
  deps: ParkAskDeps,
  park: ParkRow,
  params: ElicitationParams,
  signal: AbortSignal,
): Promise<Elicited> {
  // Its own signal, let go once the reply is in: the SDK would send notifications/cancelled for a
  // request already answered if the park's signal aborted later.
  const asked = new AbortController();
  const forward = () => asked.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  let reply: ElicitResult;
  try {
    reply = await deps.elicit(params, asked.signal);
  } catch (thrown) {
    if (signal.aborted) return { note: noteOf(park, 'answered-elsewhere', String(signal.reason)) };
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    deps.log('info', `park ${park.id} waits for people (console, CLI): the client gave no answer (${why})`);
    return { note: noteOf(park, 'left-to-people', `the client gave no answer (${why}); people answer it`) };
  } finally {
    signal.removeEventListener('abort', forward);
  }
  if (signal.aborted) return { note: noteOf(park, 'answered-elsewhere', String(signal.reason)) };
  return { reply };
}

/** Why a park is no longer open, for a client whose answer came too late. */
export function alreadyAnswered(park: ParkRow): string {
  if (park.status === 'answered')
    return `park ${park.id} was answered by ${park.answeredBy ?? 'someone'} (${park.decision?.type ?? 'answer'}) first; it takes one answer only`;
  return park.kind === 'input'
    ? `park ${park.id} was withdrawn: the call that asked no longer waits for an answer`
    : `park ${park.id} was closed (its run was cancelled)`;
}
