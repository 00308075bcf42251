import { type Api, ApiError } from '../api';
import type { Decision, ParkRow } from '../types';

/**
 * What became of an answer a person sent from a park's card. It outlives the form it was sent
 * from: the live `park-answered` event may redraw the card before the POST's response comes, and
 * whoever lost a race must still be told so.
 */
export type SentAnswer =
  | { readonly state: 'sending'; readonly decision: Decision }
  /** The server took it: `park` is the park as answered. */
  | { readonly state: 'taken'; readonly decision: Decision; readonly park: ParkRow }
  /** 409: someone answered first, the run was cancelled, or the call changed; `park` as it is now, if it could be read. */
  | { readonly state: 'refused'; readonly decision: Decision; readonly park?: ParkRow; readonly error: ApiError }
  /** Any other failure: whether it was taken is not known from here. */
  | { readonly state: 'failed'; readonly decision: Decision; readonly error: unknown };

/**
 * Sends `decision` for `park`, bound to the call it was shown with (its callHash); on a 409 reads
 * the park as it is now, to say what happened instead.
 */
export async function sendAnswer(api: Api, park: ParkRow, decision: Decision): Promise<SentAnswer> {
  const path = `/v1/parks/${encodeURIComponent(park.id)}`;
  try {
    const answered = await api.post<ParkRow>(`${path}/answer`, { decision, callHash: park.callHash });
    return { state: 'taken', decision, park: answered };
  } catch (thrown) {
    if (!(thrown instanceof ApiError) || thrown.status !== 409) return { state: 'failed', decision, error: thrown };
    const now = await api.get<ParkRow>(path).catch(() => undefined);
    return { state: 'refused', decision, error: thrown, ...(now === undefined ? {} : { park: now }) };
  }
}

/** A decision in a few words: `deny: “not this one”`, `edit: {"amount":60}`, `approve`. */
export function decisionWords(decision: Decision | undefined): string {
  if (decision === undefined) return 'an answer';
  switch (decision.type) {
    case 'approve':
    case 'retry':
      return decision.note ? `${decision.type}: “${decision.note}”` : decision.type;
    case 'deny':
    case 'fail':
    case 'stop':
      return decision.reason ? `${decision.type}: “${decision.reason}”` : decision.type;
    case 'edit':
      return `edit: ${JSON.stringify(decision.arguments)}`;
    case 'answer':
      return `answer: ${JSON.stringify(decision.value) ?? 'nothing'}`;
    case 'raise-budget':
      return `raise-budget: ${JSON.stringify(decision.budget)}`;
  }
}

/**
 * Why an answer was refused, from the park as it is now: who answered first and with what, or
 * that the run was cancelled, or that the call changed since it was shown.
 */
export function refusalWords(now: ParkRow | undefined, error: ApiError): string {
  if (now === undefined) return `${error.message}.`;
  if (now.status === 'answered') {
    return `${now.answeredBy ?? 'someone'} answered first and chose ${decisionWords(now.decision)}.`;
  }
  if (now.status === 'closed') return 'the park was closed first (its run was cancelled).';
  return `the call changed since it was shown (${error.message}). Look at it again before answering.`;
}
