import { type Arguments, getPrivate, putPrivate, type Tool } from '@wardrik/core';

/**
 * What a tool source says about a tool it offers, for the policy to judge its calls by: who
 * offers it, and whether every one offering it marks it read-only (an outside server's
 * annotations are its own claims, so the policy trusts only that one). A local tool carries
 * none: its own annotations are the facts.
 */
export interface ToolSourceFacts {
  /** `workers`: offered by connected workers; `mcp`: by an MCP server used as a toolset. */
  readonly source: 'workers' | 'mcp';
  /** Whether every worker (or the server) offering it marks it read-only. */
  readonly readOnlyEverywhere: boolean;
  /**
   * Set on a stand-in: no source offered the tool when it was looked for (its schema is unknown),
   * so a call of it waits for one. The name under which the source would list it.
   */
  readonly standsInFor?: string;
}

/** The private key under which a tool source puts its facts (`Symbol.for`: one key even if two copies of the package load). */
const TOOL_SOURCE = Symbol.for('wardrik.tool-source');

/** A copy of `tool` carrying what its source says of it (see `ToolSourceFacts`). */
export function withSourceFacts<Args>(tool: Tool<Args>, facts: ToolSourceFacts): Tool<Args> {
  return putPrivate(tool, TOOL_SOURCE, Object.freeze({ ...facts }));
}

/** Whether `tool` stands in for one no source offered when it was looked for (see `ToolSourceFacts.standsInFor`). */
export function isStandIn(tool: Tool<Arguments>): boolean {
  return sourceFacts(tool)?.standsInFor !== undefined;
}

/** What the source of `tool` says of it; undefined for a local tool. */
export function sourceFacts(tool: Tool<Arguments>): ToolSourceFacts | undefined {
  return getPrivate<ToolSourceFacts | undefined>(tool, TOOL_SOURCE, undefined);
}
