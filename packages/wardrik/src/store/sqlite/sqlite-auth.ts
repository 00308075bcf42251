import type Database from 'better-sqlite3';
import type { Principal, TokenInfo } from '../../auth/types.js';
import { InvalidInputError, PrincipalNotFoundError, StoreError } from '../../errors.js';
import type { AuthStore } from '../auth-store.js';
import {
  type PrincipalColumns,
  principalColumns,
  principalFrom,
  type TokenColumns,
  tokenColumns,
  tokenInfoFrom,
} from '../principal-columns.js';
import type { SqliteExecutor } from './sqlite-executor.js';

/** A token joined with its principal; the principal's columns carry a `principal_` prefix. */
type TokenWithPrincipalColumns = TokenColumns & {
  readonly principal_name: string;
  readonly principal_kind: string;
  readonly principal_role: string;
  readonly principal_agents: string;
  readonly principal_created_at: number;
};

function prepareAuth(database: Database.Database) {
  const getPrincipal = database.prepare<[string], PrincipalColumns>('SELECT * FROM principals WHERE id = ?');
  const principalNamed = database.prepare<[string], { id: string }>('SELECT id FROM principals WHERE name = ?');
  const upsertPrincipal = database.prepare<[string, string, string, string, string, number]>(
    `INSERT INTO principals (id, name, kind, role, agents, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, role = excluded.role,
       agents = excluded.agents, created_at = excluded.created_at`,
  );
  const insertToken = database.prepare<[string, string, string, number, number | null, number | null]>(
    'INSERT INTO tokens (id, principal_id, hash, created_at, revoked_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return {
    getPrincipal,
    listPrincipals: database.prepare<[], PrincipalColumns>('SELECT * FROM principals ORDER BY name'),
    findTokenByHash: database.prepare<[string], TokenWithPrincipalColumns>(
      `SELECT t.id, t.principal_id, t.hash, t.created_at, t.revoked_at, t.expires_at,
         p.name AS principal_name, p.kind AS principal_kind, p.role AS principal_role,
         p.agents AS principal_agents, p.created_at AS principal_created_at
       FROM tokens t JOIN principals p ON p.id = t.principal_id WHERE t.hash = ?`,
    ),
    revokeToken: database.prepare<[number, string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?',
    ),
    listTokens: database.prepare<[], TokenColumns>('SELECT * FROM tokens ORDER BY created_at, id'),
    listTokensOf: database.prepare<[string], TokenColumns>(
      'SELECT * FROM tokens WHERE principal_id = ? ORDER BY created_at, id',
    ),
    putPrincipal: database.transaction((principal: PrincipalColumns) => {
      const named = principalNamed.get(principal.name);
      if (named !== undefined && named.id !== principal.id) {
        throw new InvalidInputError(`a principal named ${principal.name} exists`);
      }
      upsertPrincipal.run(
        principal.id,
        principal.name,
        principal.kind,
        principal.role,
        principal.agents,
        principal.created_at,
      );
    }),
    putToken: database.transaction((token: TokenColumns) => {
      if (getPrincipal.get(token.principal_id) === undefined) {
        throw new PrincipalNotFoundError(`no principal has the id ${token.principal_id}`);
      }
      insertToken.run(token.id, token.principal_id, token.hash, token.created_at, token.revoked_at, token.expires_at);
    }),
  };
}

/** Principals and tokens on SQLite: reads never wait for queued run writes. */
export class SqliteAuth implements AuthStore {
  readonly #executor: SqliteExecutor;
  readonly #statements: () => ReturnType<typeof prepareAuth>;

  constructor(executor: SqliteExecutor) {
    this.#executor = executor;
    this.#statements = executor.statements(prepareAuth);
  }

  async putPrincipal(principal: Principal): Promise<void> {
    const statements = this.#statements();
    const columns = principalColumns(principal);
    await this.#executor.writeNow(`writing principal ${columns.id}`, () => statements.putPrincipal.immediate(columns));
  }

  async getPrincipal(id: string): Promise<Principal | undefined> {
    const statements = this.#statements();
    const row = this.#executor.readNow(`reading principal ${id}`, () => statements.getPrincipal.get(id));
    return row === undefined ? undefined : principalFrom(row);
  }

  async listPrincipals(): Promise<Principal[]> {
    const statements = this.#statements();
    return this.#executor.readNow('listing principals', () => statements.listPrincipals.all()).map(principalFrom);
  }

  async putToken(token: TokenInfo & { readonly hash: string }): Promise<void> {
    const statements = this.#statements();
    const columns = tokenColumns(token);
    await this.#executor.writeNow(`writing token ${columns.id}`, () => statements.putToken.immediate(columns));
  }

  async findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
    const statements = this.#statements();
    const row = this.#executor.readNow('looking a token up', () => statements.findTokenByHash.get(hash));
    if (row === undefined) return undefined;
    const principal = principalFrom({
      id: row.principal_id,
      name: row.principal_name,
      kind: row.principal_kind,
      role: row.principal_role,
      agents: row.principal_agents,
      created_at: row.principal_created_at,
    });
    return { ...tokenInfoFrom(row), hash: row.hash, principal };
  }

  async revokeToken(id: string, at: number): Promise<boolean> {
    const statements = this.#statements();
    if (!Number.isSafeInteger(at)) throw new StoreError(`token ${id}: revokedAt must be an integer time in ms`);
    let changes = 0;
    await this.#executor.writeNow(`revoking token ${id}`, () => {
      changes = statements.revokeToken.run(at, id).changes;
    });
    return changes > 0;
  }

  async listTokens(principalId?: string): Promise<TokenInfo[]> {
    const statements = this.#statements();
    const rows = this.#executor.readNow('listing tokens', () =>
      principalId === undefined ? statements.listTokens.all() : statements.listTokensOf.all(principalId),
    );
    return rows.map(tokenInfoFrom);
  }
}
