import { type ElicitRequest, type ElicitResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type CompiledSchema, compileSchema, type InputQuestion, type InputReply } from '@wardrik/core';
import type { CallInFlight } from './mcp-calls-in-flight.js';

/** What answering one of a server's requests during a call is given. */
export interface AskingCall {
  /** The call the request belongs to. */
  readonly call: CallInFlight;
  /** Aborted when the request is cancelled, the call stops, or the toolset closes. */
  readonly signal: AbortSignal;
}

/**
 * Answers a server's `elicitation/create` through the asking call's `context.requestInput`: form
 * mode asks the person to fill in the requested schema, url mode shows them the URL. An accepted
 * form's content gets the schema's defaults for the fields it lacks (SEP-1034) and must then fit
 * the schema; if it does not, the server is answered with an error naming the field (never the
 * content). Throws an `McpError` (the server's answer) when the request can't be answered.
 *
 * @example
 * ```ts
 * const result = await answerElicitation(request.params, { call, signal })
 * ```
 */
export async function answerElicitation(params: ElicitRequest['params'], asking: AskingCall): Promise<ElicitResult> {
  if ((params as { task?: unknown }).task !== undefined) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'Wardrik does not answer task-augmented elicitation/create (it declares no tasks for elicitation): send it without params.task',
    );
  }
  if (params.mode === 'url') {
    const question: InputQuestion = {
      mode: 'url',
      message: params.message,
      url: params.url,
      elicitationId: params.elicitationId,
    };
    const reply = await ask(question, asking);
    // A URL-mode answer carries no content: the person did what the page asked there.
    return { action: reply.action };
  }
  const requested = params.requestedSchema as Record<string, unknown>;
  let schema: CompiledSchema;
  try {
    schema = compileSchema(requested as Parameters<typeof compileSchema>[0]);
  } catch (cause) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `elicitation/create: requestedSchema is not a schema Wardrik can check answers against: ${(cause as Error).message}`,
    );
  }
  const reply = await ask({ mode: 'form', message: params.message, schema: requested }, asking);
  if (reply.action !== 'accept') return { action: reply.action };
  const given = reply.content ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new McpError(ErrorCode.InternalError, 'elicitation/create: the answer accepted is not an object of fields');
  }
  // Checking fills in the defaults of the fields the answer lacks (SEP-1034), on a copy.
  const checked = await schema.validate({ ...given });
  if (!checked.ok) {
    const fields = checked.issues.map((issue) => describeIssue(issue.path, issue.message));
    throw new McpError(
      ErrorCode.InternalError,
      `elicitation/create: the answer does not fit the requested schema: ${fields.join('; ')}`,
    );
  }
  return { action: 'accept', content: checked.value as ElicitResult['content'] };
}

/** Asks the call's person; a refusal (no runtime, the call stopped) is the server's error answer. */
async function ask(question: InputQuestion, asking: AskingCall): Promise<InputReply> {
  let reply: InputReply;
  try {
    reply = await asking.call.context.requestInput(question, { signal: asking.signal });
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new McpError(ErrorCode.InternalError, `elicitation/create was not answered: ${why}`);
  }
  const action = (reply as { action?: unknown } | null)?.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    throw new McpError(
      ErrorCode.InternalError,
      `elicitation/create: the reply's action must be accept, decline or cancel, got ${JSON.stringify(action)}`,
    );
  }
  return reply;
}

/** An issue as the server is told it: the field and what was expected, without the value given. */
function describeIssue(path: string, message: string): string {
  const expected = message.replace(/, got [\s\S]*$/, '');
  return path === '' ? expected : `field ${JSON.stringify(path)} ${expected}`;
}
