import type { Principal, TokenInfo } from '../auth/types.js';

/**
 * Principals and their tokens. These writes are small and rare: each is on disk when it resolves.
 * Their reads never wait for queued run writes, so authenticating a request costs no flush.
 */
export interface AuthStore {
  /**
   * Inserts a principal, or replaces the one with its id. Throws `InvalidInputError` if another
   * principal has its name, `StoreError` if it is malformed.
   */
  putPrincipal(principal: Principal): Promise<void>;
  getPrincipal(id: string): Promise<Principal | undefined>;
  /** Every principal, by name. */
  listPrincipals(): Promise<Principal[]>;
  /**
   * Adds a token, stored by the hash of its secret (never the secret). Throws
   * `PrincipalNotFoundError` if its principal is unknown, `StoreError` if its id or hash exists.
   */
  putToken(token: TokenInfo & { readonly hash: string }): Promise<void>;
  /**
   * The token with this hash and its principal. Revoked tokens are returned too, with
   * `revokedAt`, so that the caller can say why one is refused.
   */
  findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined>;
  /**
   * Marks a token revoked at `at` (a token revoked already keeps its first `revokedAt`).
   * @returns false if no token has this id.
   */
  revokeToken(id: string, at: number): Promise<boolean>;
  /** Tokens (all, or one principal's), oldest first; never their secrets or hashes. */
  listTokens(principalId?: string): Promise<TokenInfo[]>;
}
