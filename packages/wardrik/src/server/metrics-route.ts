import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsTokens } from '../telemetry/metrics-tokens.js';
import { send } from './problem.js';
import { RESPONSE_HEADERS } from './response-headers.js';
import type { Route } from './routes.js';

/** What serves metrics: their text and its content type (`enableMetrics` gives one). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
  /** Told how to count the server's open event streams. */
  countEventStreams?(count: () => number): void;
}

/**
 * `GET /metrics` on the API server: metrics for a scraper that sends the metrics token (not an API
 * token) as `Authorization: Bearer <token>`, or any token in `tokenFile` (its lines, read again
 * when it changes: a rotation needs no restart).
 */
export type ServedMetrics = { readonly source: MetricsSource } & (
  | { readonly token: string; readonly tokenFile?: undefined }
  | { readonly tokenFile: string; readonly token?: undefined }
);

/** The `GET /metrics` route: Prometheus' text format, for the bearer of the metrics token only. */
export function metricsRoute(metrics: ServedMetrics): Route {
  const tokens = new MetricsTokens(
    metrics.tokenFile === undefined ? { token: metrics.token } : { tokenFile: metrics.tokenFile },
  );
  return {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (with the metrics token)',
    authenticated: false,
    success: { status: 200, description: 'The metrics, in Prometheus text format 0.0.4.' },
    problems: { 401: 'No Authorization header, or not the metrics token.' },
    handle: async ({ c }) => {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (given === undefined || !tokens.accepts(given)) {
        c.header('www-authenticate', 'Bearer');
        return send(c, 401, 'unauthorized', 'Unauthorized', 'GET /metrics needs Authorization: Bearer <metrics token>');
      }
      return c.body(await metrics.source.render(), 200, { 'content-type': metrics.source.contentType });
    },
  };
}

/** A listening metrics server. */
export interface RunningMetricsServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` alone, with no token, on an address of its own — guarded by where it
 * listens (127.0.0.1 by default, or a private interface the scraper reaches). Anything else: 404.
 *
 * @example
 * ```ts
 * const server = await startMetricsServer({ source: enableMetrics(wardrik), host: '127.0.0.1', port: 9464 })
 * ```
 */
export function startMetricsServer(options: {
  readonly source: MetricsSource;
  readonly host?: string;
  readonly port?: number;
}): Promise<RunningMetricsServer> {
  const host = options.host ?? '127.0.0.1';
  // node:http (with the fetch implementation it loads) costs a bare import of wardrik ~50 ms and ~18 MB: loaded when a server starts.
  const { createServer } = process.getBuiltinModule('node:http');
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain', ...RESPONSE_HEADERS }).end('only GET /metrics here\n');
      return;
    }
    options.source.render().then(
      (text) => response.writeHead(200, { 'content-type': options.source.contentType, ...RESPONSE_HEADERS }).end(text),
      (thrown: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain', ...RESPONSE_HEADERS })
          .end(`metrics failed: ${(thrown as Error).message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 9464, host, () => {
      const { port } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${port}/metrics`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
