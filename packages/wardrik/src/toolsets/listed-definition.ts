import { type DescriptionOrigin, type McpTool, OUTSIDE } from '@wardrik/core';
import { type ShownDefinition, shownDefinition, toolDefinitionHash } from './tool-definition-hash.js';
import { type PinState, pinState, type ToolPins, type UnpinnedDefinition } from './tool-pins.js';

/** One tool of a listing as an operator reviews it: what the model is shown, its hash, how it stands against the pins. */
export interface ListedDefinition {
  /** The tool's name as its source lists it (the pin's key). */
  readonly name: string;
  /** The hash that pins it as it is now. */
  readonly hash: string;
  readonly state: PinState;
  /** What the model (and a person approving its calls) is shown of it. */
  readonly definition: ShownDefinition;
}

/** A source's listing as an operator reviews it (`McpToolset.listing()`, `wardrik listings`). */
export interface ToolListing {
  /** `mcp:NAME` for an MCP toolset, `worker:PRINCIPAL` for a worker. */
  readonly source: string;
  /** The server: its URL or command line (MCP), or the worker's id. */
  readonly server: string;
  /** Whether the source is trusted (then pins are not looked at and nothing is labelled). */
  readonly trusted: boolean;
  readonly tools: readonly ListedDefinition[];
}

/**
 * Reviews one listed tool of `source` against `pins`: its hash, how it stands, and the origin to
 * mark the built tool with (labelled `outside` unless trusted or pinned as it is).
 *
 * @example
 * ```ts
 * const { origin } = reviewDefinition(listed, { source: 'mcp:docs', pins: {}, trusted: false })
 * origin.labels // ['outside']
 * ```
 */
export function reviewDefinition(
  listed: McpTool,
  options: { readonly source: string; readonly pins: ToolPins; readonly trusted: boolean; readonly hash?: string },
): { readonly reviewed: ListedDefinition; readonly origin: DescriptionOrigin } {
  const hash = options.hash ?? toolDefinitionHash(listed);
  const state: PinState = options.trusted ? 'trusted' : pinState(options.pins, listed.name, hash);
  const outside = state === 'unpinned' || state === 'changed';
  return {
    reviewed: { name: listed.name, hash, state, definition: shownDefinition(listed) },
    origin: {
      source: options.source,
      tool: listed.name,
      labels: outside ? [OUTSIDE] : [],
      hash,
      ...(state === 'changed' ? { changed: true } : {}),
    },
  };
}

/** The definitions of `reviewed` that are not pinned as they are, as `UnpinnedDefinition`s of `source`. */
export function unpinnedOf(source: string, reviewed: readonly ListedDefinition[]): UnpinnedDefinition[] {
  const unpinned: UnpinnedDefinition[] = [];
  for (const each of reviewed) {
    if (each.state === 'unpinned' || each.state === 'changed') {
      unpinned.push({ source, tool: each.name, hash: each.hash, state: each.state });
    }
  }
  return unpinned;
}
