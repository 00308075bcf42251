import type { JsonSchema } from '@wardrik/core';
import { can, type VisibleRuns, visibleRunFilter } from '../auth/permissions.js';
import type { Action, Principal, Resource } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow, RunRow } from '../store/store.js';
import { honoStreaming } from './hono.js';
import { InboxFeed } from './inbox-feed.js';
import { NODE_STOPPING_EVENT, type NodeLifecycle } from './node-lifecycle.js';
import { ApiProblem, RETRY_AFTER_SECONDS } from './problem.js';
import { ACTIONS, responseSchemas } from './response-schemas.js';
import { type Route, routeWithQuery } from './routes.js';
import { requestSchemas } from './schemas.js';
import { SERVER_LIMIT_DEFAULTS } from './server-settings.js';
import type { StreamSlots } from './stream-slots.js';
import type { TokenConnections } from './token-connections.js';

/** What the console's routes need of the app. */
export interface ConsoleRouteOptions {
  readonly wardrik: Wardrik;
  /** Throws a 403 problem naming why, unless `principal` may take `action`. */
  readonly allow: (principal: Principal, action: Action, resource?: Resource) => void;
  /** What a listing is narrowed to for a principal's scope. */
  readonly scopeFilter: (visible: VisibleRuns) => { principal?: string; agents?: readonly string[] };
  /** Event streams per principal. */
  readonly slots: StreamSlots;
  /** Streams by the token that opened them (revoking it ends them). */
  readonly streams: TokenConnections;
  /** Comment lines sent on idle event streams, in ms. */
  readonly heartbeatMs: number;
  /** The node's life: its stopping ends the inbox streams with a last event. */
  readonly lifecycle: NodeLifecycle;
}

/** An inbox page holds at most this many parks. */
const DEFAULT_INBOX_LIMIT = 50;

/** The run a park holds, as the inbox shows it. */
export interface InboxRun {
  readonly id: string;
  readonly agent: string;
  readonly principal: string;
  readonly status: RunRow['status'];
  /** The run's cost so far (as of its park). */
  readonly measures: RunRow['measures'];
  readonly labels: RunRow['labels'];
}

/** One open park in the inbox: the park, its run, and the JSON Schema of the tool it holds, when known. */
export interface InboxItem {
  readonly park: ParkRow;
  readonly run: InboxRun;
  /** The input schema of the held call's tool (local tools of the agent); absent when not known here. */
  readonly schema?: JsonSchema;
}

/**
 * The routes the console needs, part of the public API: who am I (`/v1/me`), the inbox of open
 * parks newest first, paged (`/v1/inbox`), and its live stream (`/v1/inbox/events`).
 */
export function consoleRoutes(options: ConsoleRouteOptions): Route[] {
  const responses = responseSchemas();
  const { InboxQuery } = requestSchemas();
  const { wardrik, allow, scopeFilter, slots, streams, heartbeatMs, lifecycle } = options;

  const schemaOf = (agentName: string, tool: string | undefined): JsonSchema | undefined => {
    if (tool === undefined) return undefined;
    const agent = wardrik.agents().find((each) => each.name === agentName);
    return agent?.toolDefinitions.find((definition) => definition.name === tool)?.inputSchema;
  };
  const itemOf = (park: ParkRow, run: RunRow): InboxItem => {
    const schema = schemaOf(run.agent, park.call?.name);
    return {
      park,
      run: {
        id: run.id,
        agent: run.agent,
        principal: run.principal,
        status: run.status,
        measures: run.measures,
        labels: run.labels,
      },
      ...(schema === undefined ? {} : { schema }),
    };
  };

  return [
    {
      method: 'get',
      path: '/v1/me',
      summary: 'Who the token is: its principal, and which actions it may take (what the console offers)',
      authenticated: true,
      success: {
        status: 200,
        description: 'The principal and, for each action, whether it may take it.',
        schema: responses.Me,
      },
      handle: ({ c, principal }) => {
        const may = Object.fromEntries(ACTIONS.map((action) => [action, can(principal, action).allowed]));
        const { id, name, kind, role, agents } = principal;
        return c.json({ principal: { id, name, kind, role, agents }, may });
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/inbox',
      summary:
        'Open parks you may read, newest first, paged (next: the cursor of the next page), each with its run (agent, principal, cost so far, labels) and the JSON Schema of the tool it holds when known',
      authenticated: true,
      query: InboxQuery,
      success: {
        status: 200,
        description: '{ items, next? }: items newest first; next is absent on the last page.',
        schema: responses.InboxPage,
      },
      handle: async ({ c, principal, query }) => {
        allow(principal, 'park.read');
        const limit = query.limit ?? DEFAULT_INBOX_LIMIT;
        const parks = await wardrik.listParks({
          status: 'open',
          order: 'newest',
          limit: limit + 1,
          ...(query.after === undefined ? {} : { after: parseCursor(query.after) }),
          ...scopeFilter(visibleRunFilter(principal)),
        });
        const page = parks.slice(0, limit);
        const runs = new Map<string, RunRow>();
        for (const park of page) {
          if (!runs.has(park.runId)) runs.set(park.runId, await wardrik.getRunSummary(park.runId));
        }
        const items = page.map((park) => itemOf(park, runs.get(park.runId) as RunRow));
        const last = page.at(-1);
        const next = parks.length > limit && last !== undefined ? cursorOf(last) : undefined;
        return c.json({ items, ...(next === undefined ? {} : { next }) });
      },
    }),
    {
      method: 'get',
      path: '/v1/inbox/events',
      summary:
        'Follow the inbox live (Server-Sent Events): ready once listening (then read /v1/inbox), park-opened (an inbox item), park-answered, run-ended (its open parks closed); across nodes on a shared store',
      authenticated: true,
      success: {
        status: 200,
        description: 'text/event-stream: ready, park-opened, park-answered, run-ended.',
        stream: true,
        events: responses.INBOX_EVENTS,
      },
      problems: {
        429: `You have maxStreamsPerPrincipal event streams open (default ${SERVER_LIMIT_DEFAULTS.maxStreamsPerPrincipal}); retry after Retry-After seconds (${RETRY_AFTER_SECONDS}).`,
      },
      handle: ({ c, principal, tokenId }) => {
        const releaseSlot = slots.take(principal);
        try {
          allow(principal, 'park.read');
        } catch (thrown) {
          releaseSlot();
          throw thrown;
        }
        const visible = visibleRunFilter(principal);
        const bearer = c.req.header('authorization') ?? '';
        return honoStreaming().streamSSE(c, async (stream) => {
          const feed = new InboxFeed(wardrik, visible, itemOf);
          stream.onAbort(() => feed.close());
          const releaseToken = streams.hold({ tokenId, bearer }, () => stream.abort());
          let nodeStopping = false;
          const releaseOpen = lifecycle.holdStream(() => {
            nodeStopping = true;
            feed.close();
          });
          const heartbeat = setInterval(() => {
            stream.write(': keep-alive\n\n').catch(() => feed.close());
          }, heartbeatMs);
          try {
            await stream.writeSSE({ event: 'ready', data: '{}' });
            for (;;) {
              const messages = await feed.next();
              if (messages.length === 0) break;
              for (const { event, data } of messages) await stream.writeSSE({ event, data: JSON.stringify(data) });
            }
            if (nodeStopping) {
              await stream.writeSSE({ event: NODE_STOPPING_EVENT.type, data: JSON.stringify(NODE_STOPPING_EVENT) });
            }
          } finally {
            releaseOpen();
            feed.close();
            clearInterval(heartbeat);
            releaseToken();
            releaseSlot();
          }
        });
      },
    },
  ];
}

/** A page's cursor: the last park's `createdAt` and id. */
function cursorOf(park: ParkRow): string {
  return `${park.createdAt}:${park.id}`;
}

function parseCursor(cursor: string): { createdAt: number; id: string } {
  const colon = cursor.indexOf(':');
  const createdAt = Number(cursor.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(createdAt) || colon === cursor.length - 1) {
    throw new ApiProblem(400, 'invalid_request', 'Invalid request', 'after: expected a cursor as given in next');
  }
  return { createdAt, id: cursor.slice(colon + 1) };
}
