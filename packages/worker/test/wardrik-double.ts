import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

/** A JSON-RPC message as the double sees it. */
export type Message = {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** A listed tool, as much of it as the tests look at. */
export type ListedTool = {
  name: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, unknown>; required?: string[] };
  annotations?: Record<string, unknown>;
};

/** An HTTP answer to an upgrade, instead of accepting it. */
export type Refusal = { status: number; body: string };

/**
 * A test double of Wardrik's worker endpoint: a real `ws` server on 127.0.0.1 that checks the
 * bearer token (401 with a problem body if wrong), accepts `/v1/workers` upgrades and hands each
 * connection to the test as a {@link Session}, which plays the MCP client with raw JSON-RPC frames.
 */
export class WardrikDouble {
  readonly url: string;
  /** How many upgrade requests arrived (accepted or not). */
  upgrades = 0;
  /** The Authorization headers of the upgrade requests. */
  readonly authorizations: (string | undefined)[] = [];
  /** Answers an upgrade with HTTP instead of accepting it, when it returns a refusal (after the token check). */
  refuse: ((upgrade: number) => Refusal | undefined) | undefined;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #sessions: Session[] = [];
  readonly #waiting: ((session: Session) => void)[] = [];
  readonly #all: Session[] = [];

  private constructor(http: Server, wss: WebSocketServer, token: string) {
    this.#http = http;
    this.#wss = wss;
    const { port } = http.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrades += 1;
      this.authorizations.push(request.headers.authorization);
      if (new URL(request.url ?? '/', this.url).pathname !== '/v1/workers') {
        return refuse(socket, { status: 404, body: problem(404, 'Not found', 'no such endpoint') });
      }
      if (request.headers.authorization !== `Bearer ${token}`) {
        return refuse(socket, { status: 401, body: problem(401, 'Unauthorized', 'the bearer token is not known') });
      }
      const refusal = this.refuse?.(this.upgrades);
      if (refusal) return refuse(socket, refusal);
      wss.handleUpgrade(request, socket, head, (ws) => {
        const session = new Session(ws);
        this.#all.push(session);
        const waiter = this.#waiting.shift();
        if (waiter) waiter(session);
        else this.#sessions.push(session);
      });
    });
  }

  /** Starts the double on a free port. Workers must present `Bearer <token>`. */
  static async start(token = 'secret-token', maxPayloadBytes = 4 * 1024 * 1024): Promise<WardrikDouble> {
    const http = createServer((_request, response) => response.writeHead(404).end());
    const wss = new WebSocketServer({ noServer: true, maxPayload: maxPayloadBytes });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    return new WardrikDouble(http, wss, token);
  }

  /** The next connection a worker opens (or one already open and not yet taken). */
  nextSession(timeoutMs = 10_000): Promise<Session> {
    const ready = this.#sessions.shift();
    if (ready) return Promise.resolve(ready);
    return withTimeout(
      new Promise<Session>((resolve) => this.#waiting.push(resolve)),
      timeoutMs,
      'no worker connected',
    );
  }

  async close(): Promise<void> {
    for (const session of this.#all) session.socket.terminate();
    this.#wss.close();
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }
}

/** One worker connection, seen from Wardrik's side: the double plays the MCP client by hand. */
export class Session {
  readonly socket: WebSocket;
  /** Every message the worker sent, in order. */
  readonly received: Message[] = [];
  /** Frames the double could not read as JSON. */
  readonly garbage: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #nextId = 1;
  readonly #pending = new Map<string | number, { resolve: (message: Message) => void }>();
  readonly #watchers: { match: (message: Message) => boolean; resolve: (message: Message) => void }[] = [];

  constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => {
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }));
    });
    socket.on('message', (data) => {
      const text = data.toString();
      let message: Message;
      try {
        message = JSON.parse(text) as Message;
      } catch {
        this.garbage.push(text);
        return;
      }
      this.received.push(message);
      if (message.method === 'ping' && message.id !== undefined) {
        this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
      }
      if (message.method === undefined && message.id !== undefined) {
        this.#pending.get(message.id)?.resolve(message);
        this.#pending.delete(message.id);
      }
      for (const watcher of [...this.#watchers]) {
        if (watcher.match(message)) {
          this.#watchers.splice(this.#watchers.indexOf(watcher), 1);
          watcher.resolve(message);
        }
      }
    });
  }

  /** Sends a request and resolves with the whole response (result or error). */
  send(method: string, params?: Record<string, unknown>, id: string | number = this.#nextId++): Promise<Message> {
    const response = new Promise<Message>((resolve) => this.#pending.set(id, { resolve }));
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
    return withTimeout(response, 10_000, `no response to ${method} (id ${id})`);
  }

  /** Sends a request and resolves with its result; rejects if the worker answered with an error. */
  async request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await this.send(method, params);
    if (response.error) throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`);
    return response.result ?? {};
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }));
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary });
  }

  /** The next message from the worker that matches (or one already received). */
  waitFor(match: (message: Message) => boolean, timeoutMs = 10_000, since = 0): Promise<Message> {
    const seen = this.received.slice(since).find(match);
    if (seen) return Promise.resolve(seen);
    return withTimeout(
      new Promise<Message>((resolve) => this.#watchers.push({ match, resolve })),
      timeoutMs,
      'the expected message did not come',
    );
  }

  /** MCP's handshake, as Wardrik does it: initialize, then notifications/initialized. */
  async initialize(): Promise<Record<string, unknown>> {
    const result = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'wardrik', version: '0.1.0' },
    });
    this.notify('notifications/initialized');
    return result;
  }

  /** What Wardrik does once it has registered a listing: `notifications/wardrik/listed`. */
  listed(accepted: number, rejected: { name: string; reason: string }[] = []): void {
    this.notify('notifications/wardrik/listed', { accepted, rejected });
  }

  /** Wardrik's whole handshake: initialize, list the tools, say they are listed. */
  async handshake(): Promise<ListedTool[]> {
    await this.initialize();
    const tools = await this.listTools();
    this.listed(tools.length);
    return tools;
  }

  /** tools/list, following nextCursor. */
  async listTools(): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const result = await this.request('tools/list', cursor ? { cursor } : {});
      tools.push(...(result['tools'] as ListedTool[]));
      cursor = result['nextCursor'] as string | undefined;
    } while (cursor);
    return tools;
  }

  /** tools/call with Wardrik's _meta. */
  callTool(name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<Message> {
    return this.send('tools/call', {
      name,
      arguments: args,
      _meta: { agent: 'support', run: 'run_1', principal: 'acme', idempotencyKey: 'key_1', ...meta },
    });
  }
}

function refuse(socket: Duplex, { status, body }: Refusal): void {
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Refused'}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

export function problem(status: number, title: string, detail: string): string {
  return JSON.stringify({ type: 'https://wardrik.dev/problems/x', title, status, detail });
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Waits until `check` is true, polling. */
export async function eventually(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The `pid` a fixture tool put in its structured result. */
export function pidOf(response: Message): number {
  const structured = response.result?.['structuredContent'] as { pid?: unknown } | undefined;
  if (typeof structured?.pid !== 'number') throw new Error(`no pid in ${JSON.stringify(response)}`);
  return structured.pid;
}

export { WebSocket };
