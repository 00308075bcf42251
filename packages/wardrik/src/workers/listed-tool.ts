import { type Answer, error, fromMcpTool, isValidToolName, type McpTool, ToolDefinitionError } from '@wardrik/core';
import { workerModelName } from './model-name.js';
import { buildWorkerTool } from './worker-tool.js';

/**
 * Why a tool that needs MCP tasks was left out, before Wardrik ran worker tools as MCP tasks. No
 * tool is left out for it any more; kept for code that names it.
 *
 * @deprecated worker tools that need MCP tasks are offered and run as tasks.
 */
export const TASKS_REQUIRED =
  'requires MCP task augmentation (execution.taskSupport "required"), which Wardrik does not support yet';

const neverRun = async (): Promise<Answer> => error('not run');

/**
 * Checks one item of a worker's `tools/list`: a valid MCP name, an input schema that compiles (in
 * any dialect from draft-04 to 2020-12), and that the tool builds exactly as
 * the hub will build it for the model (under its model name).
 */
export function checkListedTool(
  item: unknown,
): { ok: true; tool: McpTool; modelName: string } | { ok: false; reason: string } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return { ok: false, reason: 'not an object' };
  const listed = item as McpTool;
  if (!isValidToolName(listed.name)) {
    return {
      ok: false,
      reason: `invalid name ${JSON.stringify(listed.name)}: use 1–128 characters of A–Z a–z 0–9 _ - .`,
    };
  }
  if (typeof listed.inputSchema !== 'object' || listed.inputSchema === null) {
    return { ok: false, reason: 'inputSchema is required and must be an object' };
  }
  const modelName = workerModelName(listed.name);
  try {
    fromMcpTool(listed, () => null);
    buildWorkerTool({
      modelName,
      workerName: listed.name,
      listed,
      hints: [listed.annotations ?? {}],
      trusted: false,
      run: neverRun,
    });
  } catch (cause) {
    if (ToolDefinitionError.isInstance(cause)) return { ok: false, reason: cause.message };
    return { ok: false, reason: `could not be built: ${String(cause)}` };
  }
  return { ok: true, tool: listed, modelName };
}

/** A worker's tools as Wardrik takes them: the valid ones, the name the model sees for each, and those left out with why. */
export interface AcceptedTools {
  readonly tools: Map<string, McpTool>;
  /** The name the model sees for each tool, by the tool's name. */
  readonly modelNames: Map<string, string>;
  readonly rejected: Array<{ name: string; reason: string }>;
}

/**
 * Checks every item of a `tools/list` (see `checkListedTool`): a tool listed twice keeps its first
 * listing, and two tools whose names map to one model name keep the first. Used for a worker's own
 * listing and again for what another node says its worker offers.
 *
 * @example
 * ```ts
 * const { tools, rejected } = acceptListedTools([{ name: 'lookup', inputSchema: {} }, { name: 'bad name!', inputSchema: {} }])
 * // tools: lookup; rejected: [{ name: 'bad name!', reason: 'invalid name "bad name!": …' }]
 * ```
 */
export function acceptListedTools(items: readonly unknown[]): AcceptedTools {
  const tools = new Map<string, McpTool>();
  const modelNames = new Map<string, string>();
  /** Which tool has each model name. */
  const named = new Map<string, string>();
  const rejected: Array<{ name: string; reason: string }> = [];
  for (const item of items) {
    const checked = checkListedTool(item);
    const name = describeName(item);
    if (!checked.ok) rejected.push({ name, reason: checked.reason });
    else if (tools.has(checked.tool.name)) rejected.push({ name, reason: 'listed twice; the first is kept' });
    else if (named.has(checked.modelName)) {
      const other = JSON.stringify(named.get(checked.modelName));
      rejected.push({ name, reason: `its model name ${checked.modelName} is also that of ${other}, listed before` });
    } else {
      tools.set(checked.tool.name, checked.tool);
      modelNames.set(checked.tool.name, checked.modelName);
      named.set(checked.modelName, checked.tool.name);
    }
  }
  return { tools, modelNames, rejected };
}

/** A listed item's name as messages show it. */
export function describeName(item: unknown): string {
  const name = typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? truncateBytes(name, 128) : '(no name)';
}

/** `text` cut to at most `max` bytes of UTF-8, never in the middle of a character. */
export function truncateBytes(text: string, max: number): string {
  const buffer = Buffer.from(text);
  if (buffer.length <= max) return text;
  return buffer
    .subarray(0, max)
    .toString()
    .replace(/\uFFFD+$/, '');
}
