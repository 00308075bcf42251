import { randomUUID } from 'node:crypto';
import type { McpTool } from '@wardrik/core';
import type { WebSocket } from 'ws';
import type { Principal } from '../auth/types.js';
import { type JsonRpcId, type JsonRpcRequest, type JsonRpcResponse, parseFrame, RPC } from './json-rpc.js';
import { checkListedTool } from './listed-tool.js';

/** How a call sent to a worker came out. */
export type CallOutcome =
  | { readonly type: 'result'; readonly result: unknown }
  | { readonly type: 'lost'; readonly reason: string }
  | { readonly type: 'cancelled' };

/** What a call's `_meta` carries. */
export interface CallMeta {
  readonly agent: string;
  readonly run: string;
  readonly principal: string;
  readonly idempotencyKey: string;
}

/** Timings and limits of a connection. */
export interface ConnectionOptions {
  readonly handshakeTimeoutMs: number;
  readonly pingIntervalMs: number;
  readonly pingTimeoutMs: number;
  /** Protocol faults tolerated before the worker is disconnected. */
  readonly maxFaults: number;
  readonly onTools: (connection: WorkerConnection) => void;
  readonly onClose: (connection: WorkerConnection, reason: string) => void;
  readonly log: (message: string) => void;
}

type Reply = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly reason: string };

interface Pending {
  readonly method: string;
  readonly settle: (reply: Reply) => void;
}

const PROTOCOL_VERSION = '2025-06-18';

/**
 * One worker's connection: Wardrik is the MCP client, the worker the MCP server. Speaks JSON-RPC
 * 2.0 over the WebSocket the worker opened: `initialize`, `tools/list` (again on
 * `notifications/tools/list_changed`), `tools/call` with `_meta`, `notifications/cancelled`, `ping`.
 * Bad frames get protocol errors; a worker that keeps misbehaving or stops answering pings is
 * disconnected, and its calls in flight are lost.
 */
export class WorkerConnection {
  readonly id = `wkr_${randomUUID()}`;
  readonly principal: Principal;
  readonly connectedAt: number;
  /** The tools it offers, by name (valid ones only). */
  tools = new Map<string, McpTool>();
  /** Tools left out of its last list, with why. */
  rejected: Array<{ name: string; reason: string }> = [];
  /** Calls in flight. */
  inflight = 0;
  #socket: WebSocket;
  #options: ConnectionOptions;
  #nextId = 1;
  #pending = new Map<JsonRpcId, Pending>();
  #cancelled = new Set<JsonRpcId>();
  #faults = 0;
  #closed = false;
  #ping: NodeJS.Timeout | undefined;
  #listing: Promise<void> | undefined;

  constructor(socket: WebSocket, principal: Principal, options: ConnectionOptions, now = Date.now()) {
    this.#socket = socket;
    this.principal = principal;
    this.#options = options;
    this.connectedAt = now;
    socket.on('message', (data, isBinary) => this.#receive(isBinary ? null : data.toString()));
    socket.on('close', (code, reason) =>
      this.#lose(`the worker disconnected (${code}${reason.length ? `: ${reason}` : ''})`),
    );
    socket.on('error', (error) => this.#lose(`connection error: ${error.message}`));
  }

  /** Initializes the session and lists the tools. Rejects (and closes) if the worker does not answer. */
  async start(): Promise<void> {
    const init = await this.#request(
      'initialize',
      { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'wardrik', version: '0.1.0' } },
      this.#options.handshakeTimeoutMs,
    );
    if (!init.ok) {
      this.close(1002, `initialize failed: ${init.reason}`);
      throw new Error(`initialize failed: ${init.reason}`);
    }
    this.#notify('notifications/initialized');
    await this.#list();
    this.#ping = setInterval(() => this.#sendPing(), this.#options.pingIntervalMs);
    this.#ping.unref();
  }

  /** Sends `tools/call` and waits for the worker's result; aborting `signal` cancels it. */
  async callTool(name: string, args: unknown, meta: CallMeta, signal: AbortSignal): Promise<CallOutcome> {
    if (this.#closed) return { type: 'lost', reason: 'the worker disconnected' };
    const id = this.#nextId++;
    this.inflight += 1;
    try {
      return await new Promise<CallOutcome>((resolve) => {
        const onAbort = () => {
          this.#pending.delete(id);
          this.#cancelled.add(id);
          this.#notify('notifications/cancelled', { requestId: id, reason: describeAbort(signal.reason) });
          resolve({ type: 'cancelled' });
        };
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        this.#pending.set(id, {
          method: 'tools/call',
          settle: (reply) => {
            signal.removeEventListener('abort', onAbort);
            if (reply.ok) resolve({ type: 'result', result: reply.result });
            else if (reply.reason.startsWith('lost:')) resolve({ type: 'lost', reason: reply.reason.slice(5).trim() });
            else
              resolve({ type: 'result', result: { content: [{ type: 'text', text: reply.reason }], isError: true } });
          },
        });
        this.#send({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: args ?? {}, _meta: { ...meta } },
        });
      });
    } finally {
      this.inflight -= 1;
    }
  }

  /** Closes the connection; calls in flight are lost. */
  close(code = 1000, reason = 'closing'): void {
    if (this.#socket.readyState === this.#socket.OPEN || this.#socket.readyState === this.#socket.CONNECTING) {
      this.#socket.close(code, reason.slice(0, 120));
    }
    this.#lose(reason);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #list(): Promise<void> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const reply = await this.#request('tools/list', cursor ? { cursor } : {}, this.#options.handshakeTimeoutMs);
      if (!reply.ok) throw new Error(`tools/list failed: ${reply.reason}`);
      const result = reply.result as { tools?: unknown; nextCursor?: unknown };
      if (!Array.isArray(result?.tools)) throw new Error('tools/list: the result has no tools array');
      tools.push(...result.tools);
      cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    const accepted = new Map<string, McpTool>();
    const rejected: Array<{ name: string; reason: string }> = [];
    for (const item of tools) {
      const checked = checkListedTool(item);
      const name =
        typeof (item as { name?: unknown })?.name === 'string' ? (item as { name: string }).name : '(no name)';
      if (!checked.ok) rejected.push({ name, reason: checked.reason });
      else if (accepted.has(checked.tool.name)) rejected.push({ name, reason: 'listed twice; the first is kept' });
      else accepted.set(checked.tool.name, checked.tool);
    }
    for (const { name, reason } of rejected)
      this.#options.log(`worker ${this.principal.name}: tool ${name} left out: ${reason}`);
    this.tools = accepted;
    this.rejected = rejected;
    this.#options.onTools(this);
  }

  #relist(): void {
    if (this.#listing) return;
    this.#listing = this.#list()
      .catch((error: Error) => this.#options.log(`worker ${this.principal.name}: ${error.message}`))
      .finally(() => {
        this.#listing = undefined;
      });
  }

  async #sendPing(): Promise<void> {
    const reply = await this.#request('ping', {}, this.#options.pingTimeoutMs);
    if (!reply.ok && !this.#closed) this.close(1011, 'the worker stopped answering pings');
  }

  #request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
    if (this.#closed) return Promise.resolve({ ok: false, reason: 'lost: the worker disconnected' });
    const id = this.#nextId++;
    return new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#cancelled.add(id);
        resolve({ ok: false, reason: `lost: no answer to ${method} within ${timeoutMs} ms` });
      }, timeoutMs);
      this.#pending.set(id, {
        method,
        settle: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
      });
      this.#send({ jsonrpc: '2.0', id, method, params });
    });
  }

  #notify(method: string, params?: Record<string, unknown>): void {
    this.#send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  #send(message: JsonRpcRequest | JsonRpcResponse): void {
    if (this.#closed || this.#socket.readyState !== this.#socket.OPEN) return;
    this.#socket.send(JSON.stringify(message));
  }

  #receive(text: string | null): void {
    if (text === null) {
      this.#fault(null, RPC.invalidRequest, 'binary frames are not used; send JSON text');
      return;
    }
    const parsed = parseFrame(text);
    if (parsed.kind === 'invalid') {
      this.#fault(parsed.id, parsed.code, parsed.reason);
      return;
    }
    if (parsed.kind === 'response') {
      const { id, result, error } = parsed.message;
      const pending = id === null ? undefined : this.#pending.get(id);
      if (!pending) {
        // An answer to a call Wardrik stopped waiting for is dropped; an unknown id is a fault.
        if (id !== null && this.#cancelled.delete(id)) return;
        this.#fault(null, RPC.invalidRequest, `no request has id ${JSON.stringify(id)}`, false);
        return;
      }
      this.#pending.delete(id as JsonRpcId);
      if (error) pending.settle({ ok: false, reason: typeof error.message === 'string' ? error.message : 'error' });
      else pending.settle({ ok: true, result });
      return;
    }
    const { id, method } = parsed.message;
    if (method === 'notifications/tools/list_changed') {
      this.#relist();
      return;
    }
    if (method === 'ping' && id !== undefined) {
      this.#send({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    if (id === undefined) return; // other notifications (progress, message, cancelled) need no answer
    this.#send({
      jsonrpc: '2.0',
      id,
      error: { code: RPC.methodNotFound, message: `Wardrik does not serve ${method}` },
    });
  }

  #fault(id: JsonRpcId | null, code: number, reason: string, answer = true): void {
    this.#faults += 1;
    this.#options.log(`worker ${this.principal.name}: protocol error: ${reason}`);
    if (answer) this.#send({ jsonrpc: '2.0', id, error: { code, message: reason } });
    if (this.#faults > this.#options.maxFaults) this.close(1008, `too many protocol errors (last: ${reason})`);
  }

  #lose(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ping) clearInterval(this.#ping);
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const each of pending) each.settle({ ok: false, reason: `lost: ${reason}` });
    this.#options.onClose(this, reason);
  }
}

function describeAbort(reason: unknown): string {
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled';
}
