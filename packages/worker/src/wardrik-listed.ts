import { isJsonObject } from '@wardrik/core/wire';

/**
 * The notification Wardrik sends a worker once it has registered the worker's `tools/list` (the
 * first one and each one after a `list_changed`): from then on runs are offered those tools. It
 * is Wardrik's own, not MCP's; the worker's transport takes it and never hands it to the MCP
 * server (which would ignore it anyway: the SDK drops notifications it has no handler for).
 */
export const WARDRIK_LISTED_METHOD = 'notifications/wardrik/listed';

/** What Wardrik made of a worker's tool list (the params of `notifications/wardrik/listed`). */
export interface WardrikListing {
  /** How many tools Wardrik accepted (offers to the agents the worker serves). */
  readonly accepted: number;
  /** The tools it left out, with why (an invalid name or schema, a duplicate, …). */
  readonly rejected: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
}

/** Reads the params of `notifications/wardrik/listed`; anything malformed reads as what can be made of it. */
export function readListing(params: unknown): WardrikListing {
  const object = isJsonObject(params) ? params : {};
  const accepted = typeof object['accepted'] === 'number' ? object['accepted'] : 0;
  const rejected = Array.isArray(object['rejected'])
    ? object['rejected'].flatMap((each: unknown) =>
        isJsonObject(each) && typeof each['name'] === 'string'
          ? [{ name: each['name'], reason: typeof each['reason'] === 'string' ? each['reason'] : '' }]
          : [],
      )
    : [];
  return { accepted, rejected };
}
