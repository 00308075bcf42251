import { stateScope } from '@wardrik/core';
import { isRunVisible, type VisibleRuns, visibleRunFilter } from '../auth/permissions.js';
import type { Action, Principal, Resource } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { SessionRow } from '../store/session-store.js';
import { responseSchemas } from './response-schemas.js';
import { type Route, routeWithQuery } from './routes.js';
import { requestSchemas } from './schemas.js';
import { readBody } from './validate.js';

/** What the session routes need of the app. */
export interface SessionRouteOptions {
  readonly wardrik: Wardrik;
  /** Throws a 403 problem naming why, unless `principal` may take `action`. */
  readonly allow: (principal: Principal, action: Action, resource?: Resource) => void;
  /** Largest request body, in bytes. */
  readonly limit: number;
  /** What a listing is narrowed to for a principal's scope. */
  readonly scopeFilter: (visible: VisibleRuns) => { principal?: string; agents?: readonly string[] };
}

/**
 * `/v1/sessions`: conversations whose runs take turns. Sessions follow their runs' permissions:
 * starting one is `run.start`, reading one `run.read`, deleting one `run.cancel`; changing its
 * state is `state.edit` (and `app-state.edit` for `app:` keys, which every principal reads).
 */
export function sessionRoutes(options: SessionRouteOptions): Route[] {
  const responses = responseSchemas();
  const { CreateSessionBody, EditStateBody, ListSessionsQuery, SessionDetailsQuery } = requestSchemas();
  const { wardrik, allow, limit, scopeFilter } = options;
  const sessionFor = async (principal: Principal, id: string, action: Action): Promise<SessionRow> => {
    const session = await wardrik.getSession(id);
    allow(principal, action, { agent: session.agent, runPrincipal: session.principal });
    return session;
  };
  return [
    {
      method: 'post',
      path: '/v1/sessions',
      summary: 'Start a session: a conversation with an agent, whose runs take turns and share history and state',
      authenticated: true,
      body: CreateSessionBody,
      success: { status: 201, description: 'The session.', schema: responses.SessionRow },
      handle: async ({ c, principal }) => {
        const body = await readBody(c, CreateSessionBody, limit);
        allow(principal, 'run.start', { agent: body.agent });
        const session = await wardrik.createSession(body.agent, {
          principal: principal.id,
          ...(body.id === undefined ? {} : { id: body.id }),
        });
        c.header('location', `/v1/sessions/${session.id}`);
        return c.json(session, 201);
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/sessions',
      summary: 'List sessions you may read',
      authenticated: true,
      query: ListSessionsQuery,
      success: { status: 200, description: 'Sessions, most recently used first.', schema: responses.SessionList },
      handle: async ({ c, principal, query }) => {
        allow(principal, 'run.read');
        const visible = visibleRunFilter(principal);
        const sessions = await wardrik.listSessions({ ...query, ...scopeFilter(visible) });
        return c.json({ sessions: sessions.filter((session) => isRunVisible(visible, session)) });
      },
    }),
    routeWithQuery({
      method: 'get',
      path: '/v1/sessions/:id',
      summary:
        'A session: its runs, its latest messages (?messages=N, default 200; earlierMessages says if there are more) and the state its next run reads',
      authenticated: true,
      query: SessionDetailsQuery,
      success: { status: 200, description: 'The session.', schema: responses.SessionDetails },
      handle: async ({ c, principal, query }) => {
        const id = c.req.param('id') ?? '';
        await sessionFor(principal, id, 'run.read');
        return c.json(await wardrik.sessionDetails(id, query));
      },
    }),
    {
      method: 'delete',
      path: '/v1/sessions/:id',
      summary: 'Delete a session and its state (its runs and their journals stay)',
      authenticated: true,
      success: { status: 204, description: 'Deleted.' },
      problems: { 409: 'Its run is still going (running or parked).' },
      handle: async ({ c, principal }) => {
        const id = c.req.param('id') ?? '';
        await sessionFor(principal, id, 'run.cancel');
        await wardrik.deleteSession(id);
        return c.body(null, 204);
      },
    },
    {
      method: 'post',
      path: '/v1/sessions/:id/state',
      summary: "Change a session's state as a person (kept with who and why; values set so carry no labels)",
      authenticated: true,
      body: EditStateBody,
      success: { status: 200, description: 'The session with its state now.', schema: responses.SessionDetails },
      handle: async ({ c, principal }) => {
        const id = c.req.param('id') ?? '';
        const body = await readBody(c, EditStateBody, limit);
        const session = await sessionFor(principal, id, 'state.edit');
        const keys = [...Object.keys(body.set ?? {}), ...(body.delete ?? [])];
        if (keys.some((key) => typeof key === 'string' && stateScope(key) === 'app')) {
          allow(principal, 'app-state.edit', { agent: session.agent });
        }
        await wardrik.editSessionState(
          id,
          { ...(body.set ? { set: body.set } : {}), ...(body.delete ? { delete: body.delete } : {}) },
          { by: principal.name, reason: body.reason },
        );
        return c.json(await wardrik.sessionDetails(id));
      },
    },
  ];
}
