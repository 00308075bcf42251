import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The `_meta` key of a server's `elicitation/create` or `sampling/createMessage` that tells Wardrik
 * which of its `tools/call` requests the question is for (the id Wardrik gave that request). The
 * worker's transport sets it from the MCP SDK's `relatedRequestId`; a server behind a bridge (which
 * cannot tell) may set it itself.
 *
 * @example
 * ```ts
 * import { RELATED_CALL_META } from '@wardrik/worker'
 *
 * // In a tool handler of a server whose transport does not relate requests (the `tools/call` id is `extra.requestId`):
 * const params = { message: 'Which account?', requestedSchema: { type: 'object', properties: {} }, _meta: { [RELATED_CALL_META]: 7 } }
 * ```
 */
export const RELATED_CALL_META = 'wardrik/related-call';

/**
 * The `_meta` key (MCP's) of a request a server sends for one of its tasks: `{ taskId }`. The MCP
 * SDK sets it on what a task handler sends with `{ relatedTask }`, and delivers such a request
 * while Wardrik waits on the task's `tasks/result`.
 */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The requests a worker's server may send Wardrik during a call: a person's input, the agent's model. */
export const QUESTION_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage']);

/** A message to send to Wardrik, or the error answer to give the server instead. */
export type RelatedQuestion =
  | { readonly type: 'send'; readonly message: JSONRPCMessage }
  | { readonly type: 'refused'; readonly answer: JSONRPCMessage };

/**
 * Readies a message from the server for Wardrik. An `elicitation/create` or
 * `sampling/createMessage` is sent with `_meta['wardrik/related-call']`: the `tools/call` it
 * relates to (the MCP SDK's `relatedRequestId`, which a tool handler's `extra.sendRequest` sets, as
 * does `server.elicitInput(params, { relatedRequestId: extra.requestId })`), unless the server set
 * it itself. One the server sends for one of its MCP tasks (`_meta['io.modelcontextprotocol/related-task']`,
 * as the SDK sets it for `{ relatedTask }`) is sent as it is, with that `_meta`, when it comes on
 * Wardrik's `tasks/result` (`isTaskResult(relatedRequestId)`) or with no request related: Wardrik
 * asks a person for the task. One related to no call and no task is refused here with a JSON-RPC
 * error, since Wardrik answers them only for the call or task that asks. Any other message is sent
 * as it is.
 *
 * @example
 * ```ts
 * const ready = relateQuestion(
 *   { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { message: 'Which account?', requestedSchema: { type: 'object', properties: {} } } },
 *   7,
 * )
 * // { type: 'send', message: { …, params: { …, _meta: { 'wardrik/related-call': 7 } } } }
 * ```
 */
export function relateQuestion(
  message: JSONRPCMessage,
  relatedRequestId: string | number | undefined,
  isTaskResult: (requestId: string | number) => boolean = () => false,
): RelatedQuestion {
  if (!('method' in message) || !('id' in message) || !QUESTION_METHODS.has(message.method)) {
    return { type: 'send', message };
  }
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = isRecord(params['_meta']) ? params['_meta'] : {};
  if (
    relatedTaskId(meta) !== undefined &&
    meta[RELATED_CALL_META] === undefined &&
    (relatedRequestId === undefined || isTaskResult(relatedRequestId))
  ) {
    // For one of the server's tasks, on Wardrik's tasks/result (or related to no request): Wardrik
    // finds whom to ask by the task; naming the tasks/result request as a call would mislead it.
    return { type: 'send', message };
  }
  const related = relatedRequestId ?? meta[RELATED_CALL_META];
  if (typeof related !== 'string' && typeof related !== 'number') {
    return {
      type: 'refused',
      answer: {
        jsonrpc: '2.0',
        id: message.id,
        error: {
          // As Wardrik answers it without a call named: it serves no such method outside a call.
          code: -32601,
          message: `${message.method}: Wardrik answers it only during a tools/call, for the call that asks (or for a task of this server's that waits for input), and this request relates to none: send it from the tool handler (extra.sendRequest, or pass { relatedRequestId: extra.requestId }), or set params._meta['${RELATED_CALL_META}'] to the call's request id; for a task, send it with { relatedTask: { taskId } }`,
        },
      },
    };
  }
  return {
    type: 'send',
    message: { ...message, params: { ...params, _meta: { ...meta, [RELATED_CALL_META]: related } } } as JSONRPCMessage,
  };
}

/** The task a request's `_meta` names (`io.modelcontextprotocol/related-task`), if it names one. */
export function relatedTaskId(meta: Readonly<Record<string, unknown>>): string | undefined {
  const related = meta[RELATED_TASK_META];
  const taskId = isRecord(related) ? related['taskId'] : undefined;
  return typeof taskId === 'string' && taskId !== '' ? taskId : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
