import type { McpTool } from '@wardrik/core';
import type { Principal } from '../auth/types.js';
import type { CallOutcome } from './pending-call.js';
import type { ToolCall } from './worker-connection.js';

/**
 * A worker as the hub routes calls to it, wherever it is connected: a `WorkerConnection` on this
 * node, or a `RemoteWorker` whose calls go through the store to the node it is connected to.
 * Routing (who may serve an agent, the first connected principal, the least busy worker) sees
 * both alike.
 */
export interface RoutedWorker {
  readonly id: string;
  readonly principal: Principal;
  /** When it connected (ms; the store's clock once known, so that every node orders workers alike). */
  readonly connectedAt: number;
  /** The tools it offers, by name (valid ones only). */
  readonly tools: ReadonlyMap<string, McpTool>;
  /** The name the model sees for each tool it offers, by the tool's name. */
  readonly modelNames: ReadonlyMap<string, string>;
  /** Tools it listed that are left out, with why. */
  readonly rejected: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
  /** Calls in flight on it (for a worker on another node: as well as this node knows). */
  readonly inflight: number;
  /** Gone: no call may be routed to it. */
  readonly closed: boolean;
  /** Sends it a `tools/call` and waits for the outcome (see `CallOutcome`). */
  callTool(call: ToolCall): Promise<CallOutcome>;
}
