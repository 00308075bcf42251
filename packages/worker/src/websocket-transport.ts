import type { Socket } from 'node:net';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { invalidRequest, parseFrame } from './frame.js';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './open-socket.js';
import { relateQuestion } from './related-call.js';
import { readListing, WARDRIK_LISTED_METHOD, type WardrikListing } from './wardrik-listed.js';

/** Options of an {@link OutboundWebSocketTransport}. */
export interface OutboundWebSocketTransportOptions {
  /**
   * The largest frame this side sends, in bytes (default 4 MiB; use the `maxPayload` the socket was
   * opened with). A `tools/call` result larger than this is answered with a JSON-RPC error instead.
   */
  readonly maxPayloadBytes?: number;
  /**
   * How often to send a WebSocket ping, in milliseconds (default 30 000; 0 turns it off). A
   * connection that has not answered the previous ping by the next one is dropped, so a silently
   * dead network path is noticed and the worker can reconnect.
   */
  readonly heartbeatIntervalMs?: number;
  /** How long `close()` waits for the closing handshake before dropping the socket (default 1 000 ms). */
  readonly closeTimeoutMs?: number;
  /**
   * For a Wardrik too old to send `notifications/wardrik/listed`: how long after answering a
   * `tools/list` without hearing it `listed` resolves anyway (default 2 000 ms).
   */
  readonly listedTimeoutMs?: number;
}

/** The default of `listedTimeoutMs`. */
export const DEFAULT_LISTED_TIMEOUT_MS = 2_000;

const OPEN = WebSocket.OPEN;
const CONNECTING = WebSocket.CONNECTING;
const CLOSED = WebSocket.CLOSED;

/**
 * An MCP {@link Transport} over a WebSocket that this side opened (to Wardrik), for an MCP server.
 * Each text frame is exactly one JSON-RPC 2.0 message. Frames that arrive before `start()` are
 * kept and delivered when it is called. A malformed frame (binary, not JSON, not JSON-RPC) is
 * reported to `onerror` and dropped; if it was a request with a readable id, it is answered with
 * a JSON-RPC "Invalid Request" error. A frame over `maxPayload` closes the socket with 1009 (ws).
 *
 * `closed` resolves once the transport has closed and `onclose` has been called (exactly once).
 *
 * Wardrik's `notifications/wardrik/listed` (it has registered the tools this side listed) is taken
 * here and never reaches `onmessage`: it goes to `onlisted`, and resolves `listed`. A Wardrik that
 * predates it never sends it; `listed` then resolves (with `undefined`) `listedTimeoutMs` after
 * this side last answered a `tools/list` without hearing it.
 *
 * @example
 * ```ts
 * const { socket, opened } = openWorkerSocket({ url: 'http://127.0.0.1:8080', token })
 * const transport = new OutboundWebSocketTransport(socket)
 * await opened
 * await mcpServer.connect(transport) // calls transport.start()
 * await transport.closed // until the connection ends
 * ```
 */
export class OutboundWebSocketTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Called with each `notifications/wardrik/listed` (after the first listing and after each `list_changed`). */
  onlisted?: ((listing: WardrikListing) => void) | undefined;
  sessionId?: string | undefined;

  /** Resolves once the transport has closed and `onclose` has been called. */
  readonly closed: Promise<void>;
  /**
   * Resolves once Wardrik has registered this side's tools: with what it made of them when it says
   * so (`notifications/wardrik/listed`), or with `undefined` when a Wardrik that never says so had
   * `listedTimeoutMs` since this side last answered a `tools/list`. Never settles if the
   * connection ends first.
   */
  readonly listed: Promise<WardrikListing | undefined>;

  readonly #socket: WebSocket;
  readonly #maxPayloadBytes: number;
  readonly #heartbeatIntervalMs: number;
  readonly #closeTimeoutMs: number;
  readonly #listedTimeoutMs: number;
  #resolveListed: ((listing: WardrikListing | undefined) => void) | undefined;
  /** Ids of `tools/list` requests from Wardrik not answered yet. */
  readonly #listRequests = new Set<string | number>();
  /** Ids of Wardrik's `tasks/result` requests not answered yet (a task's questions come on them). */
  readonly #taskResultRequests = new Set<string | number>();
  readonly #isTaskResult = (requestId: string | number) => this.#taskResultRequests.has(requestId);
  #listedTimer: NodeJS.Timeout | undefined;
  /** Frames that arrived before `start()`; `null` stands for a binary frame. */
  readonly #pending: (string | null)[] = [];
  #started = false;
  #closeNotified = false;
  #resolveClosed!: () => void;
  #heartbeat: NodeJS.Timeout | undefined;
  #alive = true;
  #closeCode: number | undefined;
  #closeReason = '';
  /** The TCP socket under the WebSocket while it is corked (frames sent in one tick go out in one write). */
  #corked: Socket | undefined;
  readonly #uncork = () => {
    const corked = this.#corked;
    this.#corked = undefined;
    corked?.uncork();
  };

  constructor(socket: WebSocket, options: OutboundWebSocketTransportOptions = {}) {
    this.#socket = socket;
    this.#maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.#heartbeatIntervalMs = options.heartbeatIntervalMs ?? 30_000;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 1_000;
    this.#listedTimeoutMs = options.listedTimeoutMs ?? DEFAULT_LISTED_TIMEOUT_MS;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.listed = new Promise((resolve) => {
      this.#resolveListed = resolve;
    });
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => this.#onFrame(data, isBinary));
    socket.on('pong', () => {
      this.#alive = true;
    });
    socket.on('error', (error: Error) => {
      if (this.#started) this.onerror?.(error);
    });
    socket.on('close', (code: number, reason: Buffer) => {
      this.#closeCode = code;
      this.#closeReason = reason.toString('utf8');
      if (this.#started) this.#notifyClose();
    });
  }

  /** The close code of the WebSocket once it has closed (1006 when the connection was lost). */
  get closeCode(): number | undefined {
    return this.#closeCode;
  }

  /** The close reason the peer gave, if any. */
  get closeReason(): string {
    return this.#closeReason;
  }

  /** Whether the transport has closed. */
  get isClosed(): boolean {
    return this.#closeNotified;
  }

  /** Waits for the socket to be open, then delivers the frames that arrived before. */
  async start(): Promise<void> {
    if (this.#started) throw new Error('OutboundWebSocketTransport already started');
    this.#started = true;
    if (this.#socket.readyState === CONNECTING) {
      await new Promise<void>((resolve) => {
        const settle = () => {
          this.#socket.off('open', settle);
          this.#socket.off('close', settle);
          resolve();
        };
        this.#socket.once('open', settle);
        this.#socket.once('close', settle);
      });
    }
    if (this.#socket.readyState !== OPEN) {
      this.#notifyClose();
      throw new Error('the WebSocket to Wardrik closed before the transport started');
    }
    this.#startHeartbeat();
    for (const text of this.#pending.splice(0)) this.#deliver(text);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#socket.readyState !== OPEN) throw new Error('Not connected: the WebSocket to Wardrik is not open');
    const related = relateQuestion(message, options?.relatedRequestId, this.#isTaskResult);
    if (related.type === 'refused') {
      // Answered here, as Wardrik would: it cannot tell which call the question is for.
      queueMicrotask(() => this.onmessage?.(related.answer));
      return;
    }
    let text = JSON.stringify(related.message);
    if (text.length * 3 > this.#maxPayloadBytes) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > this.#maxPayloadBytes) {
        const problem = `message of ${bytes} bytes exceeds the frame limit of ${this.#maxPayloadBytes} bytes`;
        if (!('id' in message && 'result' in message)) throw new Error(`Cannot send: ${problem}`);
        this.onerror?.(new Error(`Answering request ${String(message.id)} with an error: its result ${problem}`));
        text = JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32603, message: `Result too large: ${problem}` },
        });
      }
    }
    this.#cork();
    await new Promise<void>((resolve, reject) => {
      this.#socket.send(text, (error) => (error ? reject(error) : resolve()));
    });
    if ('id' in message && message.id !== undefined && !('method' in message)) {
      this.#taskResultRequests.delete(message.id);
      if (this.#listRequests.delete(message.id)) this.#listAnswered();
    }
  }

  /** A `tools/list` was answered: if Wardrik does not say it listed the tools in time, take it as done. */
  #listAnswered(): void {
    if (!this.#resolveListed || this.#closeNotified) return;
    clearTimeout(this.#listedTimer);
    this.#listedTimer = setTimeout(() => this.#settleListed(undefined), this.#listedTimeoutMs);
    this.#listedTimer.unref();
  }

  #settleListed(listing: WardrikListing | undefined): void {
    clearTimeout(this.#listedTimer);
    this.#listedTimer = undefined;
    const resolve = this.#resolveListed;
    this.#resolveListed = undefined;
    resolve?.(listing);
  }

  /**
   * Holds this tick's frames back and writes them together at its end: answers to pipelined calls
   * then cost one system call, not one each. (ws has no API for this; its socket is `_socket`.)
   */
  #cork(): void {
    if (this.#corked) return;
    const tcp = (this.#socket as unknown as { _socket?: Socket })._socket;
    if (!tcp || typeof tcp.cork !== 'function') return;
    tcp.cork();
    this.#corked = tcp;
    process.nextTick(this.#uncork);
  }

  /** Closes the WebSocket (normal closure, 1000) and resolves once `onclose` has been called. */
  async close(): Promise<void> {
    const socket = this.#socket;
    if (socket.readyState !== CLOSED) {
      const closedNow = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      if (socket.readyState === CONNECTING) {
        socket.terminate();
      } else {
        socket.close(1000, 'worker closing');
      }
      const timer = setTimeout(() => socket.terminate(), this.#closeTimeoutMs);
      await closedNow;
      clearTimeout(timer);
    }
    this.#notifyClose();
  }

  #onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    this.#alive = true;
    const text = isBinary ? null : textOf(data);
    if (this.#started) this.#deliver(text);
    else this.#pending.push(text);
  }

  #deliver(text: string | null): void {
    if (text === null) {
      this.#malformed('binary frames are not accepted: each frame must be one JSON-RPC message as text');
      return;
    }
    const frame = parseFrame(text);
    if (frame.type === 'message') {
      const message = frame.message;
      if ('method' in message) {
        if (message.method === WARDRIK_LISTED_METHOD && !('id' in message)) {
          this.#listed(readListing(message.params));
          return;
        }
        if (message.method === 'tools/list' && 'id' in message) this.#listRequests.add(message.id);
        else if (message.method === 'tasks/result' && 'id' in message) this.#taskResultRequests.add(message.id);
        else if (message.method === 'notifications/cancelled' && !('id' in message)) {
          // Wardrik stopped waiting for the request (the SDK answers nothing to a cancelled one).
          const requestId = message.params?.['requestId'];
          if (typeof requestId === 'string' || typeof requestId === 'number')
            this.#taskResultRequests.delete(requestId);
        }
      }
      this.onmessage?.(message);
      return;
    }
    this.#malformed(frame.reason);
    if (frame.requestId !== undefined && this.#socket.readyState === OPEN) {
      this.#socket.send(JSON.stringify(invalidRequest(frame.requestId, frame.reason)), () => {});
    }
  }

  #listed(listing: WardrikListing): void {
    this.#settleListed(listing);
    try {
      this.onlisted?.(listing);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #malformed(reason: string): void {
    this.onerror?.(new Error(`Malformed frame from Wardrik, dropped: ${reason}`));
  }

  #startHeartbeat(): void {
    if (this.#heartbeatIntervalMs <= 0) return;
    this.#heartbeat = setInterval(() => {
      if (!this.#alive) {
        this.onerror?.(
          new Error(`Wardrik did not answer a ping within ${this.#heartbeatIntervalMs} ms; dropping the connection`),
        );
        this.#socket.terminate();
        return;
      }
      this.#alive = false;
      if (this.#socket.readyState === OPEN) this.#socket.ping();
    }, this.#heartbeatIntervalMs);
    this.#heartbeat.unref();
  }

  #notifyClose(): void {
    if (this.#closeNotified) return;
    this.#closeNotified = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    clearTimeout(this.#listedTimer);
    this.#listRequests.clear();
    this.#taskResultRequests.clear();
    this.#pending.length = 0;
    try {
      this.onclose?.();
    } finally {
      this.#resolveClosed();
    }
  }
}

function textOf(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
