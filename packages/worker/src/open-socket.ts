import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { workerEndpoint } from './endpoint.js';
import { WorkerError } from './errors.js';

/** The default largest frame either side may send: 4 MiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** How to open a worker's WebSocket to Wardrik. */
export interface OpenWorkerSocketOptions {
  /** Wardrik's base URL (`http(s)://…`); the endpoint is `<url>/v1/workers`. */
  readonly url: string | URL;
  /** A bearer token of a principal whose scope may serve agents as a worker. */
  readonly token: string;
  /** The largest frame accepted from Wardrik, in bytes (default 4 MiB). A larger one closes the connection with 1009. */
  readonly maxPayloadBytes?: number;
  /** How long the opening handshake may take, in milliseconds (default 10 000). */
  readonly handshakeTimeoutMs?: number;
}

/** A WebSocket being opened, and the promise that it opens. */
export interface OpeningSocket {
  readonly socket: WebSocket;
  /** Resolves once the socket is open; rejects with a {@link WorkerError} (refused) or the network error. */
  readonly opened: Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024;

/**
 * Starts opening a WebSocket to Wardrik's worker endpoint with `Authorization: Bearer <token>`.
 * The socket is returned at once so that listeners can be attached before any frame arrives.
 * If Wardrik refuses the upgrade, `opened` rejects with a {@link WorkerError} carrying the HTTP
 * status and the reason from Wardrik's problem body.
 *
 * @example
 * ```ts
 * const { socket, opened } = openWorkerSocket({ url: 'http://127.0.0.1:8080', token })
 * const transport = new OutboundWebSocketTransport(socket)
 * await opened
 * await server.connect(transport)
 * ```
 */
export function openWorkerSocket(options: OpenWorkerSocketOptions): OpeningSocket {
  const endpoint = workerEndpoint(options.url);
  const socket = new WebSocket(endpoint, {
    headers: { authorization: `Bearer ${options.token}` },
    maxPayload: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
    handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
    perMessageDeflate: false,
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    // ws emits 'error' without a listener as an uncaught exception: always listen.
    socket.on('error', (error) => reject(error));
    socket.once('close', () => reject(new Error(`the connection to ${endpoint.href} closed before it opened`)));
    socket.once('unexpected-response', (request, response) => {
      readBody(response).then((body) => {
        reject(refusal(endpoint, response.statusCode ?? 0, response.statusMessage ?? '', body));
        request.destroy();
        socket.terminate();
      });
    });
  });
  opened.catch(() => {}); // handled by whoever awaits it; never an unhandled rejection
  return { socket, opened };
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size < MAX_BODY_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    const done = () => resolve(Buffer.concat(chunks).toString('utf8').slice(0, MAX_BODY_BYTES));
    response.once('end', done);
    response.once('error', done);
    response.once('close', done);
  });
}

/** The error for a refused upgrade, with the reason taken from an RFC 9457 problem body if there is one. */
function refusal(endpoint: URL, status: number, statusText: string, body: string): WorkerError {
  const reason = reasonOf(body);
  const code = status === 401 ? 'worker_unauthorized' : status === 403 ? 'worker_forbidden' : 'worker_rejected';
  const summary = `Wardrik refused the worker connection to ${endpoint.href} (${status}${statusText ? ` ${statusText}` : ''})`;
  return new WorkerError(code, reason ? `${summary}: ${reason}` : summary, {
    status,
    ...(reason ? { reason } : {}),
  });
}

function reasonOf(body: string): string | undefined {
  const text = body.trim();
  if (text === '') return undefined;
  try {
    const problem: unknown = JSON.parse(text);
    if (typeof problem === 'object' && problem !== null) {
      const field = (key: string): string | undefined => {
        const value = (problem as Record<string, unknown>)[key];
        return typeof value === 'string' && value !== '' ? value : undefined;
      };
      const title = field('title');
      const detail = field('detail') ?? field('message') ?? field('error');
      if (title && detail && title !== detail) return `${title}: ${detail}`;
      if (title ?? detail) return title ?? detail;
    }
  } catch {
    // not JSON: use the text
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
