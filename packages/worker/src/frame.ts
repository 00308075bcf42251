import { type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, RPC, readJson } from '@wardrik/core/wire';

/** A frame read as one JSON-RPC message, or why it is not one. */
export type ParsedFrame =
  | { readonly type: 'message'; readonly message: JSONRPCMessage }
  | {
      readonly type: 'malformed';
      readonly reason: string;
      /** The id of a request that could not be read, so that it can be answered with an error. */
      readonly requestId?: RequestId;
    };

const preview = (text: string): string =>
  text.length > 120 ? `${JSON.stringify(text.slice(0, 120))}…` : JSON.stringify(text);

/**
 * Reads one frame of text as one JSON-RPC 2.0 message. The message is the JSON as it came (not a
 * re-serialised copy), so that forwarding it changes nothing. Stricter than the hub's
 * `parseJsonRpcFrame` (`@wardrik/core/wire`, whose JSON reading this shares): a message must be
 * what the MCP SDK's `JSONRPCMessageSchema` accepts.
 *
 * @example
 * ```ts
 * parseFrame('{"jsonrpc":"2.0","id":1,"method":"ping"}') // { type: 'message', message: {...} }
 * parseFrame('hello') // { type: 'malformed', reason: 'frame is not JSON: ...' }
 * ```
 */
export function parseFrame(text: string): ParsedFrame {
  const read = readJson(text);
  if (!read.ok) return { type: 'malformed', reason: `frame is not JSON (${read.reason}): ${preview(text)}` };
  const value = read.value;
  if (isPlainRequest(value)) return { type: 'message', message: value as JSONRPCMessage };
  const checked = JSONRPCMessageSchema.safeParse(value);
  if (checked.success) return { type: 'message', message: value as JSONRPCMessage };
  const requestId = requestIdOf(value);
  return {
    type: 'malformed',
    reason: `frame is not a JSON-RPC 2.0 request, notification or response: ${preview(text)}`,
    ...(requestId === undefined ? {} : { requestId }),
  };
}

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * Whether a value is a JSON-RPC request or notification of the plain shape Wardrik sends
 * (`tools/call`, `ping`, `notifications/cancelled`, …), checked by hand: every frame would
 * otherwise go through the SDK's zod union, which costs more than the rest of reading it. Accepts
 * only what `JSONRPCMessageSchema` accepts; anything else goes to the schema, which decides.
 */
function isPlainRequest(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const message = value;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
  let keys = 2;
  if ('id' in message) {
    if (!isRequestId(message.id)) return false;
    keys += 1;
  }
  if ('params' in message) {
    const params = message.params;
    if (params !== undefined) {
      if (!isJsonObject(params)) return false;
      const meta = params._meta;
      if (meta !== undefined) {
        if (!isJsonObject(meta)) return false;
        const { progressToken } = meta;
        if (progressToken !== undefined && !isRequestId(progressToken)) return false;
        if (RELATED_TASK in meta) return false; // rare: let the schema check it
      }
    }
    keys += 1;
  }
  return Object.keys(message).length === keys; // the schemas are strict: no other keys
}

function isRequestId(id: unknown): boolean {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/** The id of something that looks like a request (it has a method), if it has a usable one. */
function requestIdOf(value: unknown): RequestId | undefined {
  if (typeof value !== 'object' || value === null || !('method' in value) || !('id' in value)) return undefined;
  const id = value.id;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) return id;
  return undefined;
}

/**
 * The JSON-RPC "Invalid Request" error answering a request that could not be read.
 *
 * @example
 * ```ts
 * invalidRequest(7, 'params must be an object') // { jsonrpc: '2.0', id: 7, error: { code: -32600, ... } }
 * ```
 */
export function invalidRequest(id: RequestId, reason: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: RPC.invalidRequest, message: `Invalid request: ${reason}` } };
}
