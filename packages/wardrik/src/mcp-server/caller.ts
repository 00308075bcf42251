import type { AuthService } from '../auth/auth-service.js';
import type { Principal } from '../auth/types.js';

/** Who an MCP request comes from, or why it is refused (401). */
export type Caller =
  | { readonly ok: true; readonly principal: Principal; readonly token?: string }
  | { readonly ok: false; readonly reason: string; readonly tokenSent: boolean };

/** How long the unauthenticated principal is taken as found before it is looked up again, in ms. */
const FOUND_FOR_MS = 1_000;

/**
 * Finds who a request to `/mcp` comes from: the bearer of its token, as for the HTTP API; or,
 * when the server takes requests without a token as a named principal (`mcp.unauthenticated`),
 * that principal for a request that sends none. A token sent and refused is refused, whatever
 * that setting says.
 */
export class Callers {
  readonly #auth: AuthService;
  readonly #unauthenticated: string | undefined;
  #found: { readonly principal: Principal | undefined; readonly until: number } | undefined;

  constructor(auth: AuthService, unauthenticated: string | undefined) {
    this.#auth = auth;
    this.#unauthenticated = unauthenticated;
  }

  async identify(authorization: string | undefined): Promise<Caller> {
    const sent = typeof authorization === 'string' && authorization.trim() !== '';
    if (!sent && this.#unauthenticated !== undefined) return this.#anonymous(this.#unauthenticated);
    const outcome = await this.#auth.authenticate(authorization);
    if (!outcome.ok) return { ok: false, reason: outcome.reason, tokenSent: sent };
    return { ok: true, principal: outcome.principal, token: outcome.tokenId };
  }

  async #anonymous(name: string): Promise<Caller> {
    const now = Date.now();
    if (!this.#found || this.#found.until <= now) {
      this.#found = { principal: await this.#auth.findPrincipalByName(name), until: now + FOUND_FOR_MS };
    }
    const principal = this.#found.principal;
    if (principal) return { ok: true, principal };
    return {
      ok: false,
      tokenSent: false,
      reason: `missing bearer token (mcp.unauthenticated names principal ${name}, which does not exist: create it with wardrik tokens create --name ${name})`,
    };
  }
}
