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
 * it itself. One related to no call is refused here with a JSON-RPC error, since Wardrik answers
 * them only for the call that asks. Any other message is sent as it is.
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
): RelatedQuestion {
  if (!('method' in message) || !('id' in message) || !QUESTION_METHODS.has(message.method)) {
    return { type: 'send', message };
  }
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = isRecord(params['_meta']) ? params['_meta'] : {};
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
          message: `${message.method}: Wardrik answers it only during a tools/call, for the call that asks, and this request relates to none: send it from the tool handler (extra.sendRequest, or pass { relatedRequestId: extra.requestId }), or set params._meta['${RELATED_CALL_META}'] to the call's request id`,
        },
      },
    };
  }
  return {
    type: 'send',
    message: { ...message, params: { ...params, _meta: { ...meta, [RELATED_CALL_META]: related } } } as JSONRPCMessage,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
