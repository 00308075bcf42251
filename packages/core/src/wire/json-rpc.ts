/** A JSON-RPC 2.0 id. */
export type JsonRpcId = string | number;

/** A request (with an id) or notification (without). */
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id?: JsonRpcId;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** A response: a result or an error. */
export interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId | null;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** Standard JSON-RPC error codes. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
} as const;

/** A frame read as one JSON-RPC message: a request, a response, or what is wrong with it. */
export type JsonRpcFrame =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'response'; readonly message: JsonRpcResponse }
  | { readonly kind: 'invalid'; readonly code: number; readonly reason: string; readonly id: JsonRpcId | null };

/** Text read as JSON: the value, or the parser's complaint. */
export type ReadJson = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * Reads one frame of text as JSON.
 *
 * @example
 * ```ts
 * readJson('{"a":1}') // { ok: true, value: { a: 1 } }
 * readJson('hello') // { ok: false, reason: 'Unexpected token ...' }
 * ```
 */
export function readJson(text: string): ReadJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (cause) {
    return { ok: false, reason: (cause as Error).message };
  }
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads one frame of text as one JSON-RPC 2.0 message, naming what is wrong if it isn't, with the
 * error code to answer with and the id to answer to.
 *
 * @example
 * ```ts
 * parseJsonRpcFrame('{"jsonrpc":"2.0","id":1,"method":"ping"}') // { kind: 'request', message: {...} }
 * parseJsonRpcFrame('[]') // { kind: 'invalid', code: -32600, reason: 'a frame must hold one ...', id: null }
 * ```
 */
export function parseJsonRpcFrame(text: string): JsonRpcFrame {
  const read = readJson(text);
  if (!read.ok) return { kind: 'invalid', code: RPC.parseError, reason: `not JSON: ${read.reason}`, id: null };
  const message = read.value;
  if (!isJsonObject(message)) {
    return {
      kind: 'invalid',
      code: RPC.invalidRequest,
      reason: 'a frame must hold one JSON-RPC object (batches are not used)',
      id: null,
    };
  }
  const id = message.id;
  const validId = typeof id === 'string' || typeof id === 'number' ? id : null;
  if (message.jsonrpc !== '2.0')
    return { kind: 'invalid', code: RPC.invalidRequest, reason: 'jsonrpc must be "2.0"', id: validId };
  if (typeof message.method === 'string') {
    if (id !== undefined && validId === null) {
      return { kind: 'invalid', code: RPC.invalidRequest, reason: 'id must be a string or a number', id: null };
    }
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) {
      return { kind: 'invalid', code: RPC.invalidParams, reason: 'params must be an object', id: validId };
    }
    return { kind: 'request', message: message as unknown as JsonRpcRequest };
  }
  if ('result' in message || 'error' in message) {
    if (validId === null)
      return { kind: 'invalid', code: RPC.invalidRequest, reason: 'a response needs the id of its request', id: null };
    return { kind: 'response', message: message as unknown as JsonRpcResponse };
  }
  return {
    kind: 'invalid',
    code: RPC.invalidRequest,
    reason: 'neither a request (method) nor a response (result or error)',
    id: validId,
  };
}
