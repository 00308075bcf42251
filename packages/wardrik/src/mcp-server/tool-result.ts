import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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
 * object, `structuredContent`; its labels and measures), with the run's in `_meta`. A run that
 * ended before the call was answered (stopped, refused) gives its error.
 */
export function gatewayToolResult(
  result: RunResult,
  answer: Answer | undefined,
  run: { readonly agent: string; readonly notes: readonly ParkNote[] },
): CallToolResult {
  if (!answer) return runToolResult(result, run);
  const mapped = answerToMcpResult(answer);
  return {
    ...mapped,
    content: [...mapped.content],
    _meta: { ...mapped._meta, ...runMeta(result, run) },
  } as CallToolResult;
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
