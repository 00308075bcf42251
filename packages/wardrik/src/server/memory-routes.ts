import type { Action, Principal, Resource } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import { type Route, routeWithQuery } from './routes.js';
import { once, zod } from './zod.js';

/** GET /v1/memory */
const searchMemoryQuery = once(() => {
  const z = zod();
  return z
    .object({
      agent: z.string().min(1).describe('The agent whose app’s memories to search.'),
      query: z.string().describe('Words to look for (1–1,000 characters).'),
      principal: z
        .string()
        .min(1)
        .optional()
        .describe('Whose memories (default: yours; others’ for operators and admins).'),
      limit: z.coerce.number().int().min(1).max(50).optional().describe('How many (default 5).'),
    })
    .strict();
});

/** What the memory routes need of the app. */
export interface MemoryRouteOptions {
  readonly wardrik: Wardrik;
  /** Throws a 403 problem naming why, unless `principal` may take `action`. */
  readonly allow: (principal: Principal, action: Action, resource?: Resource) => void;
}

/**
 * Memory over HTTP. Adding a session follows its runs: you must be able to read the session
 * (`run.read`: users their own) and to start runs of its agent (`run.start`: users and admins).
 * Searching is reading: `run.read` on the agent, for your own memories (users) or anyone's
 * (operators and admins, with `principal`).
 */
export function memoryRoutes(options: MemoryRouteOptions): Route[] {
  const { wardrik, allow } = options;
  return [
    {
      method: 'post',
      path: '/v1/sessions/:id/memory',
      summary:
        'Add what was said in a session to memory (each message with the labels of its run; again: only what is new)',
      authenticated: true,
      success: { status: 200, description: 'How many memories were new: { added }.' },
      handle: async ({ c, principal }) => {
        const id = c.req.param('id') ?? '';
        const session = await wardrik.getSession(id);
        allow(principal, 'run.read', { agent: session.agent, runPrincipal: session.principal });
        allow(principal, 'run.start', { agent: session.agent });
        return c.json(await wardrik.memory.addSession(id));
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/memory',
      summary:
        'Search memories of earlier sessions (a principal’s, in an agent’s app), best match first, each with its labels',
      authenticated: true,
      query: searchMemoryQuery(),
      success: { status: 200, description: '{ memories: [{ id, text, role, labels, sessionId, runId, at, score }] }' },
      handle: async ({ c, principal, query }) => {
        const whose = query.principal ?? principal.id;
        allow(principal, 'run.read', { agent: query.agent, runPrincipal: whose });
        const memories = await wardrik.memory.search({
          agent: query.agent,
          principal: whose,
          query: query.query,
          ...(query.limit === undefined ? {} : { limit: query.limit }),
        });
        return c.json({ memories });
      },
    }),
  ];
}
