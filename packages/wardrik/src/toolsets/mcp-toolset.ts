import {
  type Answer,
  type Arguments,
  type CompleteExternal,
  error,
  OUTSIDE,
  type RequestInputFor,
  type Tool,
  type ToolContext,
  type Toolset,
  type ToolsetContext,
} from '@wardrik/core';
import { backoffDelay } from '@wardrik/core/wire';
import { onAbort } from '../abort/on-abort.js';
import { loadOwn } from '../lazy-package.js';
import { type ListedDefinition, reviewDefinition, type ToolListing, unpinnedOf } from './listed-definition.js';
import { acceptMcpListing, rejectionReason } from './mcp-listing.js';
import type { McpAuthorizationResult } from './mcp-oauth-options.js';
import type { McpOAuthSession } from './mcp-oauth-session.js';
import type { McpServerConnection } from './mcp-server-connection.js';
import { McpServerUnavailableError } from './mcp-server-unavailable.js';
import { startMcpTask } from './mcp-task-call.js';
import { McpTaskWatcher } from './mcp-task-watcher.js';
import { callMcpTool } from './mcp-tool-call.js';
import {
  type CheckedMcpToolsetOptions,
  checkMcpToolsetOptions,
  type McpToolsetOptions,
} from './mcp-toolset-options.js';
import { buildMcpToolsetTool } from './mcp-toolset-tool.js';
import {
  type UnpinnedDefinition,
  type UnpinnedDefinitionSource,
  UnpinnedDefinitions,
  unpinnedWarning,
} from './tool-pins.js';

/** The MCP client side (the SDK's client and transports), imported when a toolset first connects. */
function mcpClient(): Promise<typeof import('./mcp-server-connection.js')> {
  return loadOwn(() => import('./mcp-server-connection.js'), '@modelcontextprotocol/sdk', 'mcpToolset');
}

/** A toolset offering an MCP server's tools (see `mcpToolset`). */
export interface McpToolset extends Toolset, UnpinnedDefinitionSource {
  /** Whether the server is trusted (`trusted: true`): its answers and definitions go unlabelled. */
  readonly trusted: boolean;
  /**
   * Connects and lists the server's tools now, rather than when a run first asks for them. Rejects
   * with `McpServerUnavailableError` (naming the server and why) if that fails.
   */
  connect(): Promise<void>;
  /**
   * The tools the server lists now (connecting if need be), as an operator reviews them: what the
   * model is shown of each, the hash that pins it, and whether it is pinned. Rejects with
   * `McpServerUnavailableError` if the server can't be reached.
   */
  listing(): Promise<ToolListing>;
  /** Ends the connection (and the server's process, for stdio). The toolset offers nothing after. */
  close(): Promise<void>;
  /**
   * Finishes a sign-in a person started (`auth` with the authorization-code flow): the callback's
   * `code` and `state` (and, with `auth.perPrincipal`, whose sign-in it is). The state must be the
   * one sent; the code is exchanged for tokens, kept in the store; the next step connects at once.
   * Rejects with an `Error` naming the server and why (no `auth`, no sign-in under way, a state
   * that does not match, the authorization server refused the code).
   */
  completeAuthorization(result: McpAuthorizationResult & { readonly principal?: string }): Promise<void>;
}

/**
 * A toolset offering the tools of an MCP server, reached over Streamable HTTP (`url`) or run as a
 * child process over stdio (`command`), through the official MCP SDK client.
 *
 * - It connects when a run first asks for its tools (or on `connect()`), lists them, and lists them
 *   again when the server sends `notifications/tools/list_changed`; the same array is returned
 *   until the tools change.
 * - The model sees each tool as `NAME__TOOL` (e.g. `fs__read_file`); arguments are checked
 *   against the server's input schema before the call is sent. A call's `_meta` carries `agent`,
 *   `run`, `principal` and `idempotencyKey`; cancelling it sends `notifications/cancelled`; its
 *   progress is reported to the run; it times out after `callTimeoutMs`.
 * - Answers carry `outside` unless `trusted: true`. The server's annotations are its claims: each
 *   tool is marked with `MCP_TOOLSET_TOOL`, and policies gate it unless the server marks it read-only.
 * - What the server says of its tools (names, titles, descriptions, schemas, annotations) is text
 *   from outside too, unless `trusted: true` or pinned: each tool is marked (`describedBy`) with the
 *   labels a model step offered it carries — `outside` for a definition whose hash is not its pin in
 *   `pins` — so the run carries `outside` from the step whose model read it. Such definitions are
 *   logged as a warning (once per hash), with the hash that would pin each, and told to
 *   `onUnpinned` listeners (the metrics).
 * - A server that goes away is connected to again when the next step asks (after a failed try,
 *   with growing delays); meanwhile `tools()` rejects with `McpServerUnavailableError` naming the
 *   server and why, and the run leaves the toolset out of that step. A call in flight when the
 *   server went away (or that got no answer in time) answers an error with code `lost`: the run
 *   retries it if the tool is repeatable, else parks it in doubt.
 * - A tool that needs MCP tasks (`execution.taskSupport: 'required'`) is called with task
 *   augmentation: it answers `started` as soon as the server created the task, and the run waits
 *   (a park of kind `external`, handle `NAME:taskId`, deadline the task's ttl) while the toolset
 *   follows the task (`tasks/get` at the server's poll interval, at once on
 *   `notifications/tasks/status`) and delivers its result with `completeExternal`. A failed or
 *   cancelled task, an `isError` result, or a task the server no longer knows is an error the
 *   model reads. After a restart, `resume` follows the tasks runs still wait for. Tools whose
 *   tasks are optional are called as any other.
 * - What the server asks during a call goes to that call: `elicitation/create` (form or url mode)
 *   to `context.requestInput` (accepted content gets the schema's defaults, SEP-1034, and must fit
 *   the schema), `sampling/createMessage` (text only) to `context.sample` when `sampling: true`,
 *   and `roots/list` answers `roots` when given. A request belongs to the call whose MCP task it
 *   names, else to the only call in flight; otherwise it is refused, saying why. While a person
 *   or the model is asked, the call's timeout stops counting.
 *
 * Throws `ToolDefinitionError` naming the field if an option is malformed.
 *
 * @example
 * ```ts
 * const files = mcpToolset({
 *   name: 'fs',
 *   command: 'npx',
 *   args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/shared'],
 * })
 * const search = mcpToolset({ name: 'search', url: 'https://mcp.example.com/mcp', headers: { authorization: `Bearer ${token}` } })
 * const helper = defineAgent({ name: 'helper', instructions: '…', model, toolsets: [files, search] })
 * ```
 */
export function mcpToolset(options: McpToolsetOptions): McpToolset {
  const checked = checkMcpToolsetOptions(options);
  if (checked.server.type === 'http' && checked.server.auth?.perPrincipal === true) {
    return new PerPrincipalMcpToolset(checked);
  }
  return new McpServerToolset(checked);
}

/** Why the toolset can't offer tools now, and when to try connecting again. */
interface Down {
  readonly reason: string;
  /** Set when signing in (OAuth) failed: the reason, which a call's error repeats (it holds no secret). */
  readonly oauth?: string;
  /** Tries that failed in a row (0 after a connection was lost: the next try is at once). */
  readonly failures: number;
  readonly retryAt: number;
}

class McpServerToolset implements McpToolset {
  readonly name: string;
  readonly trusted: boolean;
  readonly #options: CheckedMcpToolsetOptions;
  /** How messages name the server. */
  readonly #description: string;
  #connection: McpServerConnection | undefined;
  #connecting: Promise<McpServerConnection> | undefined;
  #down: Down | undefined;
  #closed = false;
  /** Aborted by `close()`: a connection being made stops. */
  readonly #closing = new AbortController();
  #tools: readonly Tool<never>[] = Object.freeze([]);
  /** The listing `#tools` was built from (JSON), to tell a listing that changed nothing. */
  #listed: string | undefined;
  /** The tools `#tools` holds (JSON of their listings), to keep the same array when they are the same. */
  #offered: string | undefined;
  /** The tools offered, as an operator reviews them. */
  #reviewed: readonly ListedDefinition[] = [];
  readonly #unpinned = new UnpinnedDefinitions();
  /** How its tools' definitions name their source: `mcp:NAME`. */
  readonly #source: string;
  #relisting: Promise<void> | undefined;
  #relistAgain = false;
  /** The MCP tasks runs wait for, followed until they end. */
  readonly #tasks: McpTaskWatcher;
  /** Whose connection this is (`auth.perPrincipal`), or undefined: every run's. */
  readonly #principal: string | undefined;
  /** The OAuth client (`auth`), made with the first connection. */
  #oauth: McpOAuthSession | undefined;

  constructor(options: CheckedMcpToolsetOptions, principal?: string) {
    this.name = options.name;
    this.trusted = options.trusted;
    this.#options = options;
    this.#principal = principal;
    const whose = principal === undefined ? '' : ` for principal ${principal}`;
    this.#description = `MCP server ${options.name} (${options.serverDescription})${whose}`;
    this.#source = `mcp:${options.name}`;
    this.#tasks = new McpTaskWatcher({
      toolset: options.name,
      server: `MCP server ${options.name}`,
      ready: () => this.#ready({ waitForListing: false }),
      timeoutMs: options.callTimeoutMs,
      backoff: options.reconnect,
      log: (message) => options.log(message),
    });
  }

  /**
   * Follows again, after a restart, the MCP tasks runs still wait for (handles `NAME:taskId`),
   * connecting to the server if need be; returns at once.
   */
  resume(waiting: {
    readonly handles: readonly string[];
    readonly completeExternal: CompleteExternal;
    readonly requestInputFor?: RequestInputFor;
  }): void {
    const prefix = `${this.name}:`;
    for (const handle of waiting.handles) {
      if (!handle.startsWith(prefix) || handle.length === prefix.length) continue;
      this.#tasks.watch({
        taskId: handle.slice(prefix.length),
        handle,
        completeExternal: waiting.completeExternal,
        ...(waiting.requestInputFor === undefined ? {} : { requestInputFor: waiting.requestInputFor }),
      });
    }
    if (this.#tasks.size > 0) this.#options.log(`${this.#description}: following ${this.#tasks.size} MCP tasks again`);
  }

  tools(context: ToolsetContext): readonly Tool<never>[] | Promise<readonly Tool<never>[]> {
    if (this.#connection !== undefined && this.#relisting === undefined && !this.#closed) return this.#tools;
    return this.#ready({ signal: context.signal, waitForListing: true }).then(() => this.#tools);
  }

  async connect(): Promise<void> {
    await this.#ready({ waitForListing: true });
  }

  async listing(): Promise<ToolListing> {
    await this.#ready({ waitForListing: true });
    return {
      source: this.#source,
      server: this.#options.serverDescription,
      trusted: this.#options.trusted,
      tools: this.#reviewed,
    };
  }

  onUnpinned(listener: (definition: UnpinnedDefinition) => void): () => void {
    return this.#unpinned.onUnpinned(listener);
  }

  async completeAuthorization(result: McpAuthorizationResult & { readonly principal?: string }): Promise<void> {
    const oauth = await this.#oauthSession();
    if (oauth === undefined) throw new Error(`${this.#description}: has no auth (OAuth): nothing to complete`);
    await oauth.complete({ code: result.code, state: result.state });
    // Signed in: the next step connects at once.
    if (this.#connection === undefined) this.#down = undefined;
  }

  /** The OAuth client of this toolset (and principal), made once; undefined without `auth`. */
  async #oauthSession(): Promise<McpOAuthSession | undefined> {
    const server = this.#options.server;
    if (server.type !== 'http' || server.auth === undefined) return undefined;
    if (this.#oauth === undefined) {
      const { McpOAuthSession } = await mcpClient();
      this.#oauth ??= new McpOAuthSession({
        auth: server.auth,
        toolset: this.name,
        serverUrl: server.url,
        serverDescription: this.#options.serverDescription,
        principal: this.#principal,
        log: this.#options.log,
      });
    }
    return this.#oauth;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort(new Error('the toolset was closed'));
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.close();
    await this.#tasks.close();
    // A connection being made closes itself once it sees the toolset closed.
    await this.#connecting?.catch(() => {});
  }

  /** The connection, made now if there is none (unless a failed try was too recent). Rejects with `McpServerUnavailableError`. */
  async #ready(options: { signal?: AbortSignal; waitForListing: boolean }): Promise<McpServerConnection> {
    if (this.#closed) throw this.#unavailable('the toolset was closed');
    const connection = this.#connection;
    if (connection !== undefined) {
      if (options.waitForListing && this.#relisting !== undefined) {
        await raced(this.#relisting, options.signal, () => this.#unavailable('still listing its tools'));
      }
      return connection;
    }
    if (this.#connecting === undefined) {
      const down = this.#down;
      const wait = down === undefined ? 0 : down.retryAt - Date.now();
      if (down !== undefined && wait > 0) {
        throw new McpServerUnavailableError(`${down.reason}; trying again in ${Math.ceil(wait)} ms`);
      }
      const connecting = this.#connect();
      this.#connecting = connecting;
      connecting
        .catch(() => {})
        .finally(() => {
          if (this.#connecting === connecting) this.#connecting = undefined;
        });
    }
    return raced(this.#connecting, options.signal, () => this.#unavailable('still connecting'));
  }

  /** Opens a connection and lists the tools; on failure, notes why and when to try again. */
  async #connect(): Promise<McpServerConnection> {
    let connection: McpServerConnection | undefined;
    /** Set once the connection is this toolset's; a list_changed before then is noted in `changedEarly`. */
    let adopted: McpServerConnection | undefined;
    let changedEarly = false;
    let oauthFailure: ((cause: unknown) => string | undefined) | undefined;
    try {
      const client = await mcpClient();
      oauthFailure = client.describeOAuthFailure;
      const oauth = await this.#oauthSession();
      connection = await client.McpServerConnection.open({
        ...(oauth === undefined ? {} : { oauth }),
        server: this.#options.server,
        description: this.#description,
        timeoutMs: this.#options.connectTimeoutMs,
        signal: this.#closing.signal,
        sampling: this.#options.sampling,
        ...(this.#options.roots === undefined ? {} : { roots: this.#options.roots }),
        onToolsChanged: () => {
          if (adopted !== undefined) this.#toolsChanged(adopted);
          else changedEarly = true;
        },
        onLost: (reason) => {
          if (adopted !== undefined) this.#lost(adopted, reason);
        },
        onTaskStatus: (taskId) => this.#tasks.statusChanged(taskId),
      });
      let items: unknown[];
      try {
        items = await connection.listTools();
      } catch (cause) {
        throw new Error(connection.explain('could not list its tools', connection.ended ?? cause), { cause });
      }
      if (this.#closed) throw new Error('the toolset was closed');
      this.#install(items);
      adopted = connection;
      this.#connection = connection;
      this.#down = undefined;
      this.#options.log(`${this.#description}: connected; ${this.#tools.length} tools`);
      if (changedEarly) this.#toolsChanged(connection);
      return connection;
    } catch (cause) {
      await connection?.close();
      const reason = this.#closed
        ? `${this.#description}: the toolset was closed`
        : cause instanceof Error
          ? cause.message
          : String(cause);
      const failures = (this.#down?.failures ?? 0) + 1;
      const delay = backoffDelay({ attempts: Number.POSITIVE_INFINITY, ...this.#options.reconnect }, failures);
      const oauth = this.#closed ? undefined : oauthFailure?.(cause);
      this.#down = { reason, failures, retryAt: Date.now() + delay, ...(oauth === undefined ? {} : { oauth: reason }) };
      this.#options.log(reason);
      throw new McpServerUnavailableError(reason, { cause });
    }
  }

  /** The server went away: the next step that asks connects again, at once. */
  #lost(connection: McpServerConnection, reason: string): void {
    if (connection !== this.#connection) return;
    this.#connection = undefined;
    this.#down = { reason, failures: 0, retryAt: Date.now() };
    this.#options.log(reason);
  }

  /** The server's tools changed: list them again (once more if they change again meanwhile). */
  #toolsChanged(connection: McpServerConnection): void {
    if (connection !== this.#connection) return;
    if (this.#relisting !== undefined) {
      this.#relistAgain = true;
      return;
    }
    const relisting = this.#relist(connection);
    this.#relisting = relisting;
    void relisting.finally(() => {
      if (this.#relisting === relisting) this.#relisting = undefined;
    });
  }

  async #relist(connection: McpServerConnection): Promise<void> {
    do {
      this.#relistAgain = false;
      try {
        const items = await connection.listTools();
        if (connection === this.#connection) this.#install(items);
      } catch (cause) {
        if (connection.ended === undefined) {
          this.#options.log(connection.explain('could not list its tools again; the last list stays', cause));
          connection.suspect();
        }
        return;
      }
    } while (this.#relistAgain && connection === this.#connection);
  }

  /** Builds the tools from a listing; keeps the same array when they did not change. */
  #install(items: unknown[]): void {
    const listed = JSON.stringify(items);
    if (listed === this.#listed) return;
    this.#listed = listed;
    const accepted = acceptMcpListing(items, this.name);
    const rejected = [...accepted.rejected];
    const tools: Tool<never>[] = [];
    const offered: unknown[] = [];
    const reviewed: ListedDefinition[] = [];
    const { pins, trusted } = this.#options;
    for (const { modelName, listed: each, task } of accepted.tools) {
      try {
        const review = reviewDefinition(each, { source: this.#source, pins, trusted });
        const built = buildMcpToolsetTool({
          modelName,
          listed: each,
          toolset: this.name,
          server: this.#options.serverDescription,
          trusted,
          origin: review.origin,
          callTimeoutMs: this.#options.callTimeoutMs,
          run: (args, context) => this.#call(each.name, args, context, built.annotations.timeout, task),
        });
        tools.push(built as Tool<never>);
        offered.push(each);
        reviewed.push(review.reviewed);
      } catch (cause) {
        rejected.push({ name: each.name, reason: rejectionReason(cause) });
      }
    }
    for (const { name, reason } of rejected) {
      this.#options.log(`${this.#description}: tool ${name} is left out: ${reason}`);
    }
    const key = JSON.stringify(offered);
    if (key === this.#offered) return;
    this.#offered = key;
    this.#tools = Object.freeze(tools);
    this.#reviewed = Object.freeze(reviewed);
    const fresh = this.#unpinned.report(unpinnedOf(this.#source, reviewed));
    if (fresh.length > 0) {
      this.#options.warn(
        unpinnedWarning(this.#description, `mcpToolset({ name: '${this.name}', pins: { … } })`, fresh),
      );
    }
  }

  async #call(
    mcpName: string,
    args: Arguments,
    context: ToolContext,
    timeoutMs: number | undefined,
    task: boolean,
  ): Promise<Answer> {
    if (!this.#options.trusted) context.addLabels(OUTSIDE);
    let connection: McpServerConnection;
    try {
      connection = await this.#ready({ signal: context.signal, waitForListing: false });
    } catch {
      if (context.signal.aborted) return error('the call was cancelled', { code: 'cancelled' });
      // Signing in failed: the why (the authorization server's answer; never a token) is the call's.
      const oauth = this.#down?.oauth;
      if (oauth !== undefined && !this.#closed) {
        return error(`Unavailable: ${oauth}; the call was not sent`, { code: 'unavailable' });
      }
      // The model reads this: the why (command line, stderr) is for the log, where it went already.
      const closed = this.#closed ? 'the toolset was closed' : "it can't be reached now";
      return error(`Unavailable: MCP server ${this.name}: ${closed}; the call was not sent`, { code: 'unavailable' });
    }
    const call = {
      connection,
      server: `MCP server ${this.name}`,
      mcpName,
      args,
      context,
      timeoutMs: timeoutMs ?? this.#options.callTimeoutMs,
    };
    if (!task) return callMcpTool(call);
    return startMcpTask({
      ...call,
      toolset: this.name,
      trusted: this.#options.trusted,
      watch: (created, handle) =>
        this.#tasks.watch({
          taskId: created.taskId,
          handle,
          completeExternal: context.completeExternal,
          requestInputFor: context.requestInputFor,
          mcpName,
          ...(created.pollInterval === undefined ? {} : { pollIntervalMs: created.pollInterval }),
        }),
    });
  }

  #unavailable(why: string): McpServerUnavailableError {
    return new McpServerUnavailableError(`${this.#description}: ${why}`);
  }
}

/**
 * An MCP toolset whose principals sign in each on their own (`auth.perPrincipal`): a connection,
 * tokens and tools per principal (the run's), made when that principal's run first asks.
 */
class PerPrincipalMcpToolset implements McpToolset {
  readonly name: string;
  readonly trusted: boolean;
  readonly #options: CheckedMcpToolsetOptions;
  readonly #toolsets = new Map<string, McpServerToolset>();
  readonly #listeners = new Set<(definition: UnpinnedDefinition) => void>();
  #closed = false;

  constructor(options: CheckedMcpToolsetOptions) {
    this.name = options.name;
    this.trusted = options.trusted;
    this.#options = options;
  }

  tools(context: ToolsetContext): readonly Tool<never>[] | Promise<readonly Tool<never>[]> {
    return this.#of(context.principal).tools(context);
  }

  /** Connects `principal`'s connection now (a principal must be named: the toolset signs in per principal). */
  async connect(options?: { readonly principal?: string }): Promise<void> {
    await this.#of(this.#whose(options?.principal, 'connect')).connect();
  }

  async listing(options?: { readonly principal?: string }): Promise<ToolListing> {
    return this.#of(this.#whose(options?.principal, 'listing')).listing();
  }

  async completeAuthorization(result: McpAuthorizationResult & { readonly principal?: string }): Promise<void> {
    await this.#of(this.#whose(result.principal, 'completeAuthorization')).completeAuthorization(result);
  }

  /**
   * MCP tasks are followed by the connection of the principal whose run started them; after a
   * restart the handles do not say whose they were, so they are not followed again here.
   */
  resume(waiting: { readonly handles: readonly string[] }): void {
    const mine = waiting.handles.filter((handle) => handle.startsWith(`${this.name}:`));
    if (mine.length > 0) {
      this.#options.log(
        `MCP server ${this.name}: ${mine.length} MCP tasks runs wait for are not followed after the restart: the toolset signs in per principal, and a task's handle does not say whose it was`,
      );
    }
  }

  onUnpinned(listener: (definition: UnpinnedDefinition) => void): () => void {
    this.#listeners.add(listener);
    const stops = [...this.#toolsets.values()].map((toolset) => toolset.onUnpinned(listener));
    return () => {
      this.#listeners.delete(listener);
      for (const stop of stops) stop();
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const toolsets = [...this.#toolsets.values()];
    await Promise.all(toolsets.map((toolset) => toolset.close()));
  }

  #whose(principal: string | undefined, what: string): string {
    if (principal === undefined || principal === '') {
      throw new McpServerUnavailableError(
        `MCP server ${this.name} (${this.#options.serverDescription}): signs in per principal (auth.perPrincipal): give ${what} a principal`,
      );
    }
    return principal;
  }

  #of(principal: string): McpServerToolset {
    let toolset = this.#toolsets.get(principal);
    if (toolset === undefined) {
      toolset = new McpServerToolset(this.#options, principal);
      if (this.#closed) void toolset.close();
      for (const listener of this.#listeners) toolset.onUnpinned(listener);
      this.#toolsets.set(principal, toolset);
    }
    return toolset;
  }
}

/** `promise`, or a rejection with `onAbort()` as soon as `signal` aborts (the promise goes on). */
function raced<T>(promise: Promise<T>, signal: AbortSignal | undefined, abortError: () => Error): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = onAbort(signal, () => reject(abortError()));
    promise.then(
      (value) => {
        stopWaiting();
        resolve(value);
      },
      (cause: unknown) => {
        stopWaiting();
        reject(cause);
      },
    );
  });
}
