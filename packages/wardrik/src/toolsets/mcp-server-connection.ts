import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CONNECTION_CLOSED, describeFailure, REQUEST_TIMEOUT } from './describe-failure.js';
import type { McpServerSpec } from './mcp-toolset-options.js';
import { createServerTransport, type ServerTransport } from './mcp-transport.js';

/** A `tools/list` result as read here: each tool is checked on its own, so one bad tool does not lose the rest. */
const ListResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** A listing longer than this many pages is taken for a server that loops. */
const MAX_PAGES = 100;

/** How long a server that reported a transport error has to answer a ping before it is taken for gone. */
const PROBE_TIMEOUT_MS = 5_000;

/** What a connection is opened with. */
export interface ConnectionOptions {
  readonly server: McpServerSpec;
  /** How messages name the server, e.g. `MCP server fs (node server.js)`. */
  readonly description: string;
  /** How long connecting (and each listing) may take (ms). */
  readonly timeoutMs: number;
  /** Aborted when the toolset closes: connecting and listing stop. */
  readonly signal: AbortSignal;
  /** The server said its tools changed (`notifications/tools/list_changed`). */
  readonly onToolsChanged: () => void;
  /** The connection ended without `close()` being called, and why. Called at most once, and only once open. */
  readonly onLost: (reason: string) => void;
}

/** What one tool call sends. */
export interface CallRequest {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly onProgress: (progress: { progress: number; total?: number; message?: string }) => void;
}

/**
 * One connection to an MCP server through the official SDK client: initialized, listing tools,
 * calling them, told when the server's tools change, and noticing when the server goes away (a
 * child that exits; an HTTP server that stops answering once its stream broke).
 */
export class McpServerConnection {
  readonly #client: Client;
  readonly #server: ServerTransport;
  readonly #options: ConnectionOptions;
  #open = false;
  #ended: string | undefined;
  #lastError: string | undefined;
  #lastErrorCause: unknown;
  #probing = false;

  private constructor(client: Client, server: ServerTransport, options: ConnectionOptions) {
    this.#client = client;
    this.#server = server;
    this.#options = options;
  }

  /**
   * Starts the server (stdio) or reaches it (HTTP) and initializes the session. Rejects with an
   * `Error` naming the server and why (a command not found, no answer in time, the process exited
   * with what it wrote to stderr).
   */
  static async open(options: ConnectionOptions): Promise<McpServerConnection> {
    const server = createServerTransport(options.server);
    const client = new Client({ name: 'wardrik', version: '0.1.0' }, { capabilities: {} });
    const connection = new McpServerConnection(client, server, options);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (connection.#open) options.onToolsChanged();
    });
    client.onclose = () => connection.#closed();
    client.onerror = (error) => connection.#transportError(error);
    try {
      options.signal.throwIfAborted();
      await client.connect(server.transport, { timeout: options.timeoutMs, signal: options.signal });
    } catch (cause) {
      const reason = connection.explain(`could not connect`, cause);
      await connection.close();
      throw new Error(reason, { cause });
    }
    connection.#open = true;
    if (connection.#ended !== undefined) throw new Error(connection.explain('could not connect', connection.#ended));
    return connection;
  }

  /** Why the connection ended, or undefined while it is up. */
  get ended(): string | undefined {
    return this.#ended;
  }

  /** The child process's id (stdio), while it runs. */
  get pid(): number | undefined {
    return this.#server.pid();
  }

  /** Every tool the server lists, page after page, unchecked. */
  async listTools(): Promise<unknown[]> {
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#client.request(
        { method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) },
        ListResult,
        { timeout: this.#options.timeoutMs, signal: this.#options.signal },
      );
      items.push(...result.tools);
      if (result.nextCursor === undefined || result.nextCursor === '') return items;
      cursor = result.nextCursor;
    }
    throw new Error(`its tools/list went on for more than ${MAX_PAGES} pages`);
  }

  /** Sends `tools/call`. Aborting `signal` sends `notifications/cancelled`; rejects as the SDK does. */
  callTool(request: CallRequest): Promise<CallToolResult> {
    return this.#client.callTool({ name: request.name, arguments: request.arguments, _meta: request.meta }, undefined, {
      signal: request.signal,
      timeout: request.timeoutMs,
      onprogress: ({ progress, total, message }) =>
        request.onProgress({
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
    }) as Promise<CallToolResult>;
  }

  /**
   * A call or a listing failed in a way that may mean the server is gone (not an answer from it):
   * ask it for a ping, and end the connection if it does not answer.
   */
  suspect(): void {
    if (!this.#open || this.#ended !== undefined || this.#probing) return;
    this.#probing = true;
    this.#client
      .ping({ timeout: PROBE_TIMEOUT_MS })
      .catch((cause: unknown) => {
        if (isAnswerFromServer(cause)) return;
        this.#end(`it stopped answering (${describeFailure(cause)})`);
      })
      .finally(() => {
        this.#probing = false;
      });
  }

  /** Ends the connection (the child process with it). Calls in flight are rejected. Never throws. */
  async close(): Promise<void> {
    this.#ended ??= 'closed';
    this.#open = false;
    await this.#server.terminate().catch(() => {});
    await this.#client.close().catch(() => {});
  }

  /** `what` happened to the server, because of `cause`, with what its stderr last said. */
  explain(what: string, cause: unknown): string {
    const why = typeof cause === 'string' ? cause : describeFailure(cause, this.#options.server);
    const parts = [`${this.#options.description}: ${what}: ${why}`];
    if (this.#lastError !== undefined && cause !== this.#lastErrorCause && !why.includes(this.#lastError)) {
      parts.push(`the last transport error was: ${this.#lastError}`);
    }
    const stderr = this.#server.stderrTail();
    if (stderr !== '') parts.push(`its stderr ended with: ${stderr.slice(-300)}`);
    return parts.join('; ');
  }

  #closed(): void {
    const why = this.#options.server.type === 'stdio' ? 'its process exited' : 'the connection closed';
    this.#end(why);
  }

  #end(reason: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = reason;
    const wasOpen = this.#open;
    this.#open = false;
    // The SDK rejects the calls in flight once its transport is closed.
    void this.#client.close().catch(() => {});
    if (wasOpen) this.#options.onLost(this.explain('connection lost', reason));
  }

  #transportError(error: Error): void {
    this.#lastError = describeFailure(error).slice(0, 300);
    this.#lastErrorCause = error;
    if (this.#options.server.type === 'http') this.suspect();
  }
}

/** Whether `cause` is the server's JSON-RPC error answer (so the server is there), not a timeout or a closed connection. */
function isAnswerFromServer(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code !== CONNECTION_CLOSED && code !== REQUEST_TIMEOUT;
}
