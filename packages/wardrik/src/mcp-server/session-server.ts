import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { WardrikError } from '@wardrik/core';
import { callTool } from './call-tool.js';
import { offeredTools } from './offered-tools.js';
import { type Extra, type McpContext, principalOf, type SessionState } from './request-scope.js';
import { cancelTask, getTask, getTaskResult } from './task-requests.js';

/** The server's name and version, as `initialize` gives them. */
export const SERVER_INFO = { name: 'wardrik', version: '0.1.0' } as const;

/**
 * The MCP server of one session: the SDK's low-level `Server` (its tools are listed from the
 * agents' JSON Schemas, and its tasks are runs, which McpServer's zod tools and in-memory task
 * store can't express), with tools (`tools/list`, `tools/call`), tasks (`tasks/get`,
 * `tasks/result`, `tasks/cancel`; not `tasks/list`) and logging (`logging/setLevel`).
 */
export function sessionServer(context: McpContext, session: Omit<SessionState, 'server'>): SessionState {
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      logging: {},
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions:
      'Each tool is a Wardrik agent (a durable run answers) or, named AGENT__TOOL, one tool of an agent called through its gates. ' +
      'Long runs can be called as tasks; a run waiting for a person asks you (elicitation) when you may answer it.',
  });
  skipRequestIdZero(server);
  const state: SessionState = Object.assign(session, { server });
  const handle =
    <Request, Result>(work: (request: Request, extra: Extra) => Promise<Result>) =>
    async (request: Request, extra: Extra): Promise<Result> => {
      state.active += 1;
      try {
        return await work(request, extra);
      } catch (thrown) {
        throw asMcpError(thrown);
      } finally {
        state.active -= 1;
      }
    };
  server.setRequestHandler(
    ListToolsRequestSchema,
    handle(async (_request, extra) => ({
      tools: (await offeredTools(context.wardrik, context.offer, principalOf(extra, state))).map((tool) => tool.listed),
    })),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    handle((request, extra) => callTool(context, state, request, extra)),
  );
  server.setRequestHandler(
    GetTaskRequestSchema,
    handle((request, extra) => getTask(context, state, request.params.taskId, extra)),
  );
  server.setRequestHandler(
    GetTaskPayloadRequestSchema,
    handle((request, extra) => getTaskResult(context, state, request.params.taskId, extra)),
  );
  server.setRequestHandler(
    CancelTaskRequestSchema,
    handle((request, extra) => cancelTask(context, state, request.params.taskId, extra)),
  );
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    state.logLevel = request.params.level;
    return {};
  });
  return state;
}

/**
 * Makes the server's requests to the client start at id 1. The SDK's client ignores
 * `notifications/cancelled` for request id 0 (it tests the id for truth), so withdrawing the
 * first question of a session (an elicitation whose park was answered elsewhere) would never reach
 * it. The SDK numbers requests from a private counter; if that ever changes this does nothing.
 */
function skipRequestIdZero(server: Server): void {
  const counter = server as unknown as { _requestMessageId?: unknown };
  if (counter._requestMessageId === 0) counter._requestMessageId = 1;
}

/**
 * What a client is told of a failure: MCP errors as they are; Wardrik's errors with their message
 * (a store failure says only that); anything else as an internal error that says little.
 */
function asMcpError(thrown: unknown): unknown {
  if (thrown instanceof McpError) return thrown;
  if (WardrikError.isInstance(thrown)) {
    if (thrown.code === 'store')
      return new McpError(ErrorCode.InternalError, 'the store failed; this server takes no more work');
    return new McpError(ErrorCode.InvalidRequest, thrown.message, { code: thrown.code });
  }
  if (thrown instanceof Error && thrown.name === 'AbortError') return thrown;
  return new McpError(ErrorCode.InternalError, 'internal error');
}
