import type { ServerOptions as NodeServerOptions, RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as NodeServer from '@hono/node-server';
import { loadLater } from '../lazy-package.js';
import { createMcpEndpoint } from '../mcp-server/mcp-endpoint.js';
import type { McpServerOptions } from '../mcp-server/mcp-options.js';
import { type AppOptions, createApp } from './app.js';
import { ConnectionLimit } from './connection-limit.js';
import { resolveServerLimits, type ServerLimits } from './server-settings.js';
import { attachWorkerEndpoint } from './worker-endpoint.js';

/** Where and how to listen, and the server's limits and timeouts (see {@link ServerLimits}). */
export interface ServerOptions extends AppOptions, ServerLimits {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 4000; 0 picks a free port. */
  readonly port?: number;
  /** Largest WebSocket frame a worker may send, in bytes. Default 4 MiB. */
  readonly maxWorkerFrameBytes?: number;
  /** What `/mcp` offers (default: every agent as a tool, tokens required); `false`: no MCP. */
  readonly mcp?: McpServerOptions | false;
}

/** A listening server. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves the API on Node's HTTP server, with its limits: at most `maxConnections` connections
 * (503 beyond), `maxStreamsPerPrincipal` event streams per principal (429 beyond), and Node's
 * headers, request and keep-alive timeouts. Throws a `RangeError` for a setting that is wrong.
 *
 * @example
 * ```ts
 * const server = await startServer({ wardrik, auth, port: 4000, maxConnections: 2000 })
 * console.log(`listening on ${server.url}`)
 * ```
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { serve } = await loadLater<typeof NodeServer>('@hono/node-server', 'startServer');
  // node:http (with the fetch implementation it loads) costs a bare import of wardrik ~50 ms and ~18 MB: loaded when a server starts.
  const { createServer } = process.getBuiltinModule('node:http');
  const limits = resolveServerLimits(options);
  const host = options.host ?? '127.0.0.1';
  const mcpEndpoint =
    options.mcp === false
      ? undefined
      : createMcpEndpoint({
          ...options.mcp,
          wardrik: options.wardrik,
          auth: options.auth,
          listenHost: host,
          ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
        });
  const app = createApp({ ...options, ...limits, ...(mcpEndpoint ? { mcpEndpoint } : {}) });
  const connections = new ConnectionLimit(limits.maxConnections);
  const createLimitedServer = (nodeOptions: NodeServerOptions, listener: RequestListener) =>
    createServer(nodeOptions, (request, response) => {
      if (connections.refuses(request.socket)) connections.answer(response);
      else listener(request, response);
    });
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port: options.port ?? 4000,
        createServer: createLimitedServer as typeof createServer,
        serverOptions: nodeTimeouts(limits),
      },
      (info: AddressInfo) => {
        const shownHost = host.includes(':') ? `[${host}]` : host;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              void mcpEndpoint?.close();
              detach();
              options.wardrik.workers.close();
              server.close(() => done());
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    ) as Server;
    connections.attach(server);
    const detach = attachWorkerEndpoint(server, {
      auth: options.auth,
      hub: options.wardrik.workers,
      connections,
      revocationCheckMs: limits.revocationCheckMs,
      ...(options.maxWorkerFrameBytes ? { maxFrameBytes: options.maxWorkerFrameBytes } : {}),
    });
    server.once('error', reject);
  });
}

/**
 * Node's timeouts for the limits. Node checks the headers and request timeouts every
 * `connectionsCheckingInterval` (30 s by default, which would let a 10 s headers timeout run to
 * 40 s): check at a quarter of the shorter one, at most every second. They bound receiving a
 * request only: an answer that takes long (an event stream, a `wait: true` start) is not cut.
 */
function nodeTimeouts(limits: Required<ServerLimits>): NodeServerOptions {
  const shorter = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(shorter / 4))),
  };
}
