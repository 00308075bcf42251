import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { problemJson, RETRY_AFTER_SECONDS } from './problem.js';
import { RESPONSE_HEADERS } from './response-headers.js';

/**
 * A server-wide limit on open connections. Each connection accepted while `limit` others are open
 * is marked: its first request (or WebSocket upgrade) is answered 503 with a problem body naming
 * the limit and `Retry-After`, and the connection is closed. One that never sends a request is
 * closed by the server's headers timeout. Node's own `maxConnections` is set at twice the limit,
 * so a flood beyond that is dropped at once without an answer.
 *
 * @example
 * ```ts
 * const limit = new ConnectionLimit(1000)
 * limit.attach(server)
 * // in the request listener:
 * if (limit.refuses(request.socket)) return limit.answer(response)
 * ```
 */
export class ConnectionLimit {
  readonly limit: number;
  #admitted = 0;
  readonly #refused = new WeakSet<Duplex>();

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Connections open now and within the limit. */
  get admitted(): number {
    return this.#admitted;
  }

  /** Counts `server`'s connections from now on. */
  attach(server: Server): void {
    server.maxConnections = this.limit * 2;
    server.on('connection', (socket: Socket) => this.#count(socket));
  }

  /** Whether `socket` came over the limit (and its requests must be refused). */
  refuses(socket: Duplex): boolean {
    return this.#refused.has(socket);
  }

  /** Answers a request that came over the limit: 503, and the connection closes. */
  answer(response: ServerResponse): void {
    const body = this.#body();
    response.writeHead(503, {
      ...this.#headers(),
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    });
    response.end(body);
  }

  /** Answers a WebSocket upgrade that came over the limit, on its raw socket, and closes it. */
  answerUpgrade(socket: Duplex): void {
    const body = this.#body();
    const headers = Object.entries({ ...this.#headers(), 'content-length': String(Buffer.byteLength(body)) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 503 Service Unavailable\r\n${headers}connection: close\r\n\r\n${body}`);
  }

  #count(socket: Socket): void {
    if (this.#admitted >= this.limit) {
      this.#refused.add(socket);
      return;
    }
    this.#admitted += 1;
    socket.once('close', () => {
      this.#admitted -= 1;
    });
  }

  #headers(): Record<string, string> {
    return {
      'content-type': 'application/problem+json',
      'retry-after': String(RETRY_AFTER_SECONDS),
      ...RESPONSE_HEADERS,
    };
  }

  #body(): string {
    return problemJson(
      503,
      'server_full',
      'Server full',
      `the server has ${this.limit} connections open, the most it accepts ` +
        '(setting maxConnections, server.maxConnections in the config); retry later',
    );
  }
}
