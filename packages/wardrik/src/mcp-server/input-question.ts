import type { ElicitRequestFormParams, ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import type { ParkRow } from '../store/store.js';
import { PARK_META, toolForm } from './park-question.js';

/** The elicitation modes an MCP client declared (`capabilities.elicitation`: `{}` means form only). */
export interface ElicitationModes {
  readonly form: boolean;
  readonly url: boolean;
}

/** An elicitation to send: a form, or a URL for the person to open. */
export type ElicitationParams = ElicitRequestFormParams | ElicitRequestURLParams;

/**
 * The elicitation that passes on a person's part of a park that is not about a call's fate — an
 * `input` park (a question a call asks while it runs) or an `authorize` park (a sign-in) — to an
 * MCP client that declared `modes`; undefined when the client can't be asked (the park is left to
 * people in the console or CLI):
 *
 * - `input`, form mode: the question's own message, its schema as `requestedSchema` — only when
 *   that schema is one MCP elicitation allows (flat string, number, boolean and enum fields);
 * - `input`, URL mode: a URL-mode elicitation with the question's URL and `elicitationId` (the
 *   park's id when the question gave none), for a client that declared URL mode;
 * - `authorize`: a URL-mode elicitation of the sign-in's URL, the park's reason as its message.
 *
 * Each names its park in `_meta['wardrik/park']`, as `parkQuestion` does.
 *
 * @example
 * ```ts
 * const params = inputQuestion(park, { form: true, url: false })
 * if (params) await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema)
 * ```
 */
export function inputQuestion(park: ParkRow, modes: ElicitationModes): ElicitationParams | undefined {
  const _meta = { [PARK_META]: { id: park.id, runId: park.runId, kind: park.kind, callHash: park.callHash } };
  const details = (typeof park.details === 'object' && park.details !== null ? park.details : {}) as Record<
    string,
    unknown
  >;
  if (park.kind === 'authorize') {
    if (!modes.url || typeof details['url'] !== 'string') return undefined;
    return { mode: 'url', message: park.reason, url: details['url'], elicitationId: park.id, _meta };
  }
  if (park.kind !== 'input') return undefined;
  const message = typeof details['message'] === 'string' ? details['message'] : park.reason;
  if (details['mode'] === 'url') {
    if (!modes.url || typeof details['url'] !== 'string') return undefined;
    const elicitationId = typeof details['elicitationId'] === 'string' ? details['elicitationId'] : park.id;
    return { mode: 'url', message, url: details['url'], elicitationId, _meta };
  }
  if (!modes.form) return undefined;
  const requestedSchema = toolForm({ requestedSchema: details['schema'] });
  if (!requestedSchema || !fitsUnchanged(details['schema'], requestedSchema)) return undefined;
  return { mode: 'form', message, requestedSchema, _meta };
}

/**
 * Whether MCP's form schema kept every field of `schema` as it was: a field MCP does not know
 * (nested, an array) would be dropped by the parse, and the person would never be asked for it.
 */
function fitsUnchanged(schema: unknown, parsed: ElicitRequestFormParams['requestedSchema']): boolean {
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return false;
  return Object.keys(properties).every((name) => Object.hasOwn(parsed.properties, name));
}
