import {
  type CallToolResult,
  type CancelTaskResult,
  ErrorCode,
  type GetTaskResult,
  McpError,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import { can } from '../auth/permissions.js';
import { RunEndedError, RunNotFoundError } from '../errors.js';
import type { RunRow } from '../store/store.js';
import { resultOf } from './call-tool.js';
import {
  askableBy,
  type Extra,
  forbidden,
  type McpContext,
  principalOf,
  type SessionState,
  settleOptionsFor,
} from './request-scope.js';
import { runTask } from './run-task.js';
import { settleRun } from './settle-run.js';

/**
 * The run a task id names, if it is a task of the principal the request comes from: tasks are
 * bound to whoever started them (another principal's run is "not found", whatever its role may
 * read), and only runs of agents this server offers are tasks.
 */
async function ownTask(context: McpContext, session: SessionState, extra: Extra, taskId: string): Promise<RunRow> {
  const principal = principalOf(extra, session);
  const notFound = () =>
    new McpError(ErrorCode.InvalidParams, `Task not found: no task ${JSON.stringify(taskId)} of ${principal.name}`);
  let run: RunRow;
  try {
    run = await context.wardrik.getRunSummary(taskId);
  } catch (thrown) {
    if (RunNotFoundError.isInstance(thrown)) throw notFound();
    throw thrown;
  }
  const offered =
    context.offer.agents.includes(run.agent) || context.offer.gateways.some((each) => each.name === run.agent);
  if (run.principal !== principal.id || !offered) throw notFound();
  const decision = can(principal, 'run.read', { agent: run.agent, runPrincipal: run.principal });
  if (!decision.allowed) throw forbidden(decision.reason);
  return run;
}

/** `tasks/get`: where the task's run stands. */
export async function getTask(
  context: McpContext,
  session: SessionState,
  taskId: string,
  extra: Extra,
): Promise<GetTaskResult> {
  const run = await ownTask(context, session, extra, taskId);
  return runTask(context.wardrik, run, {
    pollInterval: context.taskPollIntervalMs,
    askable: askableBy(session.server, principalOf(extra, session), run),
  });
}

/**
 * `tasks/result`: waits until the task's run ends — asking the client, on this request's stream,
 * about the parks it may answer meanwhile — and answers with the call's result. Works on any node
 * and after a restart: the run is in the store.
 */
export async function getTaskResult(
  context: McpContext,
  session: SessionState,
  taskId: string,
  extra: Extra,
): Promise<CallToolResult> {
  const run = await ownTask(context, session, extra, taskId);
  const settled = await settleRun({
    ...settleOptionsFor(context, session, extra, run, taskId),
    runId: run.id,
    afterSeq: 0,
  });
  const result = await resultOf(context.wardrik, run.agent, settled);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** `tasks/cancel`: cancels the task's run (refused once it has ended). */
export async function cancelTask(
  context: McpContext,
  session: SessionState,
  taskId: string,
  extra: Extra,
): Promise<CancelTaskResult> {
  const principal = principalOf(extra, session);
  const run = await ownTask(context, session, extra, taskId);
  const decision = can(principal, 'run.cancel', { agent: run.agent, runPrincipal: run.principal });
  if (!decision.allowed) throw forbidden(decision.reason);
  try {
    await context.wardrik.cancel(run.id, `cancelled by ${principal.name} over MCP (tasks/cancel)`);
  } catch (thrown) {
    if (RunEndedError.isInstance(thrown)) {
      throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${thrown.message}`);
    }
    throw thrown;
  }
  const ended = await context.wardrik.getRunSummary(run.id);
  return runTask(context.wardrik, ended, { pollInterval: context.taskPollIntervalMs, askable: () => false });
}
