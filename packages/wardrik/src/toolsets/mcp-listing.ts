import { type McpTool, ToolDefinitionError } from '@wardrik/core';
import { modelToolName } from '../model/tool-name.js';
import { checkListedTool, describeName } from '../workers/listed-tool.js';

/** A server's listing as a toolset takes it: the usable tools under their model names, and those left out with why. */
export interface AcceptedListing {
  /** `task`: the tool needs MCP tasks (`execution.taskSupport: 'required'`): call it with task augmentation. */
  readonly tools: ReadonlyArray<{ readonly modelName: string; readonly listed: McpTool; readonly task: boolean }>;
  readonly rejected: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
}

/**
 * Checks every item of a server's `tools/list` as worker listings are checked (a valid MCP name, an
 * input schema that compiles), except that a tool needing MCP tasks is taken (marked `task`), and
 * gives each the name the model sees:
 * `TOOLSET__NAME`, or, where that is not a name every provider accepts, a safe form of it with a
 * hash (see `modelToolName`). A tool listed twice, or whose model name another took, keeps the first.
 *
 * @example
 * ```ts
 * acceptMcpListing([{ name: 'read_file', inputSchema: { type: 'object' } }], 'fs').tools[0]?.modelName // 'fs__read_file'
 * ```
 */
export function acceptMcpListing(items: readonly unknown[], toolset: string): AcceptedListing {
  const tools: Array<{ modelName: string; listed: McpTool; task: boolean }> = [];
  const rejected: Array<{ name: string; reason: string }> = [];
  const names = new Set<string>();
  const modelNames = new Map<string, string>();
  for (const item of items) {
    const name = describeName(item);
    const task = needsTasks(item);
    // Checked as a tool without the need (which worker listings refuse); kept as listed.
    const checked = checkListedTool(task ? withoutTaskNeed(item) : item);
    if (!checked.ok) {
      rejected.push({ name, reason: checked.reason });
      continue;
    }
    const listed = task ? (item as McpTool) : checked.tool;
    const modelName = modelToolName(listed.name, `${toolset}__`);
    if (names.has(listed.name)) rejected.push({ name, reason: 'listed twice; the first is kept' });
    else if (modelNames.has(modelName)) {
      const other = JSON.stringify(modelNames.get(modelName));
      rejected.push({ name, reason: `its model name ${modelName} is also that of ${other}, listed before` });
    } else {
      names.add(listed.name);
      modelNames.set(modelName, listed.name);
      tools.push({ modelName, listed, task });
    }
  }
  return { tools, rejected };
}

/** Why building a listed tool failed, as a listing's rejection says it. */
export function rejectionReason(cause: unknown): string {
  return ToolDefinitionError.isInstance(cause) ? cause.message : `could not be built: ${String(cause)}`;
}

/** Whether a listed tool needs MCP tasks (`execution.taskSupport: 'required'`). */
function needsTasks(item: unknown): boolean {
  const execution = (item as { execution?: unknown } | null)?.execution;
  return (
    typeof execution === 'object' &&
    execution !== null &&
    (execution as { taskSupport?: unknown }).taskSupport === 'required'
  );
}

/** The listed tool without its `execution.taskSupport`. */
function withoutTaskNeed(item: unknown): unknown {
  const { execution, ...rest } = item as { execution: Record<string, unknown> };
  const { taskSupport: _taskSupport, ...other } = execution;
  return { ...rest, execution: other };
}
