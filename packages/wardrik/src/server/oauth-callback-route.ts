import type { Wardrik } from '../runtime/wardrik.js';
import { send } from './problem.js';
import { type Route, routeWithQuery } from './routes.js';
import { once, zod } from './zod.js';

/** What the authorization server sends the person's browser back with (other parameters it adds are ignored). */
const CallbackQuery = once(() => {
  const z = zod();
  return z.object({
    code: z.string().min(1).max(4_096).optional().describe('The authorization code.'),
    state: z.string().min(1).max(1_024).optional().describe('The state the sign-in was started with.'),
    error: z.string().max(256).optional().describe('Why the authorization server refused (OAuth error code).'),
    error_description: z.string().max(2_048).optional().describe('What it said about it.'),
  });
});

/**
 * `GET /v1/oauth/callback`: where a person's browser lands after signing in to a remote MCP server
 * that a toolset uses (point the toolset's `auth.redirectUrl` here). No token: the sign-in's
 * `state` is what binds the callback to the runs waiting for it (`Wardrik.completeAuthorization`).
 */
export function oauthCallbackRoutes(options: { readonly wardrik: Wardrik }): Route[] {
  const { wardrik } = options;
  return [
    routeWithQuery({
      method: 'get',
      path: '/v1/oauth/callback',
      summary: "OAuth callback: finishes a person's sign-in to a remote MCP server; the runs waiting for it go on",
      authenticated: false,
      query: CallbackQuery(),
      otherParameters: 'ignored',
      success: { status: 200, description: 'Signed in; a plain-text page the person can close.' },
      problems: {
        400: 'The authorization server refused the sign-in (error), or code or state is missing.',
        404: 'No run waits for a sign-in with this state (finished already, replaced by a newer one, or forged).',
      },
      handle: async ({ c, query }) => {
        if (query.error !== undefined) {
          const said = query.error_description ? `: ${query.error_description}` : '';
          return send(
            c,
            400,
            'sign_in_refused',
            'Sign-in refused',
            `the authorization server refused the sign-in (${query.error}${said}); the runs still wait, and a person may sign in again or stop them`,
          );
        }
        if (query.code === undefined || query.state === undefined) {
          return send(
            c,
            400,
            'invalid_input',
            'Invalid request',
            'code and state: both are needed (the callback brings them)',
          );
        }
        const { runs } = await wardrik.completeAuthorization({ code: query.code, state: query.state });
        const goOn = runs.length === 1 ? '1 run goes on' : `${runs.length} runs go on`;
        return c.text(`Signed in: ${goOn}. You can close this page.\n`);
      },
    }),
  ];
}
