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

/** A parsed frame: a message, or what is wrong with it. */
export type Parsed =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'response'; readonly message: JsonRpcResponse }
  | { readonly kind: 'invalid'; readonly code: number; readonly reason: string; readonly id: JsonRpcId | null };

/** Parses one WebSocket text frame as one JSON-RPC 2.0 message, naming what is wrong if it isn't. */
export function parseFrame(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return { kind: 'invalid', code: RPC.parseError, reason: `not JSON: ${(cause as Error).message}`, id: null };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      kind: 'invalid',
      code: RPC.invalidRequest,
      reason: 'a frame must hold one JSON-RPC object (batches are not used)',
      id: null,
    };
  }
  const message = value as Record<string, unknown>;
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
