/*
 * What both ends of a worker connection need alike: reading a frame as JSON-RPC, and how long to
 * wait before trying again. Shared by `wardrik` (the workers hub, toolsets, the run loop's retries)
 * and `@wardrik/worker`; kept out of the main `@wardrik/core` entry, which is the tool API.
 * No I/O and no dependencies.
 */
export { backoffDelay, type RetryPolicy } from './backoff.js';
export {
  isJsonObject,
  type JsonRpcFrame,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  parseJsonRpcFrame,
  type ReadJson,
  RPC,
  readJson,
} from './json-rpc.js';
