import type { Wardrik } from '../runtime/wardrik.js';
import type { NodeLifecycle } from './node-lifecycle.js';
import { STORE_FAILED, send } from './problem.js';
import type { Route } from './routes.js';

/** How long `/v1/ready` waits for the store to answer before it says the node is not ready. */
export const READY_STORE_TIMEOUT_MS = 2_000;

/**
 * The probes: `GET /v1/live` (the process answers: restart it if not) and `GET /v1/ready` (send it
 * work: migrated, its runs recovered, its store answering, not stopping). Neither needs a token.
 */
export function probeRoutes(options: { readonly wardrik: Wardrik; readonly lifecycle: NodeLifecycle }): Route[] {
  const { wardrik, lifecycle } = options;
  return [
    {
      method: 'get',
      path: '/v1/live',
      summary: 'Liveness: the process answers',
      authenticated: false,
      success: {
        status: 200,
        description: 'The process answers (a liveness probe: restart the process when it does not).',
      },
      handle: ({ c }) => c.json({ status: 'live' }),
    },
    {
      method: 'get',
      path: '/v1/ready',
      summary: 'Readiness: migrated, runs recovered, store answering, not stopping',
      authenticated: false,
      success: {
        status: 200,
        description:
          'The node takes work (a readiness probe). 503 while it starts (migrating, recovering runs), once it stops (draining), when its store failed or does not answer.',
      },
      problems: {
        503: 'Not ready: starting, stopping, or the store failed or does not answer; the detail says which.',
      },
      handle: async ({ c }) => {
        if (wardrik.failure) return send(c, 503, 'store', 'Store failed', STORE_FAILED);
        if (lifecycle.phase === 'starting') {
          return send(c, 503, 'not_ready', 'Not ready', 'starting: migrating the store and recovering runs');
        }
        if (lifecycle.phase === 'stopping' || wardrik.draining) {
          return send(c, 503, 'not_ready', 'Not ready', 'stopping: this node drains its runs and takes no new work');
        }
        const answered = await answersWithin(wardrik.ping(), READY_STORE_TIMEOUT_MS);
        if (answered !== true) {
          // What the store said stays in the server's log: this route answers anyone.
          return send(c, 503, 'not_ready', 'Not ready', `the store ${answered}`);
        }
        return c.json({ status: 'ready' });
      },
    },
  ];
}

/** True once `ping` resolves within `ms`; else why not ("did not answer…", "failed"). */
async function answersWithin(ping: Promise<void>, ms: number): Promise<true | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`did not answer within ${ms} ms`), ms);
  });
  try {
    return await Promise.race([
      ping.then(
        () => true as const,
        () => 'failed to answer',
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
