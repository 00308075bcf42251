import {
  type Answer,
  type Arguments,
  annotate,
  type DescriptionOrigin,
  describedBy,
  fromMcpTool,
  type Label,
  type McpTool,
  META,
  mergeLabels,
  OUTSIDE,
  putPrivate,
  type Tool,
  type ToolContext,
} from '@wardrik/core';
import { withSourceFacts } from '../tool-sources/tool-source-facts.js';

/**
 * The private key marking a tool as offered by an MCP server through `mcpToolset` (read it with
 * `getPrivate(tool, MCP_TOOLSET_TOOL, undefined)`). The server's annotations are its own claims:
 * policies gate such a tool unless the server marks it read-only, as they do worker tools.
 */
export const MCP_TOOLSET_TOOL = Symbol.for('wardrik.mcp-toolset-tool');

/** What the private data of an MCP toolset tool says. */
export interface McpToolsetToolInfo {
  /** The toolset's name. */
  readonly toolset: string;
  /** The server: its URL (without query) or its command line. */
  readonly server: string;
  /** The tool's name as the server lists it (the model sees `TOOLSET__NAME`). */
  readonly mcpName: string;
  /** Whether the server marks it read-only (`readOnlyHint: true`). */
  readonly readOnly: boolean;
}

/** What one MCP toolset tool is built from. */
export interface McpToolsetToolSpec {
  /** The name the model sees. */
  readonly modelName: string;
  /** The tool as the server lists it. */
  readonly listed: McpTool;
  readonly toolset: string;
  readonly server: string;
  /** Whether answers go unlabelled (else every answer carries `outside`). */
  readonly trusted: boolean;
  /** Where its definition came from, and the labels a model step offered it carries (see `describedBy`). */
  readonly origin: DescriptionOrigin;
  /** The call timeout (ms) when the server lists none of its own (`_meta['wardrik/timeout']`). */
  readonly callTimeoutMs: number;
  readonly run: (args: Arguments, context: ToolContext) => Promise<Answer>;
}

/**
 * An MCP server's tool as the run sees it, by the rules worker tools follow: read-only only if the
 * server says so (and then also idempotent), destructive or open-world if it says so, labelled
 * `outside` unless trusted, and marked with where its definition came from (`spec.origin`: the
 * labels a model step offered it carries); its timeout is the server's own or the toolset's. Arguments are
 * checked against the server's input schema before `run`. Throws `ToolDefinitionError` if the
 * listing cannot make a tool.
 *
 * @example
 * ```ts
 * const read = buildMcpToolsetTool({ modelName: 'fs__read_file', listed, toolset: 'fs', server: 'npx …',
 *   trusted: false, origin: { source: 'mcp:fs', tool: 'read_file', labels: [OUTSIDE] }, callTimeoutMs: 60_000,
 *   run: (args, context) => callServer('read_file', args, context) })
 * ```
 */
export function buildMcpToolsetTool(spec: McpToolsetToolSpec): Tool<Arguments> {
  const { listed } = spec;
  const built = fromMcpTool({ ...listed, name: spec.modelName }, spec.run);
  const readOnly = listed.annotations?.readOnlyHint === true;
  const labels: Label[] = mergeLabels(built.annotations.labels ?? [], spec.trusted ? [] : [OUTSIDE]);
  const listedTimeout = listed._meta?.[META.timeout];
  const annotated = annotate(built, {
    ...(readOnly ? { idempotent: true } : {}),
    ...(labels.length ? { labels } : {}),
    timeout: listedTimeout === undefined ? spec.callTimeoutMs : (listedTimeout as number),
  });
  const info: McpToolsetToolInfo = {
    toolset: spec.toolset,
    server: spec.server,
    mcpName: listed.name,
    readOnly,
  };
  const marked = putPrivate(annotated, MCP_TOOLSET_TOOL, Object.freeze(info));
  return describedBy(withSourceFacts(marked, { source: 'mcp', readOnlyEverywhere: readOnly }), spec.origin);
}
