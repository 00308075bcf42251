import type { Hono } from 'hono';
import type { AuthService } from '../auth/auth-service.js';
import { can, isRunVisible, type VisibleRuns, visibleRunFilter } from '../auth/permissions.js';
import type { Action, Principal, Resource } from '../auth/types.js';
import type { McpEndpoint } from '../mcp-server/mcp-endpoint.js';
import { isJournaled } from '../runtime/events.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { RunRow } from '../store/store.js';
import { artifactRoutes } from './artifact-routes.js';
import { mountConsole } from './console-assets.js';
import { consoleRoutes } from './console-routes.js';
import { honoModule, honoStreaming } from './hono.js';
import { memoryRoutes } from './memory-routes.js';
import { metricsRoute, type ServedMetrics } from './metrics-route.js';
import { NODE_STOPPING_EVENT, NodeLifecycle } from './node-lifecycle.js';
import { oauthCallbackRoutes } from './oauth-callback-route.js';
import { openApiDocument } from './openapi.js';
import { probeRoutes } from './probe-routes.js';
import { ApiProblem, problemResponse, RETRY_AFTER_SECONDS, STORE_FAILED, send } from './problem.js';
import { neverStored, responseHeaders } from './response-headers.js';
import { responseSchemas } from './response-schemas.js';
import { retentionRoutes } from './retention-routes.js';
import { type Route, routeWithQuery } from './routes.js';
import { requestSchemas } from './schemas.js';
import { resolveServerLimits, SERVER_LIMIT_DEFAULTS, type ServerLimits } from './server-settings.js';
import { sessionRoutes } from './session-routes.js';
import { StreamSlots } from './stream-slots.js';
import { TokenConnections } from './token-connections.js';
import { DEFAULT_BODY_LIMIT, readBody, readQuery } from './validate.js';

/** How to build the API. */
export interface AppOptions extends Pick<ServerLimits, 'maxStreamsPerPrincipal' | 'revocationCheckMs'> {
  readonly wardrik: Wardrik;
  readonly auth: AuthService;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
  /** Comment lines sent on idle event streams, in ms. Default 15 s. */
  readonly heartbeatMs?: number;
  /** Serve `GET /metrics` to the bearer of a metrics token (see `enableMetrics`). */
  readonly metrics?: ServedMetrics;
  /**
   * The node's phase, which `/v1/ready` reports, and its open event streams (ended with a last
   * `node-stopping` event when it stops). Default: a node ready at once.
   */
  readonly lifecycle?: NodeLifecycle;
  /** Serve MCP at `/mcp` (see `createMcpEndpoint`; `startServer` makes it from its `mcp` option). */
  readonly mcpEndpoint?: McpEndpoint;
}

type Env = { Variables: { principal: Principal } };

/**
 * The HTTP API under `/v1`, as a Hono app (serve it with `startServer`, or mount it anywhere).
 *
 * @example
 * ```ts
 * const app = createApp({ wardrik, auth: new AuthService(wardrik.store) })
 * const response = await app.request('/v1/health')
 * ```
 */
export function createApp(options: AppOptions): Hono<Env> {
  const responses = responseSchemas();
  const {
    AnswerParkBody,
    CancelRunBody,
    CreateTokenBody,
    ListParksQuery,
    ListRunsQuery,
    ReleaseLabelsBody,
    RunEventsQuery,
    StartRunBody,
  } = requestSchemas();
  const { wardrik, auth } = options;
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const { maxStreamsPerPrincipal, revocationCheckMs } = resolveServerLimits({
    maxStreamsPerPrincipal: options.maxStreamsPerPrincipal,
    revocationCheckMs: options.revocationCheckMs,
  });
  const slots = new StreamSlots(maxStreamsPerPrincipal);
  const streams = new TokenConnections(auth, { recheckMs: revocationCheckMs });
  const lifecycle = options.lifecycle ?? new NodeLifecycle('ready');
  const { Hono: NewHono } = honoModule();
  const app = new NewHono<Env>();

  app.use('*', responseHeaders());
  app.onError((thrown, c) => problemResponse(c, thrown));
  app.notFound((c) => send(c, 404, 'not_found', 'Not found', `no route ${c.req.method} ${c.req.path}`));

  const allow = (principal: Principal, action: Action, resource?: Resource) => {
    const decision = can(principal, action, resource);
    if (!decision.allowed) throw new ApiProblem(403, 'forbidden', 'Forbidden', decision.reason);
  };
  const readableRun = async (principal: Principal, runId: string, action: Action = 'run.read'): Promise<RunRow> => {
    const run = await wardrik.getRunSummary(runId);
    allow(principal, action, { agent: run.agent, runPrincipal: run.principal });
    return run;
  };

  const routes: Route[] = [
    {
      method: 'get',
      path: '/v1/health',
      summary: 'Health',
      authenticated: false,
      success: { status: 200, description: 'The server is up (503 once its store failed: it takes no more work).' },
      handle: ({ c }) =>
        wardrik.failure ? send(c, 503, 'store', 'Store failed', STORE_FAILED) : c.json({ status: 'ok' }),
    },
    ...probeRoutes({ wardrik, lifecycle }),
    ...oauthCallbackRoutes({ wardrik }),
    {
      method: 'get',
      path: '/v1/openapi.json',
      summary: 'This document',
      authenticated: false,
      success: { status: 200, description: 'The OpenAPI document.' },
      handle: ({ c }) => c.json(document),
    },
    {
      method: 'get',
      path: '/v1/agents',
      summary: 'List the agents you may use',
      authenticated: true,
      success: { status: 200, description: 'Agents.' },
      handle: ({ c, principal }) => {
        allow(principal, 'agents.list');
        const agents = wardrik
          .agents()
          .filter((agent) => can(principal, 'agents.list', { agent: agent.name }).allowed)
          .map((agent) => ({
            name: agent.name,
            description: agent.description,
            tools: agent.toolDefinitions.map((tool) => tool.name),
            budget: agent.budget,
            maxSteps: agent.maxSteps,
          }));
        return c.json({ agents });
      },
    },
    {
      method: 'post',
      path: '/v1/runs',
      summary: 'Start a run (with wait: true, answer once it ends or parks)',
      authenticated: true,
      body: StartRunBody,
      success: { status: 201, description: 'The run was started (or, with wait, has ended or parked).' },
      handle: async ({ c, principal }) => {
        const body = await readBody(c, StartRunBody, limit);
        allow(principal, 'run.start', { agent: body.agent });
        const { runId } = await wardrik.start(body.agent, body.input, {
          principal: principal.id,
          ...(body.budget ? { budget: body.budget } : {}),
          ...(body.session ? { session: body.session } : {}),
        });
        c.header('location', `/v1/runs/${runId}`);
        if (!body.wait) return c.json({ runId, status: 'running' }, 201);
        return c.json(await wardrik.wait(runId), 201);
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/runs',
      summary: 'List runs you may read',
      authenticated: true,
      query: ListRunsQuery,
      success: { status: 200, description: 'Runs, newest first.', schema: responses.RunList },
      handle: async ({ c, principal, query }) => {
        allow(principal, 'run.read');
        const visible = visibleRunFilter(principal);
        // The scope narrows the query itself, so that `limit` counts only runs the principal may see.
        const runs = await wardrik.listRuns({ ...query, ...scopeFilter(visible) });
        return c.json({ runs: runs.filter((run) => isRunVisible(visible, run)) });
      },
    }),
    {
      method: 'get',
      path: '/v1/runs/:id',
      summary: 'A run with its journal, measures and labels',
      authenticated: true,
      success: { status: 200, description: 'The run.', schema: responses.RunDetails },
      handle: async ({ c, principal }) => {
        const run = await wardrik.getRun(c.req.param('id') ?? '');
        allow(principal, 'run.read', { agent: run.agent, runPrincipal: run.principal });
        return c.json(run);
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/runs/:id/events',
      summary: "Follow a run's events live (Server-Sent Events; resume with Last-Event-ID)",
      authenticated: true,
      query: RunEventsQuery,
      success: {
        status: 200,
        description: 'text/event-stream of run events; the id is the seq.',
        stream: true,
        events: responses.RUN_EVENTS,
      },
      problems: {
        429: `You have maxStreamsPerPrincipal event streams open (default ${SERVER_LIMIT_DEFAULTS.maxStreamsPerPrincipal}); retry after Retry-After seconds (${RETRY_AFTER_SECONDS}).`,
      },
      handle: async ({ c, principal, tokenId, query }) => {
        const runId = c.req.param('id') ?? '';
        // Before any store read, so that refusing a stream over the limit costs next to nothing.
        const releaseSlot = slots.take(principal);
        let after: number;
        try {
          await readableRun(principal, runId);
          after = Number(c.req.header('last-event-id') ?? query.after ?? 0);
          if (!Number.isInteger(after) || after < 0) {
            throw new ApiProblem(400, 'invalid_request', 'Invalid request', 'Last-Event-ID: expected a seq number');
          }
        } catch (thrown) {
          releaseSlot();
          throw thrown;
        }
        const bearer = c.req.header('authorization') ?? '';
        return honoStreaming().streamSSE(c, async (stream) => {
          const abort = new AbortController();
          stream.onAbort(() => abort.abort());
          // Revoking the token ends the stream: abort() stops following and ends the response.
          const releaseToken = streams.hold({ tokenId, bearer }, () => stream.abort());
          // The node stopping ends it too, with a last event: the client reconnects, elsewhere.
          let nodeStopping = false;
          const releaseOpen = lifecycle.holdStream(() => {
            nodeStopping = true;
            abort.abort();
          });
          const heartbeat = setInterval(() => {
            stream.write(': keep-alive\n\n').catch(() => abort.abort());
          }, heartbeatMs);
          try {
            for await (const event of wardrik.follow(runId, { afterSeq: after, signal: abort.signal })) {
              if (isJournaled(event)) {
                await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
              } else {
                await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
              }
            }
            if (nodeStopping) {
              await stream.writeSSE({ event: NODE_STOPPING_EVENT.type, data: JSON.stringify(NODE_STOPPING_EVENT) });
            }
          } finally {
            clearInterval(heartbeat);
            releaseOpen();
            releaseToken();
            releaseSlot();
          }
        });
      },
    }),
    {
      method: 'post',
      path: '/v1/runs/:id/cancel',
      summary: 'Cancel a run',
      authenticated: true,
      body: CancelRunBody,
      success: { status: 200, description: 'The run as it ended.', schema: responses.RunResult },
      handle: async ({ c, principal }) => {
        const runId = c.req.param('id') ?? '';
        const body = await readBody(c, CancelRunBody, limit);
        await readableRun(principal, runId, 'run.cancel');
        return c.json(await wardrik.cancel(runId, body.reason ?? `cancelled by ${principal.name}`));
      },
    },
    {
      method: 'post',
      path: '/v1/runs/:id/labels/release',
      summary: "Release labels from a run (a person's journaled decision; the only way labels weaken)",
      authenticated: true,
      body: ReleaseLabelsBody,
      success: { status: 200, description: 'The run with its labels now.', schema: responses.RunResult },
      handle: async ({ c, principal }) => {
        const runId = c.req.param('id') ?? '';
        const body = await readBody(c, ReleaseLabelsBody, limit);
        await readableRun(principal, runId, 'labels.release');
        return c.json(await wardrik.releaseLabels(runId, body.labels, { by: principal.name, reason: body.reason }));
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/parks',
      summary: 'List parks you may read',
      authenticated: true,
      query: ListParksQuery,
      success: { status: 200, description: 'Parks, oldest first.', schema: responses.ParkList },
      handle: async ({ c, principal, query }) => {
        allow(principal, 'park.read');
        // The scope narrows the query itself, so that `limit` counts only parks the principal may see.
        const parks = await wardrik.listParks({ ...query, ...scopeFilter(visibleRunFilter(principal)) });
        return c.json({ parks });
      },
    }),
    {
      method: 'get',
      path: '/v1/parks/:id',
      summary: 'A park: the call it holds, the run’s labels, why it waits',
      authenticated: true,
      success: { status: 200, description: 'The park.', schema: responses.ParkRow },
      handle: async ({ c, principal }) => {
        const park = await wardrik.getPark(c.req.param('id') ?? '');
        await readableRun(principal, park.runId, 'park.read');
        return c.json(park);
      },
    },
    {
      method: 'post',
      path: '/v1/parks/:id/answer',
      summary: 'Answer a park (bound to the call by its callHash)',
      authenticated: true,
      body: AnswerParkBody,
      success: { status: 200, description: 'The answer is on disk; the run resumes.', schema: responses.ParkRow },
      handle: async ({ c, principal }) => {
        const parkId = c.req.param('id') ?? '';
        const body = await readBody(c, AnswerParkBody, limit);
        const park = await wardrik.getPark(parkId);
        await readableRun(principal, park.runId, 'park.answer');
        await wardrik.answerPark(parkId, body.decision, { callHash: body.callHash, by: principal.name });
        return c.json(await wardrik.getPark(parkId));
      },
    },
    {
      method: 'get',
      path: '/v1/workers',
      summary:
        "The cluster's connected workers: node, principal, tools (and those left out, with why), calls in flight",
      authenticated: true,
      success: { status: 200, description: 'Workers, of every node sharing the store.', schema: responses.WorkerList },
      handle: async ({ c, principal }) => {
        allow(principal, 'workers.list');
        return c.json({ workers: await wardrik.workers.listCluster() });
      },
    },
    {
      method: 'post',
      path: '/v1/tokens',
      summary: 'Create a token (and its principal if new); the token is shown only here',
      authenticated: true,
      body: CreateTokenBody,
      success: { status: 201, description: 'The token, shown once.', schema: responses.IssuedToken },
      handle: async ({ c, principal }) => {
        allow(principal, 'tokens.manage');
        const body = await readBody(c, CreateTokenBody, limit);
        const issued = await auth.tokenFor(body);
        const { expiresAt } = issued.info;
        return c.json(
          {
            token: issued.token,
            tokenId: issued.info.id,
            principal: issued.principal,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          },
          201,
        );
      },
    },
    {
      method: 'get',
      path: '/v1/tokens',
      summary: 'List tokens (never their secrets)',
      authenticated: true,
      success: { status: 200, description: 'Tokens and principals.', schema: responses.TokenList },
      handle: async ({ c, principal }) => {
        allow(principal, 'tokens.manage');
        return c.json({ tokens: await auth.listTokens(), principals: await auth.listPrincipals() });
      },
    },
    {
      method: 'delete',
      path: '/v1/tokens/:id',
      summary: 'Revoke a token',
      authenticated: true,
      success: { status: 204, description: 'Revoked.' },
      handle: async ({ c, principal }) => {
        allow(principal, 'tokens.manage');
        await auth.revokeToken(c.req.param('id') ?? '');
        return c.body(null, 204);
      },
    },
    ...sessionRoutes({ wardrik, allow, limit, scopeFilter }),
    ...memoryRoutes({ wardrik, allow }),
    ...artifactRoutes({ wardrik, allow }),
    ...retentionRoutes({ wardrik, readableRun: (principal, runId) => readableRun(principal, runId), limit }),
    ...consoleRoutes({ wardrik, allow, scopeFilter, slots, streams, heartbeatMs, lifecycle }),
    ...(options.metrics ? [metricsRoute(options.metrics)] : []),
  ];
  options.metrics?.source.countEventStreams?.(() => slots.total);

  const document = openApiDocument(routes);

  for (const route of routes) {
    app.on(route.method.toUpperCase(), route.path, async (c) => {
      // Before authentication, for every route alike: which parameters a route takes is public
      // (the OpenAPI document), and a token put in the URL is then named for what it is.
      const query = readQuery(c, route);
      let principal = undefined as unknown as Principal;
      let tokenId = '';
      if (route.authenticated) {
        const outcome = await auth.authenticate(c.req.header('authorization'));
        if (!outcome.ok) {
          c.header('www-authenticate', 'Bearer');
          return send(c, 401, 'unauthorized', 'Unauthorized', outcome.reason);
        }
        principal = outcome.principal;
        tokenId = outcome.tokenId;
      }
      return neverStored(await route.handle({ c, principal, tokenId, query }));
    });
  }
  options.mcpEndpoint?.mount(app as unknown as Hono);
  // The console: a page at / that talks only to the routes above.
  mountConsole(app as unknown as Hono);
  return app;
}

/** What a principal's scope adds to a listing's filter: its own runs only, or only its agents'. */
function scopeFilter(visible: VisibleRuns): { principal?: string; agents?: readonly string[] } {
  if (visible.type !== 'some') return {};
  return {
    ...(visible.principal === undefined ? {} : { principal: visible.principal }),
    ...(visible.agents === undefined ? {} : { agents: visible.agents }),
  };
}
