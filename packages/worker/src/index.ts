export { stopChildProcesses } from '@wardrik/core/child-processes';
export { backoffDelay, type ReconnectOptions, type ReconnectPolicy, reconnectPolicy } from './backoff.js';
export { type Bridge, type BridgeOptions, startBridge } from './bridge.js';
export { BRIDGE_USAGE, type BridgeArguments, parseBridgeArguments, UsageError } from './bridge-arguments.js';
export { type ChildExit, ChildProcessTransport, type ChildProcessTransportOptions } from './child-process-transport.js';
export { type ConnectWorkerOptions, connectWorker, type WorkerServer } from './connect-worker.js';
export {
  type ConnectionLoopOptions,
  startConnectionLoop,
  type WorkerConnection,
  type WorkerConnectionOptions,
  type WorkerStatus,
  type WorkerStatusEvent,
} from './connection-loop.js';
export { WORKERS_PATH, workerEndpoint } from './endpoint.js';
export { WorkerError, type WorkerErrorCode } from './errors.js';
export { invalidRequest, type ParsedFrame, parseFrame } from './frame.js';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  type OpeningSocket,
  type OpenWorkerSocketOptions,
  openWorkerSocket,
} from './open-socket.js';
export { RELATED_CALL_META } from './related-call.js';
export { readListing, WARDRIK_LISTED_METHOD, type WardrikListing } from './wardrik-listed.js';
export {
  DEFAULT_LISTED_TIMEOUT_MS,
  OutboundWebSocketTransport,
  type OutboundWebSocketTransportOptions,
} from './websocket-transport.js';
