import {
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Answer } from '@wardrik/core';
import { can } from '../auth/permissions.js';
import type { Principal } from '../auth/types.js';
import { InvalidInputError, SessionBusyError, SessionNotFoundError } from '../errors.js';
import type { Wardrik } from '../runtime/wardrik.js';
import { gatewayInput, gatewayOf, gatewaySamplers } from './gateway-agent.js';
import { mcpClientSampler } from './mcp-client-sampler.js';
import { AGENT_INPUT_SCHEMA, findOffered, GATEWAY_SEPARATOR, type OfferedTool, offeredTools } from './offered-tools.js';
import {
  type Extra,
  forbidden,
  type McpContext,
  principalOf,
  type SessionState,
  settleOptionsFor,
} from './request-scope.js';
import { progressMessage } from './run-progress.js';
import { runTask } from './run-task.js';
import { type Settled, settleRun } from './settle-run.js';
import { gatewayToolResult, runToolResult } from './tool-result.js';

/**
 * `tools/call`: starts a durable run of the agent the tool names (or, for a gateway tool, of its
 * gateway agent, whose one step calls the tool) for the principal the request comes from. As a
 * task (`params.task`), answers at once with the task (its id is the run's); otherwise sees the
 * run through — progress, parks asked about — and answers with its output, labels and cost.
 * `notifications/cancelled` for the request cancels the run. An unknown tool is an MCP error;
 * arguments that don't fit are a tool error naming every field (nothing is started).
 */
export async function callTool(
  context: McpContext,
  session: SessionState,
  request: CallToolRequest,
  extra: Extra,
): Promise<CallToolResult | CreateTaskResult> {
  const { wardrik } = context;
  const principal = principalOf(extra, session);
  const { name } = request.params;
  const tool = await findOffered(wardrik, context.offer, principal, name);
  if (!tool) throw unknownTool(context, principal, name, await offeredTools(wardrik, context.offer, principal));
  const args = request.params.arguments ?? {};
  const problems = argumentProblems(tool, args);
  if (problems)
    return { content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${problems}` }], isError: true };
  const asTask = request.params.task !== undefined;
  // A gateway call's sampling (`context.sample`) asks this client, on this request's stream, while
  // the request waits for the run (not a task's: its request is answered at once).
  const starting = tool.type === 'gateway' && !asTask ? gatewaySamplers(tool.agent)?.starting() : undefined;
  let runId: string;
  try {
    // A call answered only once its run ends (not a task) hands out nothing before then: its start
    // rides to disk with the run's first barrier, as `wardrik.run` does. A task's id is handed out
    // at once, so its run is on disk first.
    runId = await startRun(wardrik, tool, args, principal, { durable: asTask });
  } catch (thrown) {
    starting?.abandon();
    if (
      InvalidInputError.isInstance(thrown) ||
      SessionNotFoundError.isInstance(thrown) ||
      SessionBusyError.isInstance(thrown)
    ) {
      return { content: [{ type: 'text', text: (thrown as Error).message }], isError: true };
    }
    throw thrown;
  }
  if (asTask) {
    const run = await wardrik.getRunSummary(runId);
    const askable = settleOptionsFor(context, session, extra, run).askable;
    const token = extra._meta?.progressToken;
    if (token !== undefined) reportTaskProgress(wardrik, session, runId, token);
    return {
      task: await runTask(wardrik, run, {
        pollInterval: context.taskPollIntervalMs,
        askable: askable ?? (() => false),
      }),
    };
  }
  const options = settleOptionsFor(context, session, extra, {
    id: runId,
    agent: tool.agent.name,
    principal: principal.id,
  });
  // Cancelled by the client (not closed with its session): the run is cancelled.
  const onAbort = () => {
    if (session.closing.aborted) return;
    const why = typeof extra.signal.reason === 'string' ? `: ${extra.signal.reason}` : '';
    wardrik.cancel(runId, `cancelled by ${principal.name} over MCP${why}`).catch(() => {});
  };
  extra.signal.addEventListener('abort', onAbort, { once: true });
  if (extra.signal.aborted) onAbort();
  const detach = starting?.attach(
    runId,
    mcpClientSampler(session.server, extra, { tool: name, timeoutMs: context.elicitationTimeoutMs }),
  );
  let settled: Settled;
  try {
    settled = await settleRun({ ...options, runId, afterSeq: 0, startedHere: true });
  } finally {
    detach?.();
    extra.signal.removeEventListener('abort', onAbort);
  }
  return resultOf(
    wardrik,
    { name: tool.agent.name, gateway: tool.type === 'gateway' },
    settled,
    typeof args['session'] === 'string' && tool.type === 'agent' ? args['session'] : undefined,
  );
}

/**
 * Progress of a task's run, under the progress token of the call that started it, for as long as
 * the session lasts (on its standalone stream: the call itself has been answered).
 */
function reportTaskProgress(
  wardrik: Wardrik,
  session: SessionState,
  runId: string,
  progressToken: string | number,
): void {
  void (async () => {
    let progress = 0;
    try {
      for await (const event of wardrik.follow(runId, { signal: session.closing })) {
        const message = progressMessage(event);
        if (message === undefined) continue;
        progress += 1;
        await session.server
          .notification({ method: 'notifications/progress', params: { progressToken, progress, message } })
          .catch(() => {});
      }
    } catch {
      // The run can't be followed (the store failed): the task still answers tasks/get.
    }
  })();
}

/**
 * A run's end as the tool's result: for a gateway run, the tool's own answer (as the run's events
 * told it, else found in the journal); for an agent run, the run's output. `agent` is the run's
 * agent's name, or its name and whether it is a gateway agent when the caller knows.
 */
export async function resultOf(
  wardrik: Wardrik,
  agent: string | { readonly name: string; readonly gateway: boolean },
  settled: Settled,
  session?: string,
): Promise<CallToolResult> {
  const { name, gateway } =
    typeof agent === 'string' ? { name: agent, gateway: isGatewayAgent(wardrik, agent) } : agent;
  if (gateway) {
    const answer = settled.firstAnswer
      ? settled.firstAnswer.answer
      : await gatewayAnswer(wardrik, settled.result.runId);
    return gatewayToolResult(settled.result, answer, { agent: name, notes: settled.notes });
  }
  return runToolResult(settled.result, { agent: name, notes: settled.notes, ...(session ? { session } : {}) });
}

function isGatewayAgent(wardrik: Wardrik, name: string): boolean {
  const agent = wardrik.agents().find((each) => each.name === name);
  return agent !== undefined && gatewayOf(agent) !== undefined;
}

async function gatewayAnswer(wardrik: Wardrik, runId: string): Promise<Answer | undefined> {
  const { journal } = await wardrik.getRun(runId);
  for (const stored of journal) if (stored.record.type === 'call-answered') return stored.record.answer;
  return undefined;
}

/** Starts the run a call of `tool` is; a `session` the principal has not started yet is started. */
async function startRun(
  wardrik: Wardrik,
  tool: OfferedTool,
  args: Record<string, unknown>,
  principal: Principal,
  { durable }: { readonly durable: boolean },
): Promise<string> {
  if (tool.type === 'gateway') {
    return (
      await wardrik.start(tool.agent.name, gatewayInput({ tool: tool.tool, arguments: args }), {
        principal: principal.id,
        durable,
      })
    ).runId;
  }
  const input = args['input'] as string;
  const session = args['session'] as string | undefined;
  if (session === undefined)
    return (await wardrik.start(tool.agent.name, input, { principal: principal.id, durable })).runId;
  try {
    // A session's run is on disk at its start whatever `durable` says.
    return (await wardrik.start(tool.agent.name, input, { principal: principal.id, session })).runId;
  } catch (thrown) {
    if (!SessionNotFoundError.isInstance(thrown)) throw thrown;
    try {
      await wardrik.createSession(tool.agent.name, { principal: principal.id, id: session });
    } catch (creating) {
      // Taken: another principal's session (which this one may not see) holds the id.
      if (InvalidInputError.isInstance(creating)) throw thrown;
      throw creating;
    }
    return (await wardrik.start(tool.agent.name, input, { principal: principal.id, session })).runId;
  }
}

/** What is wrong with a call's arguments, or undefined when they fit the tool's schema. */
function argumentProblems(tool: OfferedTool, args: Record<string, unknown>): string | undefined {
  const schema = tool.type === 'agent' ? AGENT_INPUT_SCHEMA : tool.schema;
  const checked = schema.validate(args);
  if (checked instanceof Promise) return undefined; // a Standard Schema that checks later: the run checks it
  if (checked.ok) return undefined;
  return checked.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}

/** The error for a tool not offered to the principal: forbidden (its role or scope), or unknown. */
function unknownTool(
  context: McpContext,
  principal: Principal,
  name: string,
  offered: readonly OfferedTool[],
): McpError {
  const agents = context.wardrik.agents();
  const agent = context.offer.agents.includes(name) ? agents.find((each) => each.name === name) : undefined;
  if (agent) {
    const decision = can(principal, 'run.start', { agent: name });
    if (!decision.allowed) return forbidden(decision.reason);
  }
  const gateway = context.offer.gateways.find((each) => name.startsWith(`${gatewayOf(each)}${GATEWAY_SEPARATOR}`));
  if (gateway) {
    const decision = can(principal, 'run.start', { agent: gateway.name });
    if (!decision.allowed) return forbidden(decision.reason);
  }
  const names = offered.map((each) => each.listed.name);
  return new McpError(
    ErrorCode.InvalidParams,
    `Unknown tool: ${JSON.stringify(name)}; this server offers ${names.length ? names.join(', ') : 'you no tools'}`,
  );
}
