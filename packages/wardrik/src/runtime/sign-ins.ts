import { describeReason, type Toolset, WardrikError } from '@wardrik/core';
import { InvalidInputError, ParkNotFoundError } from '../errors.js';
import type { ParkDecision } from '../journal/records.js';
import type { ParkFilter, ParkRow } from '../store/store.js';
import { McpSignInError } from '../toolsets/mcp-authorization-required.js';

/** What an `authorize` park holds in its `details`: whose sign-in, and where. */
export interface SignInDetails {
  readonly toolset: string;
  readonly url: string;
  readonly state?: string;
  readonly principal?: string;
}

/** The callback of an OAuth sign-in: the `code` and `state` query parameters the authorization server sent back. */
export interface SignInCallback {
  readonly code: string;
  readonly state: string;
  /** Who answers the runs' parks (default `oauth-callback`). */
  readonly by?: string;
}

/** A toolset that finishes a sign-in (an `mcpToolset` with `auth`). */
interface SigningToolset extends Toolset {
  completeAuthorization(result: { code: string; state: string; principal?: string }): Promise<void>;
}

/** What finishing a sign-in needs from the runtime. */
export interface SignInDeps {
  readonly listParks: (filter: ParkFilter) => Promise<ParkRow[]>;
  readonly toolsets: () => readonly Toolset[];
  readonly answerPark: (
    parkId: string,
    decision: ParkDecision,
    options: { callHash: string; by: string },
  ) => Promise<void>;
}

/**
 * Finishes the sign-in whose callback came (`wardrik serve`'s `/oauth/callback`): the run whose
 * `authorize` park carries this `state` names the toolset (and principal); its code is exchanged
 * for tokens; then every run waiting for a sign-in to that toolset (for that principal) goes on.
 * Throws `ParkNotFoundError` when no run waits for this state (finished already, or forged).
 */
export async function completeSignIn(deps: SignInDeps, callback: SignInCallback): Promise<{ runs: string[] }> {
  if (typeof callback?.code !== 'string' || callback.code === '') {
    throw new InvalidInputError('code: expected the authorization code the callback brought (a non-empty string)');
  }
  if (typeof callback.state !== 'string' || callback.state === '') {
    throw new InvalidInputError('state: expected the state the callback brought (a non-empty string)');
  }
  const waiting = await deps.listParks({ status: 'open', kind: 'authorize' });
  const park = waiting.find((each) => detailsOf(each).state === callback.state);
  if (!park) {
    throw new ParkNotFoundError(
      'no run waits for a sign-in with this state: it was finished already, another sign-in replaced it, or the callback is forged',
    );
  }
  const details = detailsOf(park);
  const toolset = deps.toolsets().find((each) => each.name === details.toolset);
  if (!toolset || !isSigning(toolset)) {
    throw new ParkNotFoundError(`no toolset ${JSON.stringify(details.toolset)} that signs in is configured here`);
  }
  const sameSignIn = waiting.filter((each) => {
    const other = detailsOf(each);
    return other.toolset === details.toolset && other.principal === details.principal;
  });
  // Each sign-in started replaces the one before it: only the newest one's callback can finish.
  const newest = sameSignIn.reduce((latest, each) => (each.createdAt > latest.createdAt ? each : latest), park);
  if (newest.id !== park.id) {
    throw new InvalidInputError(
      `state: a newer sign-in to ${details.toolset} replaced this one (park ${newest.id}); open its URL instead`,
    );
  }
  try {
    await toolset.completeAuthorization({
      code: callback.code,
      state: callback.state,
      ...(details.principal === undefined ? {} : { principal: details.principal }),
    });
  } catch (cause) {
    if (WardrikError.isInstance(cause)) throw cause;
    throw new McpSignInError(
      `toolset ${details.toolset}: the sign-in could not be finished: ${describeReason(cause)}`,
      {
        cause,
      },
    );
  }
  const by = callback.by ?? 'oauth-callback';
  const runs: string[] = [];
  for (const each of sameSignIn) {
    await deps
      .answerPark(each.id, { type: 'retry', note: `signed in to ${details.toolset}` }, { callHash: each.callHash, by })
      .then(() => runs.push(each.runId))
      .catch(() => {}); // answered meanwhile (a person, or another callback): it goes on anyway
  }
  return { runs };
}

function detailsOf(park: ParkRow): Partial<SignInDetails> {
  const details = park.details;
  return typeof details === 'object' && details !== null ? (details as Partial<SignInDetails>) : {};
}

function isSigning(toolset: Toolset): toolset is SigningToolset {
  return typeof (toolset as Partial<SigningToolset>).completeAuthorization === 'function';
}
