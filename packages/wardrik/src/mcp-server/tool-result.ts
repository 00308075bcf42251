import { type CallToolResult, type ContentBlock, ContentBlockSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Answer, answerToMcpResult, META } from '@wardrik/core';
import type { RunResult } from '../runtime/wardrik.js';
import type { ParkNote } from './settle-run.js';

/** The `_meta` key under which a result names its run. */
export const RUN_META = 'wardrik/run';

/** What a result says of its run in `_meta['wardrik/run']`. */
export interface RunMeta {
  readonly runId: string;
  readonly agent: string;
  readonly status: RunResult['status'];
  readonly session?: string;
  /** What became of the parks the client was asked about. */
  readonly parks?: readonly ParkNote[];
}

/**
 * An agent run's end as an MCP `CallToolResult`: its output (or error) as text, `isError` unless
 * it completed, and in `_meta` the run (`wardrik/run`), its labels (`wardrik/labels`) and its cost
 * (`wardrik/measures`) — the keys `mcpResultToAnswer` reads, so a Wardrik using this server as a
 * toolset keeps the labels.
 *
 * @example
 * ```ts
 * runToolResult(await wardrik.wait(runId), { agent: 'support', notes: [] })
 * // { content: [{ type: 'text', text: 'Refunded.' }], _meta: { 'wardrik/run': {…}, 'wardrik/labels': [], 'wardrik/measures': { usd: 0.002 } } }
 * ```
 */
export function runToolResult(
  result: RunResult,
  run: { readonly agent: string; readonly session?: string; readonly notes: readonly ParkNote[] },
): CallToolResult {
  const text =
    result.status === 'completed' ? (result.output ?? '') : `run ${result.status}: ${result.error ?? result.status}`;
  return {
    content: [{ type: 'text', text }],
    ...(result.status === 'completed' ? {} : { isError: true }),
    _meta: runMeta(result, run),
  };
}

/**
 * A gateway run's end as a `CallToolResult`: the tool's own answer (its value as text and, for an
 * object, `structuredContent`; a value that is a list of MCP content blocks — an image, audio, an
 * embedded resource, as an MCP server's tool answers through a toolset — as those blocks; its
 * labels and measures), with the run's in `_meta`. A run that ended before the call was answered
 * (stopped, refused) gives its error.
 *
 * @example
 * ```ts
 * gatewayToolResult(result, ok([{ type: 'image', data: png, mimeType: 'image/png' }]), { agent: 'support.gateway', notes: [] })
 * // { content: [{ type: 'image', data: png, mimeType: 'image/png' }], _meta: { 'wardrik/run': {…}, … } }
 * ```
 */
export function gatewayToolResult(
  result: RunResult,
  answer: Answer | undefined,
  run: { readonly agent: string; readonly notes: readonly ParkNote[] },
): CallToolResult {
  if (!answer) return runToolResult(result, run);
  const mapped = answerToMcpResult(answer);
  const blocks = answer.type === 'ok' ? contentBlocks(answer.value) : undefined;
  if (blocks) {
    const { structuredContent: _structured, ...rest } = mapped;
    return { ...rest, content: blocks, _meta: { ...mapped._meta, ...runMeta(result, run) } } as CallToolResult;
  }
  return {
    ...mapped,
    content: [...mapped.content],
    _meta: { ...mapped._meta, ...runMeta(result, run) },
  } as CallToolResult;
}

/**
 * `value` as MCP content blocks, when it is a non-empty list of them (each checked against MCP's
 * schema); otherwise undefined (the value is answered as JSON text).
 */
function contentBlocks(value: unknown): ContentBlock[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const blocks: ContentBlock[] = [];
  for (const item of value) {
    const parsed = ContentBlockSchema.safeParse(item);
    if (!parsed.success) return undefined;
    blocks.push(parsed.data);
  }
  return blocks;
}

function runMeta(
  result: RunResult,
  run: { readonly agent: string; readonly session?: string; readonly notes: readonly ParkNote[] },
): Record<string, unknown> {
  const meta: RunMeta = {
    runId: result.runId,
    agent: run.agent,
    status: result.status,
    ...(run.session === undefined ? {} : { session: run.session }),
    ...(run.notes.length ? { parks: run.notes } : {}),
  };
  return { [RUN_META]: meta, [META.labels]: [...result.labels], [META.measures]: { ...result.measures } };
}
