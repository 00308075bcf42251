import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { startConnectionLoop, type WorkerConnection, type WorkerConnectionOptions } from './connection-loop.js';

/**
 * An MCP server that can serve as a worker: `McpServer` (from
 * `@modelcontextprotocol/sdk/server/mcp.js`) or the low-level `Server` (from
 * `@modelcontextprotocol/sdk/server/index.js`). Only `connect` and `close` are used.
 */
export interface WorkerServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link connectWorker}. */
export interface ConnectWorkerOptions extends WorkerConnectionOptions {
  /** The MCP server whose tools the worker offers. The same object is connected again after each reconnect. */
  readonly server: WorkerServer;
}

/**
 * Connects an MCP server to Wardrik as a worker, over a WebSocket that this side opens to
 * `<url>/v1/workers` with `Authorization: Bearer <token>`. Wardrik is the MCP client: it sends
 * `initialize`, lists the tools and calls them with `_meta: { progressToken, agent, run, principal,
 * idempotencyKey, labels }`, which a tool handler sees as `extra._meta`; `notifications/cancelled`
 * aborts the handler's `extra.signal`. Progress a handler reports with `extra.sendNotification`
 * (`notifications/progress` for `extra._meta.progressToken`) goes to Wardrik, which shows it to
 * the run's followers and starts the call's timeout again.
 *
 * When the connection is lost it reconnects with exponential backoff and jitter: a fresh
 * WebSocket and transport, and the same server object connected to it again (the SDK's
 * `Protocol` forgets a transport once it has closed, so `connect` can be called again; Wardrik
 * then initializes and lists anew). Calls in flight when the connection drops have their
 * `extra.signal` aborted and their answers are lost: Wardrik treats them as lost. A 401 or 403
 * from Wardrik is not retried: `ready` rejects with its reason.
 *
 * `ready` resolves once Wardrik has listed the tools and registered them (it tells the worker
 * with `notifications/wardrik/listed`, which the transport takes and the MCP server never sees):
 * a run started after `await worker.ready` is offered them from its first model step. `onListed`
 * hears each listing (how many tools were accepted, which were left out and why).
 *
 * An `McpServer` registers the tools capability with its first tool, and capabilities cannot be
 * changed while connected: register at least one tool before connecting if you add tools later
 * (each later `registerTool`, `enable`, `disable` or `remove` sends `notifications/tools/list_changed`).
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
 * import { z } from 'zod'
 * import { connectWorker } from '@wardrik/worker'
 *
 * const server = new McpServer({ name: 'orders', version: '1.0.0' })
 * server.registerTool(
 *   'refund_order',
 *   {
 *     description: 'Refund an order in full.',
 *     inputSchema: { orderId: z.string() },
 *     annotations: { destructiveHint: false, idempotentHint: true },
 *   },
 *   async ({ orderId }, extra) => {
 *     const key = extra._meta?.idempotencyKey // the same on every retry of this call
 *     await refunds.refund(orderId, { idempotencyKey: String(key), signal: extra.signal })
 *     return { content: [{ type: 'text', text: `refunded ${orderId}` }] }
 *   },
 * )
 *
 * const worker = connectWorker({ url: 'https://wardrik.example.com', token: process.env.WARDRIK_TOKEN!, server })
 * await worker.ready // Wardrik has the tools; rejects at once on a bad token
 * process.on('SIGTERM', () => worker.close())
 * ```
 */
export function connectWorker(options: ConnectWorkerOptions): WorkerConnection {
  const { server } = options;
  return startConnectionLoop({
    ...options,
    attach: (transport) => server.connect(transport),
  });
}
