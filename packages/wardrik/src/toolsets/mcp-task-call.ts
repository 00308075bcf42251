import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { type Answer, error, OUTSIDE, started } from '@wardrik/core';
import { onAbort } from '../abort/on-abort.js';
import { callMeta, cancelled, failedCall, type McpToolCall } from './mcp-tool-call.js';

/** A handle is at most this long (see `started`). */
const MAX_HANDLE_LENGTH = 256;

/** One call of a tool that needs MCP tasks (`execution.taskSupport: 'required'`). */
export interface McpTaskCall extends McpToolCall {
  /** The toolset's name: handles are `NAME:taskId`. */
  readonly toolset: string;
  /** Whether the result goes unlabelled (else it carries `outside`). */
  readonly trusted: boolean;
  /** Watches the task the server created, to deliver its result with `context.completeExternal` to `handle`. */
  readonly watch: (task: Task, handle: string) => void;
}

/**
 * Sends `tools/call` with task augmentation and answers `started` as soon as the server created
 * the task: the run waits (a park of kind `external`) for the handle `NAME:taskId`, with the task's
 * ttl as its deadline, while `watch` follows the task and delivers its result. Before the task
 * exists, the call fails or is cancelled as any call does (`lost`, `cancelled`, the server's
 * refusal). Never throws.
 *
 * @example
 * ```ts
 * const answer = await startMcpTask({ connection, server: 'MCP server everything', mcpName: 'simulate-research-query',
 *   args, context, timeoutMs: 60_000, toolset: 'everything', trusted: false, watch: (task, handle) => watcher.watch(…) })
 * ```
 */
export async function startMcpTask(call: McpTaskCall): Promise<Answer> {
  const { context, connection } = call;
  if (context.signal.aborted) return cancelled();
  const controller = new AbortController();
  const stopWaiting = onAbort(context.signal, () => controller.abort(context.signal.reason));
  let task: Task;
  try {
    task = await connection.startTask({
      context,
      name: call.mcpName,
      arguments: call.args,
      meta: callMeta(context),
      signal: controller.signal,
      timeoutMs: call.timeoutMs,
    });
  } catch (cause) {
    if (context.signal.aborted) return cancelled();
    return failedCall(call, cause);
  } finally {
    stopWaiting();
  }
  return taskStarted({
    task,
    what: `${call.server}, tool ${call.mcpName}`,
    handle: `${call.toolset}:${task.taskId}`,
    trusted: call.trusted,
    details: { toolset: call.toolset, tool: call.mcpName },
    cancel: () => void connection.cancelTask(task.taskId, { timeoutMs: call.timeoutMs }),
    watch: (handle) => call.watch(task, handle),
  });
}

/** A task an MCP tool call created, and how the run is to wait for it. */
export interface CreatedTask {
  readonly task: Task;
  /** What created it, as messages name it: `MCP server NAME, tool TOOL`. */
  readonly what: string;
  /** The handle the run waits for (at most 256 characters, else the task is cancelled). */
  readonly handle: string;
  /** Whether the result goes unlabelled (else it carries `outside`). */
  readonly trusted: boolean;
  /** What `details.mcpTask` says of where the task runs, before its id, status and ttl. */
  readonly details: Readonly<Record<string, unknown>>;
  /** Cancels the task (best effort): its handle is too long to wait for. */
  readonly cancel: () => void;
  /** Starts following the task, to deliver its result to `handle`. */
  readonly watch: (handle: string) => void;
}

/**
 * The answer for a tool call whose MCP task was created: `started`, so that the run waits (a
 * park of kind `external`) for `handle`, with the task's ttl as its deadline, while the task is
 * followed. Shared by toolsets and workers.
 */
export function taskStarted(created: CreatedTask): Answer {
  const { task, what, handle } = created;
  if (handle.length > MAX_HANDLE_LENGTH) {
    created.cancel();
    return error(
      `${what}: the server's task id is too long to wait for (${task.taskId.length} characters); it was cancelled`,
    );
  }
  created.watch(handle);
  const status = task.statusMessage === undefined ? '' : ` (${task.statusMessage})`;
  return started(`${what} is running as MCP task ${task.taskId}${status}`, {
    handle,
    ...(typeof task.ttl === 'number' && task.ttl > 0 ? { deadlineMs: task.ttl } : {}),
    labels: created.trusted ? [] : [OUTSIDE],
    details: {
      mcpTask: {
        ...created.details,
        taskId: task.taskId,
        status: task.status,
        ttl: task.ttl,
        ...(task.pollInterval === undefined ? {} : { pollInterval: task.pollInterval }),
      },
    },
  });
}
