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
}

/** The private key under which a tool source puts its facts (`Symbol.for`: one key even if two copies of the package load). */
const TOOL_SOURCE = Symbol.for('wardrik.tool-source');

/** A copy of `tool` carrying what its source says of it (see `ToolSourceFacts`). */
export function withSourceFacts<Args>(tool: Tool<Args>, facts: ToolSourceFacts): Tool<Args> {
  return putPrivate(tool, TOOL_SOURCE, Object.freeze({ ...facts }));
}

/** What the source of `tool` says of it; undefined for a local tool. */
export function sourceFacts(tool: Tool<Arguments>): ToolSourceFacts | undefined {
  return getPrivate<ToolSourceFacts | undefined>(tool, TOOL_SOURCE, undefined);
}
