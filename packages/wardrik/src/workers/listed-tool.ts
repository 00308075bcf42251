import { type Answer, error, fromMcpTool, isValidToolName, type McpTool, ToolDefinitionError } from '@wardrik/core';
import { workerModelName } from './model-name.js';
import { buildWorkerTool } from './worker-tool.js';

/** Why a tool that needs MCP tasks is left out. */
export const TASKS_REQUIRED =
  'requires MCP task augmentation (execution.taskSupport "required"), which Wardrik does not support yet';

const neverRun = async (): Promise<Answer> => error('not run');

/**
 * Checks one item of a worker's `tools/list`: a valid MCP name, an input schema that compiles (in
 * any dialect from draft-04 to 2020-12), no need for MCP tasks, and that the tool builds exactly as
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
  if (listed.execution?.taskSupport === 'required') return { ok: false, reason: TASKS_REQUIRED };
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
