import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  type GetTaskResult,
  ListRootsRequestSchema,
  McpError,
  type Task,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '@wardrik/core';
import { z } from 'zod';
import { onAbort } from '../abort/on-abort.js';
import { CallTimeout, LONGEST_TIMEOUT_MS } from './call-timeout.js';
import { CONNECTION_CLOSED, describeFailure, REQUEST_TIMEOUT } from './describe-failure.js';
import { McpAuthorizationRequiredError, McpSignInError } from './mcp-authorization-required.js';
import { type CallInFlight, CallsInFlight } from './mcp-calls-in-flight.js';
import { type AskingCall, answerElicitation } from './mcp-elicitation.js';
import { describeOAuthFailure, isUnauthorized, type McpOAuthSession } from './mcp-oauth-session.js';
import { answerSampling } from './mcp-sampling.js';
import type { McpRoot, McpServerSpec } from './mcp-toolset-options.js';
import { createServerTransport, type ServerTransport } from './mcp-transport.js';

export { describeOAuthFailure, McpOAuthSession } from './mcp-oauth-session.js';

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
  /** Aborted when the toolset closes: connecting and listing stop, and a stdio server is stopped at once. */
  readonly signal: AbortSignal;
  /** The server said its tools changed (`notifications/tools/list_changed`). */
  readonly onToolsChanged: () => void;
  /** The connection ended without `close()` being called, and why. Called at most once, and only once open. */
  readonly onLost: (reason: string) => void;
  /** The server said a task's status changed (`notifications/tasks/status`). */
  readonly onTaskStatus?: (taskId: string) => void;
  /** Signs in with OAuth (`mcpToolset({ url, auth })`): this principal's (or the shared) session. */
  readonly oauth?: McpOAuthSession;
  /** Whether the server may ask the asking call's model (`sampling/createMessage`). Default false. */
  readonly sampling?: boolean;
  /** The roots offered (`roots/list`); none: no `roots` capability. */
  readonly roots?: readonly McpRoot[];
}

/** How many times a request refused for want of a sign-in is sent again after signing in. */
const SIGN_IN_RETRIES = 2;

/** What one request about a task is sent with. */
export interface TaskRequestOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** What one tool call sends. */
export interface CallRequest {
  /**
   * The call's context, kept while its `tools/call` is pending: the server's elicitation and
   * sampling requests meanwhile are answered through it (`requestInput`, `sample`).
   */
  readonly context: ToolContext;
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
  /** The calls whose `tools/call` is pending: whom the server's requests ask. */
  readonly #inFlight = new CallsInFlight();
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
    for (let tries = 0; ; tries++) {
      try {
        return await McpServerConnection.#openOnce(options);
      } catch (cause) {
        // The server refused for want of a sign-in: finish it (the `authorize` hook) and connect again.
        if (tries >= SIGN_IN_RETRIES || options.oauth === undefined || !isUnauthorized(cause)) throw cause;
        if (!(await options.oauth.finishSignIn())) throw cause;
      }
    }
  }

  static async #openOnce(options: ConnectionOptions): Promise<McpServerConnection> {
    const server = createServerTransport(options.server, options.signal, options.oauth);
    const client = new Client({ name: 'wardrik', version: '0.1.0' }, { capabilities: clientCapabilities(options) });
    const connection = new McpServerConnection(client, server, options);
    connection.#answerServerRequests();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (connection.#open) options.onToolsChanged();
    });
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      if (connection.#open) options.onTaskStatus?.(notification.params.taskId);
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
      const result = await this.#signedIn(() =>
        this.#client.request(
          { method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) },
          ListResult,
          { timeout: this.#options.timeoutMs, signal: this.#options.signal },
        ),
      );
      items.push(...result.tools);
      if (result.nextCursor === undefined || result.nextCursor === '') return items;
      cursor = result.nextCursor;
    }
    throw new Error(`its tools/list went on for more than ${MAX_PAGES} pages`);
  }

  /**
   * Sends `tools/call`. Aborting `signal` sends `notifications/cancelled`; rejects as the SDK does
   * (a timeout: an `McpError` with code `RequestTimeout`). While the server's requests for the
   * call are being answered (a person asked, the model sampled), its `timeoutMs` stops counting.
   */
  async callTool(request: CallRequest): Promise<CallToolResult> {
    // The call's own timeout, which stops counting while a person or the model is asked for it.
    const controller = new AbortController();
    const timeout = new CallTimeout(request.timeoutMs, () =>
      controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: request.timeoutMs })),
    );
    if (request.signal.aborted) controller.abort(request.signal.reason);
    const unlink = onAbort(request.signal, () => controller.abort(request.signal.reason));
    const done = this.#inFlight.add({
      context: request.context,
      signal: request.signal,
      pauseTimeout: () => timeout.pause(),
    });
    try {
      return await this.#sendCall({ ...request, signal: controller.signal, timeoutMs: LONGEST_TIMEOUT_MS });
    } finally {
      done();
      unlink();
      timeout.clear();
    }
  }

  #sendCall(request: CallRequest): Promise<CallToolResult> {
    return this.#signedIn(
      () =>
        this.#client.callTool({ name: request.name, arguments: request.arguments, _meta: request.meta }, undefined, {
          signal: request.signal,
          timeout: request.timeoutMs,
          onprogress: ({ progress, total, message }) =>
            request.onProgress({
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message }),
            }),
        }) as Promise<CallToolResult>,
    );
  }

  /**
   * Answers what the server asks during a call: `elicitation/create` (always), and
   * `sampling/createMessage` and `roots/list` when the toolset offers them (else the SDK refuses
   * them, as methods of capabilities not declared). A request goes to the call it belongs to
   * (see `CallsInFlight`), with a signal aborted when the server cancels it, the call stops or the
   * toolset closes.
   */
  #answerServerRequests(): void {
    const client = this.#client;
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      this.#asking('elicitation/create', request.params._meta, extra.signal, (asking) =>
        answerElicitation(request.params, asking),
      ),
    );
    if (this.#options.sampling === true) {
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
        this.#asking('sampling/createMessage', request.params._meta, extra.signal, (asking) =>
          answerSampling(request.params, asking),
        ),
      );
    }
    const roots = this.#options.roots;
    if (roots !== undefined) {
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((root) => ({ ...root })) }));
    }
  }

  /** Runs `answer` for the call `method` belongs to, with a signal of its own, unlinked once answered. */
  async #asking<T>(
    method: string,
    meta: Readonly<Record<string, unknown>> | undefined,
    requestSignal: AbortSignal,
    answer: (asking: AskingCall) => Promise<T>,
  ): Promise<T> {
    const call = this.#inFlight.asker(method, meta);
    const resume = call.pauseTimeout?.();
    const controller = new AbortController();
    const sources = [requestSignal, call.signal, this.#options.signal];
    const aborted = sources.find((signal) => signal.aborted);
    if (aborted !== undefined) controller.abort(aborted.reason);
    const unlink = sources.map((signal) => onAbort(signal, () => controller.abort(signal.reason)));
    try {
      return await answer({ call, signal: controller.signal });
    } finally {
      for (const stop of unlink) stop();
      resume?.();
    }
  }

  /**
   * Sends a request; if the server refused it for want of a sign-in (a 401, or a 403 asking for
   * more scope: the HTTP request was refused before the server did anything, so sending it again
   * is safe) and the sign-in can be finished now, sends it again.
   */
  async #signedIn<T>(request: () => Promise<T>): Promise<T> {
    const oauth = this.#options.oauth;
    for (let tries = 0; ; tries++) {
      try {
        return await request();
      } catch (cause) {
        if (oauth === undefined) throw cause;
        if (tries < SIGN_IN_RETRIES && isUnauthorized(cause) && (await oauth.finishSignIn())) continue;
        const why = describeOAuthFailure(cause);
        if (why === undefined || McpAuthorizationRequiredError.isInstance(cause)) throw cause;
        throw new McpSignInError(`${oauth.description}: ${why}`, { cause });
      }
    }
  }

  /**
   * Sends `tools/call` with task augmentation (the SDK's experimental `callToolStream`) and
   * resolves with the task the server created, without waiting for it to finish: the caller
   * watches it with `getTask` and `getTaskResult`. Aborting `signal` before then sends
   * `notifications/cancelled`. Rejects with the SDK's error (an `McpError` with its code).
   */
  async startTask(request: Omit<CallRequest, 'onProgress'>): Promise<Task> {
    const call: CallInFlight = { context: request.context, signal: request.signal };
    const done = this.#inFlight.add(call);
    const stream = this.#client.experimental.tasks.callToolStream(
      { name: request.name, arguments: request.arguments, _meta: request.meta },
      CallToolResultSchema,
      { task: {}, signal: request.signal, timeout: request.timeoutMs },
    );
    try {
      const { value: first } = await stream.next();
      if (first?.type === 'taskCreated') {
        call.taskId = first.task.taskId;
        return first.task;
      }
      if (first?.type === 'error') throw first.error;
      throw new Error(`the server answered the task-augmented tools/call with ${first?.type ?? 'nothing'}, not a task`);
    } finally {
      // Stops the stream's own polling: the caller watches the task.
      await stream.return(undefined);
      done();
    }
  }

  /**
   * Answers what the server asks on behalf of task `taskId` (`_meta` related-task) through `asker`
   * while the task waits for input (`input_required`); the function returned stops it.
   */
  answerTaskRequests(taskId: string, asker: CallInFlight['context'], signal: AbortSignal): () => void {
    return this.#inFlight.add({ context: asker, signal, taskId });
  }

  /** `tasks/get`: the task's status now. Rejects as the SDK does (the server's JSON-RPC error, a timeout). */
  getTask(taskId: string, options: TaskRequestOptions): Promise<GetTaskResult> {
    return this.#linked(options, (signal) =>
      this.#client.experimental.tasks.getTask(taskId, { timeout: options.timeoutMs, signal }),
    );
  }

  /** `tasks/result`: the result of a task that ended, as a `tools/call` result. */
  getTaskResult(taskId: string, options: TaskRequestOptions): Promise<CallToolResult> {
    return this.#linked(
      options,
      (signal) =>
        this.#client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, {
          timeout: options.timeoutMs,
          signal,
        }) as Promise<CallToolResult>,
    );
  }

  /** `tasks/cancel`, best effort: never rejects. */
  async cancelTask(taskId: string, options: TaskRequestOptions): Promise<void> {
    await this.#linked(options, (signal) =>
      this.#client.experimental.tasks.cancelTask(taskId, { timeout: options.timeoutMs, signal }),
    ).catch(() => {});
  }

  /**
   * Runs `request` with a signal of its own that aborts with `options.signal` or when the toolset
   * closes, unlinked once it is over: the SDK never lets go of a signal it is given, and a task is
   * asked about again and again.
   */
  async #linked<T>(options: TaskRequestOptions, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const sources = [this.#options.signal, ...(options.signal === undefined ? [] : [options.signal])];
    const aborted = sources.find((signal) => signal.aborted);
    if (aborted !== undefined) controller.abort(aborted.reason);
    const unlink = sources.map((signal) => onAbort(signal, () => controller.abort(signal.reason)));
    try {
      return await request(controller.signal);
    } finally {
      for (const stop of unlink) stop();
    }
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
        if (isAnswerFromServer(cause) || isUnauthorized(cause)) return;
        this.#end(`it stopped answering (${describeFailure(cause)})`);
      })
      .finally(() => {
        this.#probing = false;
      });
  }

  /**
   * Ends the connection, and resolves once the child process (stdio) has exited: see
   * `McpStdioTransport`. Calls in flight are rejected. Never throws.
   */
  async close(): Promise<void> {
    this.#ended ??= 'closed';
    this.#open = false;
    await this.#server.terminate().catch(() => {});
    await this.#client.close().catch(() => {});
    // The SDK closes its transport once; a second close (after a failed connect) must wait too.
    await this.#server.stop().catch(() => {});
  }

  /** `what` happened to the server, because of `cause`, with what its stderr last said. */
  explain(what: string, cause: unknown): string {
    const why =
      typeof cause === 'string' ? cause : (describeOAuthFailure(cause) ?? describeFailure(cause, this.#options.server));
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
    // The stream's GET was refused for want of a sign-in: the requests sign in (`#signedIn`); the server is there.
    if (isUnauthorized(error)) return;
    this.#lastError = describeFailure(error).slice(0, 300);
    this.#lastErrorCause = error;
    if (this.#options.server.type === 'http') this.suspect();
  }
}

/**
 * What the toolset offers the server: elicitation (form and url) always, answered through the
 * asking call; sampling when allowed; roots when configured (the list never changes).
 */
function clientCapabilities(options: ConnectionOptions): ClientCapabilities {
  return {
    elicitation: { form: {}, url: {} },
    ...(options.sampling === true ? { sampling: {} } : {}),
    ...(options.roots === undefined ? {} : { roots: { listChanged: false } }),
  };
}

/** The HTTP status of a Streamable HTTP request for a session the server no longer has: start a new one. */
const SESSION_NOT_FOUND = 404;

/**
 * Whether `cause` is the server's JSON-RPC error answer (so the server is there), not a timeout, a
 * closed connection, or an HTTP 404 for a session the server no longer has (it restarted).
 */
function isAnswerFromServer(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  return (
    typeof code === 'number' && code !== CONNECTION_CLOSED && code !== REQUEST_TIMEOUT && code !== SESSION_NOT_FOUND
  );
}
