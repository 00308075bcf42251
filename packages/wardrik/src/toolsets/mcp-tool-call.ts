import { type Answer, type Arguments, error, mcpResultToAnswer, type ToolContext } from '@wardrik/core';
import { onAbort } from '../abort/on-abort.js';
import { CONNECTION_CLOSED, describeFailure, REQUEST_TIMEOUT } from './describe-failure.js';
import { McpAuthorizationRequiredError, McpSignInError } from './mcp-authorization-required.js';
import type { McpServerConnection } from './mcp-server-connection.js';

/** One call of a server's tool. */
export interface McpToolCall {
  readonly connection: McpServerConnection;
  /** How messages name the server. */
  readonly server: string;
  /** The tool's name as the server lists it. */
  readonly mcpName: string;
  readonly args: Arguments;
  readonly context: ToolContext;
  readonly timeoutMs: number;
}

/**
 * Sends `tools/call` through the SDK client and makes its answer: the result by core's mapping; an
 * error with code `lost` when the server went away or did not answer in time (it may have run);
 * `cancelled` when the call's signal aborted (the SDK tells the server with
 * `notifications/cancelled`); the server's own JSON-RPC error or a malformed result as a plain
 * error. The call's `_meta` carries `agent`, `run`, `principal` and `idempotencyKey`; progress
 * goes to `context.reportProgress`. Never throws.
 *
 * @example
 * ```ts
 * const answer = await callMcpTool({ connection, server: 'MCP server fs', mcpName: 'read_file', args, context, timeoutMs: 60_000 })
 * ```
 */
export async function callMcpTool(call: McpToolCall): Promise<Answer> {
  const { context, connection } = call;
  if (context.signal.aborted) return cancelled();
  // A signal of our own, unlinked once the call is over: the SDK never lets go of a signal it is given.
  const controller = new AbortController();
  const stopWaiting = onAbort(context.signal, () => controller.abort(context.signal.reason));
  try {
    const result = await connection.callTool({
      context,
      name: call.mcpName,
      arguments: call.args,
      meta: callMeta(context),
      signal: controller.signal,
      timeoutMs: call.timeoutMs,
      onProgress: ({ progress, ...rest }) => {
        try {
          context.reportProgress(progress, rest);
        } catch {
          // A report the context refuses (not a finite number) is dropped, not the call.
        }
      },
    });
    return mcpResultToAnswer(result);
  } catch (cause) {
    if (context.signal.aborted) return cancelled();
    return failedCall(call, cause);
  } finally {
    stopWaiting();
  }
}

/** What a call's `_meta` carries: `agent`, `run`, `principal`, `idempotencyKey` and `fencingToken`. */
export function callMeta(context: ToolContext): Record<string, unknown> {
  return {
    agent: context.agentName,
    run: context.runId,
    principal: context.principal,
    idempotencyKey: context.idempotencyKey,
    ...(context.fencingToken === undefined ? {} : { fencingToken: context.fencingToken }),
    // W3C trace context, when telemetry is on: the server's spans join the run's trace.
    ...(context.traceContext?.traceparent ? { traceparent: context.traceContext.traceparent } : {}),
    ...(context.traceContext?.tracestate ? { tracestate: context.traceContext.tracestate } : {}),
  };
}

export function cancelled(): Answer {
  return error('the call was cancelled', { code: 'cancelled' });
}

/**
 * The answer for a `tools/call` that got no result: `lost` when the server went away or did not
 * answer in time (it may have run), else the server's refusal or a malformed answer.
 */
export function failedCall(call: Omit<McpToolCall, 'context' | 'args'>, cause: unknown): Answer {
  const code = (cause as { code?: unknown } | null)?.code;
  const what = `${call.server}, tool ${call.mcpName}`;
  if (McpSignInError.isInstance(cause) || McpAuthorizationRequiredError.isInstance(cause)) {
    // Refused before the server ran it: signing in (OAuth) failed, or waits for a person.
    return error(`Unavailable: ${what}: ${cause.message}; the call was not sent`, { code: 'unavailable' });
  }
  if (code === REQUEST_TIMEOUT) {
    return error(`Lost: ${what}: no answer within ${call.timeoutMs} ms; the call may have run`, { code: 'lost' });
  }
  if (code === CONNECTION_CLOSED || call.connection.ended !== undefined) {
    const why = call.connection.ended ?? describeFailure(cause);
    return error(`Lost: ${what}: the server went away during the call (${why}); the call may have run`, {
      code: 'lost',
    });
  }
  if (typeof code === 'number') {
    // The server's JSON-RPC error: it answered, refusing the call.
    return error(`${what}: the server answered with an error: ${describeFailure(cause)}`);
  }
  if (Array.isArray((cause as { issues?: unknown } | null)?.issues)) {
    return error(`${what}: the server's answer is not a tools/call result: ${describeFailure(cause)}`);
  }
  // The request may not have gone out or its answer may not have come back (a failed fetch, a
  // broken pipe): the call may have run. Check whether the server is still there.
  call.connection.suspect();
  return error(`Lost: ${what}: ${describeFailure(cause)}; the call may have run`, { code: 'lost' });
}
