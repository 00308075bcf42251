import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type * as Ws from 'ws';
import type { WebSocket } from 'ws';
import type { AuthService } from '../auth/auth-service.js';
import { can } from '../auth/permissions.js';
import { loadNow } from '../lazy-package.js';
import type { WorkerHub } from '../workers/worker-hub.js';
import type { ConnectionLimit } from './connection-limit.js';
import { type FieldProblem, problemJson } from './problem.js';
import { parameterProblems, parametersOf } from './query-parameters.js';
import { RESPONSE_HEADERS } from './response-headers.js';
import { TokenConnections } from './token-connections.js';

/** Where workers connect. */
export const WORKER_PATH = '/v1/workers';

/** Options of the worker endpoint. */
export interface WorkerEndpointOptions {
  readonly auth: AuthService;
  readonly hub: WorkerHub;
  /** Largest frame accepted from a worker, in bytes; a larger one closes the connection (1009). Default 4 MiB. */
  readonly maxFrameBytes?: number;
  /** The server's connection limit: an upgrade on a connection over it gets 503. */
  readonly connections?: ConnectionLimit;
  /** How often connected workers' tokens are checked again, in ms (see `ServerLimits.revocationCheckMs`). Default 10 s. */
  readonly revocationCheckMs?: number;
}

/** The close code sent to a worker whose token was revoked: 1008, policy violation. */
const TOKEN_REVOKED_CLOSE_CODE = 1008;

/**
 * Accepts workers' WebSocket connections on `/v1/workers` of a Node HTTP server. A worker
 * authenticates with the bearer token of a principal whose role may serve agents (`worker` or
 * `admin`); a refused upgrade gets 401 or 403 with a problem+json body naming the reason (503 when
 * the server is full). Revoking a worker's token disconnects it (close code 1008, "token revoked").
 *
 * @example
 * ```ts
 * const detach = attachWorkerEndpoint(server, { auth, hub: wardrik.workers })
 * // later
 * detach()
 * ```
 */
export function attachWorkerEndpoint(server: Server, options: WorkerEndpointOptions): () => void {
  const { WebSocketServer } = loadNow<typeof Ws>('ws', 'the worker endpoint (attachWorkerEndpoint)');
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? 4 * 1024 * 1024 });
  const workers = new TokenConnections(options.auth, { recheckMs: options.revocationCheckMs });
  const onUpgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's HTTP server stops listening for errors on a socket it hands to 'upgrade': a client
    // that resets the connection while its token is checked must not crash the process.
    socket.on('error', ignore);
    if (options.connections?.refuses(socket)) return options.connections.answerUpgrade(socket);
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== WORKER_PATH) {
      return refuse(socket, 404, 'not_found', `no WebSocket endpoint at ${url.pathname}`);
    }
    const problems = parameterProblems(parametersOf(url.searchParams), [], `the worker endpoint (${WORKER_PATH})`);
    if (problems.length > 0) {
      const detail = problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
      return refuse(socket, 400, 'invalid_request', detail, problems);
    }
    const bearer = request.headers.authorization ?? '';
    const outcome = await options.auth.authenticate(bearer);
    if (!outcome.ok) return refuse(socket, 401, 'unauthorized', outcome.reason);
    const allowed = can(outcome.principal, 'agent.serve');
    if (!allowed.allowed) return refuse(socket, 403, 'forbidden', allowed.reason);
    if (socket.destroyed) return;
    socket.off('error', ignore);
    sockets.handleUpgrade(request, socket, head, (webSocket) => {
      const release = workers.hold({ tokenId: outcome.tokenId, bearer }, () => disconnect(webSocket));
      webSocket.once('close', release);
      options.hub.accept(webSocket, outcome.principal).catch(() => {
        // The connection logged why it failed and closed itself.
      });
    });
  };
  const listener = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    onUpgrade(request, socket, head).catch(() => socket.destroy());
  };
  server.on('upgrade', listener);
  return () => {
    server.off('upgrade', listener);
    sockets.close();
  };
}

function ignore(): void {}

/**
 * Disconnects a worker whose token was revoked: a close frame saying why, then the socket is
 * ended at once rather than after a close handshake the worker might never finish.
 */
function disconnect(webSocket: WebSocket): void {
  webSocket.close(TOKEN_REVOKED_CLOSE_CODE, 'token revoked');
  webSocket.terminate();
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Invalid request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

function refuse(socket: Duplex, status: number, code: string, detail: string, errors?: readonly FieldProblem[]): void {
  const title = TITLES[status] ?? 'Refused';
  const body = problemJson(status, code, title, detail, errors);
  const headers = Object.entries(RESPONSE_HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n${status === 401 ? 'WWW-Authenticate: Bearer\r\n' : ''}\r\n${body}`,
  );
}
