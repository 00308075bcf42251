import type { Principal, TokenInfo } from '../../auth/types.js';
import { StoreError } from '../../errors.js';
import type { AuthStore } from '../auth-store.js';
import { principalColumns, tokenColumns } from '../principal-columns.js';
import * as auth from './auth-queries.js';
import type { PostgresExecutor } from './postgres-executor.js';

/** Principals and tokens on PostgreSQL: never waiting for queued run writes. */
export class PostgresAuth implements AuthStore {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async putPrincipal(principal: Principal): Promise<void> {
    const columns = principalColumns(principal);
    await this.#executor.call(`writing principal ${columns.id}`, (client) => auth.putPrincipal(client, columns), {
      retry: false,
    });
  }

  async getPrincipal(id: string): Promise<Principal | undefined> {
    return this.#executor.call(`reading principal ${id}`, (client) => auth.getPrincipal(client, id), { retry: true });
  }

  async listPrincipals(): Promise<Principal[]> {
    return this.#executor.call('listing principals', (client) => auth.listPrincipals(client), { retry: true });
  }

  async putToken(token: TokenInfo & { readonly hash: string }): Promise<void> {
    const columns = tokenColumns(token);
    await this.#executor.call(`writing token ${columns.id}`, (client) => auth.putToken(client, columns), {
      retry: false,
    });
  }

  async findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
    return this.#executor.call('looking a token up', (client) => auth.findTokenByHash(client, hash), { retry: true });
  }

  async revokeToken(id: string, at: number): Promise<boolean> {
    if (!Number.isSafeInteger(at)) throw new StoreError(`token ${id}: revokedAt must be an integer time in ms`);
    return this.#executor.call(`revoking token ${id}`, (client) => auth.revokeToken(client, id, at), { retry: true });
  }

  async listTokens(principalId?: string): Promise<TokenInfo[]> {
    return this.#executor.call('listing tokens', (client) => auth.listTokens(client, principalId), { retry: true });
  }
}
