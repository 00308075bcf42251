import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type AppOptions, createApp } from './app.js';
import { attachWorkerEndpoint } from './worker-endpoint.js';

/** Where and how to listen. */
export interface ServerOptions extends AppOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 4000; 0 picks a free port. */
  readonly port?: number;
  /** Largest WebSocket frame a worker may send, in bytes. Default 4 MiB. */
  readonly maxWorkerFrameBytes?: number;
}

/** A listening server. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves the API on Node's HTTP server.
 *
 * @example
 * ```ts
 * const server = await startServer({ wardrik, auth, port: 4000 })
 * console.log(`listening on ${server.url}`)
 * ```
 */
export function startServer(options: ServerOptions): Promise<RunningServer> {
  const app = createApp(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 4000 }, (info: AddressInfo) => {
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            detach();
            options.wardrik.workers.close();
            server.close(() => done());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    const detach = attachWorkerEndpoint(server as Server, {
      auth: options.auth,
      hub: options.wardrik.workers,
      ...(options.maxWorkerFrameBytes ? { maxFrameBytes: options.maxWorkerFrameBytes } : {}),
    });
    server.once('error', reject);
  });
}
