import type { Annotations } from './annotations.js';
import { type Answer, error, ok, park } from './answer.js';
import type { ToolContext } from './context.js';
import { describeType } from './describe-type.js';
import { ToolDefinitionError } from './errors.js';
import type { Label } from './labels.js';
import type { Measures } from './measures.js';
import type { JsonSchema } from './schema/types.js';
import { type Arguments, type RunResult, type Tool, tool } from './tool.js';

/** MCP's tool annotations (hints). An absent hint is absent: Wardrik assumes nothing from it. */
export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** A tool as MCP's `tools/list` lists it. */
export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: McpToolAnnotations;
  /**
   * How the tool runs (MCP 2025-11-25): whether a call may or must be task-augmented (run as an
   * MCP task the client polls). Absent means `forbidden`.
   */
  readonly execution?: { readonly taskSupport?: 'forbidden' | 'optional' | 'required' };
  readonly _meta?: Record<string, unknown>;
}

/** A content block of an MCP `tools/call` result. */
export type McpContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name: string; readonly mimeType?: string }
  | {
      readonly type: 'resource';
      readonly resource: { readonly uri: string; readonly text?: string; readonly blob?: string };
    };

/** MCP's `CallToolResult`. */
export interface McpCallToolResult {
  readonly content: McpContent[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly _meta?: Record<string, unknown>;
}

/** `_meta` keys Wardrik uses to carry what MCP has no field for. */
export const META = {
  labels: 'wardrik/labels',
  measures: 'wardrik/measures',
  park: 'wardrik/park',
  timeout: 'wardrik/timeout',
} as const;

const hints = [
  ['readOnly', 'readOnlyHint'],
  ['destructive', 'destructiveHint'],
  ['idempotent', 'idempotentHint'],
  ['openWorld', 'openWorldHint'],
] as const;

/**
 * A tool as an MCP `Tool` object. Only hints the tool sets are written (MCP would read a missing
 * `destructiveHint` as "destructive", which is also what Wardrik assumes of an unset one).
 *
 * @example
 * ```ts
 * const listed = { tools: tools.map(toMcpTool) } // a tools/list result
 * ```
 */
export function toMcpTool(source: Tool<never> | Tool<Arguments>): McpTool {
  const annotations: Record<string, boolean | string> = {};
  for (const [ours, theirs] of hints) {
    const value = source.annotations[ours];
    if (value !== undefined) annotations[theirs] = value;
  }
  const meta: Record<string, unknown> = {};
  if (source.annotations.timeout !== undefined) meta[META.timeout] = source.annotations.timeout;
  if (source.annotations.labels?.length) meta[META.labels] = [...source.annotations.labels];
  return {
    name: source.name,
    ...(source.title === undefined ? {} : { title: source.title }),
    description: source.description,
    inputSchema: source.schema.jsonSchema,
    ...(Object.keys(annotations).length ? { annotations } : {}),
    ...(Object.keys(meta).length ? { _meta: meta } : {}),
  };
}

/**
 * A Wardrik tool from an MCP `Tool` object, whose calls `run` carries out (e.g. by sending
 * `tools/call` to a worker). Hints become annotations only where present. Throws
 * `ToolDefinitionError` if the name or the input schema is invalid.
 *
 * @example
 * ```ts
 * const refund = fromMcpTool(listed, (args, context) => worker.callTool('refund', args, context))
 * ```
 */
export function fromMcpTool(
  listed: McpTool,
  run: (args: Arguments, context: ToolContext) => RunResult | Promise<RunResult>,
): Tool<Arguments> {
  if (typeof listed !== 'object' || listed === null) {
    throw new ToolDefinitionError(`MCP tool: expected an object, got ${describeType(listed)}`);
  }
  if (typeof listed.inputSchema !== 'object' || listed.inputSchema === null) {
    throw new ToolDefinitionError(
      `MCP tool ${JSON.stringify(listed.name)}: inputSchema is required and must be an object`,
    );
  }
  const annotations: Record<string, unknown> = {};
  for (const [ours, theirs] of hints) {
    const value = listed.annotations?.[theirs];
    if (value !== undefined) annotations[ours] = value;
  }
  const timeout = listed._meta?.[META.timeout];
  if (timeout !== undefined) annotations.timeout = timeout;
  const labels = listed._meta?.[META.labels];
  if (labels !== undefined) annotations.labels = labels;
  const title = listed.title ?? listed.annotations?.title;
  return tool({
    name: listed.name,
    ...(title === undefined ? {} : { title }),
    description: listed.description ?? '',
    schema: { type: 'object', ...listed.inputSchema },
    annotations: annotations as Annotations,
    run,
  });
}

/**
 * An answer as an MCP `CallToolResult`. Objects also go out as `structuredContent`; labels,
 * measures and parks travel in `_meta`.
 *
 * @example
 * ```ts
 * const result = answerToMcpResult(await call(tools, request, context))
 * ```
 */
export function answerToMcpResult(answer: Answer): McpCallToolResult {
  const meta: Record<string, unknown> = {};
  if (answer.labels.length) meta[META.labels] = [...answer.labels];
  if (Object.keys(answer.measures).length) meta[META.measures] = { ...answer.measures };
  const withMeta = Object.keys(meta).length ? { _meta: meta } : {};
  switch (answer.type) {
    case 'ok': {
      const value = answer.value;
      if (typeof value === 'string') return { content: [{ type: 'text', text: value }], ...withMeta };
      const json = toJson(value);
      const structured = json !== undefined && isPlainObject(value) ? { structuredContent: value } : {};
      return { content: [{ type: 'text', text: json ?? toText(value) }], ...structured, ...withMeta };
    }
    case 'error':
      return { content: [{ type: 'text', text: answer.reason }], isError: true, ...withMeta };
    case 'park':
      return {
        content: [{ type: 'text', text: `Waiting for a person: ${answer.reason}` }],
        isError: true,
        _meta: { ...meta, [META.park]: { reason: answer.reason, details: answer.details } },
      };
  }
}

/**
 * An answer from an MCP `CallToolResult`. `isError` gives an error answer with the text content
 * as its reason; otherwise `structuredContent`, a lone text block's text, or the content blocks
 * are the value. A malformed result gives an error answer saying what is wrong.
 *
 * @example
 * ```ts
 * const answer = mcpResultToAnswer(await client.callTool({ name: 'refund', arguments: args }))
 * ```
 */
export function mcpResultToAnswer(result: unknown): Answer {
  if (typeof result !== 'object' || result === null) {
    return error(`malformed tools/call result: expected an object, got ${describeType(result)}`);
  }
  const { content, structuredContent, isError, _meta } = result as Partial<McpCallToolResult>;
  if (!Array.isArray(content))
    return error(`malformed tools/call result: content must be an array, got ${describeType(content)}`);
  const meta = isPlainObject(_meta) ? _meta : {};
  const report = { labels: readLabels(meta[META.labels]), measures: readMeasures(meta[META.measures]) };
  const parked = meta[META.park];
  if (isPlainObject(parked) && typeof parked.reason === 'string') {
    return park(parked.reason, { ...report, details: parked.details });
  }
  const text = content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        isPlainObject(block) && block.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
  if (isError === true) return error(text || 'the tool reported an error', report);
  if (isPlainObject(structuredContent)) return ok(structuredContent, report);
  if (content.length === 1 && text && content[0]?.type === 'text') return ok(text, report);
  return ok(content, report);
}

/** The JSON text of a value, or undefined if JSON cannot hold it (bigints, cycles, functions). */
function toJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return undefined;
  }
}

/** Readable text for a value JSON cannot hold: bigints as digits, anything else as `String(value)`. */
function toText(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? item.toString() : item)) ?? String(value);
  } catch {
    return String(value);
  }
}

function readLabels(value: unknown): Label[] {
  return Array.isArray(value)
    ? value.filter((label): label is string => typeof label === 'string' && label !== '')
    : [];
}

function readMeasures(value: unknown): Measures {
  const measures: Measures = {};
  if (!isPlainObject(value)) return measures;
  for (const [unit, amount] of Object.entries(value)) {
    if (typeof amount === 'number' && Number.isFinite(amount)) measures[unit] = amount;
  }
  return measures;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
