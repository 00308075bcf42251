import type { Principal, TokenInfo } from '../../auth/types.js';
import { InvalidInputError, PrincipalNotFoundError, StoreError } from '../../errors.js';
import type { AuthStore } from '../auth-store.js';
import {
  compareTokens,
  type PrincipalColumns,
  principalColumns,
  principalFrom,
  type TokenColumns,
  tokenColumns,
  tokenInfoFrom,
} from '../principal-columns.js';

/** Principals and tokens in memory, kept as the SQLite store's rows. */
export class MemoryAuth implements AuthStore {
  readonly #principals = new Map<string, PrincipalColumns>();
  readonly #tokens = new Map<string, TokenColumns>();
  /** Token ids by hash. */
  readonly #tokenHashes = new Map<string, string>();
  readonly #check: () => void;

  constructor(check: () => void) {
    this.#check = check;
  }

  async putPrincipal(principal: Principal): Promise<void> {
    this.#check();
    const columns = principalColumns(principal);
    for (const other of this.#principals.values()) {
      if (other.name === columns.name && other.id !== columns.id) {
        throw new InvalidInputError(`a principal named ${columns.name} exists`);
      }
    }
    this.#principals.set(columns.id, columns);
  }

  async getPrincipal(id: string): Promise<Principal | undefined> {
    this.#check();
    const row = this.#principals.get(id);
    return row === undefined ? undefined : principalFrom(row);
  }

  async listPrincipals(): Promise<Principal[]> {
    this.#check();
    const rows = [...this.#principals.values()].sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    );
    return rows.map(principalFrom);
  }

  async putToken(token: TokenInfo & { readonly hash: string }): Promise<void> {
    this.#check();
    const columns = tokenColumns(token);
    if (!this.#principals.has(columns.principal_id)) {
      throw new PrincipalNotFoundError(`no principal has the id ${columns.principal_id}`);
    }
    if (this.#tokens.has(columns.id)) throw new StoreError(`writing token ${columns.id} failed: its id exists`);
    if (this.#tokenHashes.has(columns.hash))
      throw new StoreError(`writing token ${columns.id} failed: its hash exists`);
    this.#tokens.set(columns.id, columns);
    this.#tokenHashes.set(columns.hash, columns.id);
  }

  async findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
    this.#check();
    const id = this.#tokenHashes.get(hash);
    const token = id === undefined ? undefined : this.#tokens.get(id);
    const principal = token === undefined ? undefined : this.#principals.get(token.principal_id);
    if (token === undefined || principal === undefined) return undefined;
    return { ...tokenInfoFrom(token), hash: token.hash, principal: principalFrom(principal) };
  }

  async revokeToken(id: string, at: number): Promise<boolean> {
    this.#check();
    if (!Number.isSafeInteger(at)) throw new StoreError(`token ${id}: revokedAt must be an integer time in ms`);
    const token = this.#tokens.get(id);
    if (token === undefined) return false;
    if (token.revoked_at === null) this.#tokens.set(id, { ...token, revoked_at: at });
    return true;
  }

  async listTokens(principalId?: string): Promise<TokenInfo[]> {
    this.#check();
    const rows = [...this.#tokens.values()].filter(
      (row) => principalId === undefined || row.principal_id === principalId,
    );
    return rows.sort(compareTokens).map(tokenInfoFrom);
  }
}
