import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type * as StreamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type * as McpTypes from '@modelcontextprotocol/sdk/types.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '@wardrik/core';
import type { Context, Hono } from 'hono';
import type * as HonoCors from 'hono/cors';
import type { AuthService } from '../auth/auth-service.js';
import type { Principal } from '../auth/types.js';
import { ConfigError } from '../config/config-error.js';
import { loadLater, loadNow, loadOwn } from '../lazy-package.js';
import type { Wardrik } from '../runtime/wardrik.js';
import { ApiProblem } from '../server/problem.js';
import { readText } from '../server/read-text.js';
import { DEFAULT_BODY_LIMIT } from '../server/validate.js';
import { Callers } from './caller.js';
import { gatewayAgentName, gatewayOf } from './gateway-agent.js';
import { MCP_DEFAULTS, type McpServerOptions, mcpOptionsProblem } from './mcp-options.js';
import { McpSessions } from './mcp-sessions.js';
import type { Offer } from './offered-tools.js';
import { challenge, MCP_PATH, PROTECTED_RESOURCE_PATHS, protectedResourceMetadata } from './protected-resource.js';
import { isLoopback, originProblem, originRules } from './request-origin.js';
import type { McpContext } from './request-scope.js';

/** What an MCP endpoint serves, and for whom. */
export interface McpEndpointOptions extends McpServerOptions {
  readonly wardrik: Wardrik;
  readonly auth: AuthService;
  /** The host the server listens on (decides the default allowed hosts and whether `unauthenticated` is allowed). */
  readonly listenHost: string;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
}

/** `/mcp` and its protected-resource metadata, ready to mount on the server's Hono app. */
export interface McpEndpoint {
  /** Adds the routes to `app`. */
  mount(app: Hono): void;
  /** Closes every MCP session (the runs they started go on). */
  close(): Promise<void>;
  /** Open sessions, now. */
  readonly sessions: number;
}

/**
 * Serves Wardrik's agents over MCP (Streamable HTTP, protocol 2025-11-25 and 2025-06-18) at
 * `/mcp`, signed in with Wardrik's tokens (`Authorization: Bearer wdk_…`; roles and scopes as for
 * the HTTP API), with OAuth protected-resource metadata at
 * `/.well-known/oauth-protected-resource` (and `…/mcp`) and `WWW-Authenticate` on 401. `Host`
 * and `Origin` are checked (DNS rebinding). Throws `ConfigError` for a setting that is wrong: an
 * agent it does not run, a gateway agent missing, `unauthenticated` on a listener other machines
 * reach without `force`.
 *
 * @example
 * ```ts
 * const mcp = createMcpEndpoint({ wardrik, auth, listenHost: '127.0.0.1', gateway: ['support'] })
 * mcp.mount(app) // POST/GET/DELETE /mcp
 * ```
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { wardrik, auth } = options;
  const problem = mcpOptionsProblem(settingsOf(options), 'mcp');
  if (problem) throw new ConfigError(problem);
  const unauthenticated = options.unauthenticated;
  if (unauthenticated && !isLoopback(options.listenHost) && unauthenticated.force !== true) {
    throw new ConfigError(
      `mcp.unauthenticated takes MCP callers without a token as principal ${unauthenticated.principal}: refused on host ${options.listenHost}, ` +
        'which other machines can reach; listen on 127.0.0.1, or set mcp.unauthenticated.force: true if you mean it',
    );
  }
  const offer = offerOf(wardrik, options);
  const context: McpContext = {
    wardrik,
    offer,
    elicitationTimeoutMs: options.elicitationTimeoutMs ?? MCP_DEFAULTS.elicitationTimeoutMs,
    taskPollIntervalMs: options.taskPollIntervalMs ?? MCP_DEFAULTS.taskPollIntervalMs,
  };
  const sessions = new McpSessions({
    idleMs: options.sessionIdleMs ?? MCP_DEFAULTS.sessionIdleMs,
    maxPerPrincipal: options.maxSessionsPerPrincipal ?? MCP_DEFAULTS.maxSessionsPerPrincipal,
  });
  const callers = new Callers(auth, unauthenticated?.principal);
  const rules = originRules(options.listenHost, options);
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const originOf = (c: Context) => (options.publicUrl ? new URL(options.publicUrl).origin : new URL(c.req.url).origin);

  async function open(principal: Principal, body: unknown, c: Context, authInfo: AuthInfo): Promise<Response> {
    if (!(await sessions.makeRoom(principal.id))) {
      return rpcError(
        429,
        -32000,
        `Too many MCP sessions: ${principal.name} holds the most it may, all busy; close one (DELETE /mcp)`,
      );
    }
    const { sessionServer, StreamableTransport } = await serverSide();
    const closing = new AbortController();
    const transport: WebStandardStreamableHTTPServerTransport = new StreamableTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: limit,
      onsessioninitialized: (id: string): void => sessions.add({ id, transport, state, lastUsed: Date.now() }),
      onsessionclosed: (id: string): void => sessions.remove(id),
    });
    // Before the server connects: closing the session is then known to every request it aborts.
    transport.onclose = () => {
      closing.abort();
      sessions.remove(transport.sessionId);
    };
    const state = sessionServer(context, { principal, closing: closing.signal, logLevel: undefined, active: 0 });
    await state.server.connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body, authInfo });
  }

  async function serve(c: Context): Promise<Response> {
    const refused = originProblem({ host: c.req.header('host'), origin: c.req.header('origin') }, rules);
    if (refused) return rpcError(403, -32000, `Forbidden: ${refused}`);
    const caller = await callers.identify(c.req.header('authorization'));
    if (!caller.ok) {
      return rpcError(401, -32001, `Unauthorized: ${caller.reason}`, {
        'www-authenticate': challenge(originOf(c), caller.tokenSent ? caller.reason : undefined),
      });
    }
    const { principal } = caller;
    let body: unknown;
    if (c.req.method === 'POST') {
      const parsed = await readJson(c, limit);
      if (!parsed.ok) return parsed.response;
      body = parsed.value;
    }
    const authInfo: AuthInfo = { token: caller.token ?? '', clientId: principal.id, scopes: [], extra: { principal } };
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId === undefined) {
      const { isInitializeRequest } = await serverSide();
      if (c.req.method === 'POST' && isInitializeRequest(body)) return open(principal, body, c, authInfo);
      return rpcError(400, -32000, 'Bad Request: no Mcp-Session-Id header; start a session with an initialize request');
    }
    const session = sessions.get(sessionId);
    if (!session) {
      return rpcError(
        404,
        -32001,
        'Session not found: it ended, or the node that held it restarted; initialize a new session',
      );
    }
    if (session.state.principal.id !== principal.id) {
      return rpcError(403, -32000, `Forbidden: this session belongs to another principal than ${principal.name}`);
    }
    return session.transport.handleRequest(c.req.raw, {
      ...(body === undefined ? {} : { parsedBody: body }),
      authInfo,
    });
  }

  return {
    mount(app) {
      // A web page of an allowed origin may call /mcp from a browser (CORS; its preflight included).
      if (rules.origins.length) {
        const { cors } = loadNow<typeof HonoCors>('hono/cors', 'the MCP endpoint');
        app.use(
          MCP_PATH,
          cors({
            origin: [...rules.origins],
            allowMethods: ['GET', 'POST', 'DELETE'],
            allowHeaders: [
              'authorization',
              'content-type',
              'accept',
              'mcp-session-id',
              'mcp-protocol-version',
              'last-event-id',
            ],
            exposeHeaders: ['mcp-session-id', 'www-authenticate'],
          }),
        );
      }
      for (const path of PROTECTED_RESOURCE_PATHS) {
        app.get(path, (c) => c.json(protectedResourceMetadata(originOf(c), options.authorizationServers ?? [])));
      }
      app.on(['GET', 'POST', 'DELETE'], MCP_PATH, serve);
    },
    close: () => sessions.close(),
    get sessions() {
      return sessions.size;
    },
  };
}

const FEATURE = 'the MCP endpoint (createMcpEndpoint)';

/** What `serverSide` loads. */
interface ServerSide {
  readonly StreamableTransport: typeof WebStandardStreamableHTTPServerTransport;
  readonly isInitializeRequest: typeof McpTypes.isInitializeRequest;
  readonly sessionServer: typeof import('./session-server.js')['sessionServer'];
}

let loadedServerSide: ServerSide | undefined;

/** The MCP server side (the SDK's server and its Streamable HTTP transport), imported with the first request to `/mcp`. */
async function serverSide(): Promise<ServerSide> {
  if (loadedServerSide) return loadedServerSide;
  const [http, types, sessions] = await Promise.all([
    loadLater<typeof StreamableHttp>('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js', FEATURE),
    loadLater<typeof McpTypes>('@modelcontextprotocol/sdk/types.js', FEATURE),
    loadOwn(() => import('./session-server.js'), '@modelcontextprotocol/sdk', FEATURE),
  ]);
  loadedServerSide = {
    StreamableTransport: http.WebStandardStreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
    sessionServer: sessions.sessionServer,
  };
  return loadedServerSide;
}

/** The agents offered as tools and the gateway agents, checked against what the runtime runs. */
function offerOf(wardrik: Wardrik, options: McpServerOptions): Offer {
  const all = wardrik.agents();
  const plain = all.filter((agent) => gatewayOf(agent) === undefined);
  const gateways = all.filter((agent) => gatewayOf(agent) !== undefined);
  for (const name of options.agents ?? []) {
    if (!plain.some((agent) => agent.name === name)) {
      throw new ConfigError(
        `mcp.agents: no agent ${JSON.stringify(name)} (agents: ${plain.map((agent) => agent.name).join(', ')})`,
      );
    }
  }
  for (const name of options.gateway ?? []) {
    if (!gateways.some((agent) => gatewayOf(agent) === name)) {
      throw new ConfigError(
        `mcp.gateway: the runtime has no gateway agent ${gatewayAgentName(name)}; add mcpGatewayAgent(${name}) to its agents (a config file does this for you)`,
      );
    }
  }
  return {
    gatewayPrefix: options.gatewayPrefix ?? true,
    agents: options.agents ?? plain.map((agent) => agent.name),
    gateways: options.gateway
      ? gateways.filter((agent) => options.gateway?.includes(gatewayOf(agent) ?? ''))
      : gateways,
  };
}

/** The endpoint's options as the config's `mcp` section spells them (for checking). */
function settingsOf(options: McpEndpointOptions): McpServerOptions {
  const { wardrik: _wardrik, auth: _auth, listenHost: _listenHost, bodyLimitBytes: _limit, ...settings } = options;
  return settings;
}

/** A request's JSON body, or the JSON-RPC error response for one that is too large or not JSON. */
async function readJson(
  c: Context,
  limit: number,
): Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly response: Response }> {
  let text: string;
  try {
    text = await readText(c, limit);
  } catch (thrown) {
    if (!(thrown instanceof ApiProblem)) throw thrown;
    return { ok: false, response: rpcError(thrown.status, -32000, `${thrown.title}: ${thrown.message}`) };
  }
  try {
    const value: unknown = JSON.parse(text);
    if (exceedsDepth(value, MAX_JSON_DEPTH)) {
      return { ok: false, response: rpcError(400, -32700, `Parse error: nests deeper than ${MAX_JSON_DEPTH} levels`) };
    }
    return { ok: true, value };
  } catch (thrown) {
    return { ok: false, response: rpcError(400, -32700, `Parse error: ${(thrown as Error).message}`) };
  }
}

/** A JSON-RPC error as an HTTP response (for requests refused before any session sees them). */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
