import type pg from 'pg';
import type { Principal, TokenInfo } from '../../auth/types.js';
import { InvalidInputError, PrincipalNotFoundError, StoreError } from '../../errors.js';
import { type PrincipalColumns, principalFrom, type TokenColumns, tokenInfoFrom } from '../principal-columns.js';
import { errorCode } from './postgres-errors.js';

/*
 * Principals and tokens: one statement each, each its own transaction (durable when it resolves).
 * Constraints decide conflicts (a taken name, an id or hash in use, an unknown principal), so two
 * nodes writing at once cannot both succeed.
 */

function constraintOf(cause: unknown): string {
  return String((cause as { constraint?: unknown }).constraint ?? '');
}

/** Inserts or replaces a principal. Throws `InvalidInputError` if another principal has its name. */
export async function putPrincipal(client: pg.ClientBase, columns: PrincipalColumns): Promise<void> {
  try {
    await client.query({
      name: 'wardrik_put_principal_v1',
      text: `INSERT INTO principals (id, name, kind, role, agents, created_at) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, role = excluded.role,
               agents = excluded.agents, created_at = excluded.created_at`,
      values: [columns.id, columns.name, columns.kind, columns.role, columns.agents, columns.created_at],
    });
  } catch (cause) {
    if (errorCode(cause) === '23505' && constraintOf(cause) === 'principals_name_key') {
      throw new InvalidInputError(`a principal named ${columns.name} exists`);
    }
    throw cause;
  }
}

export async function getPrincipal(client: pg.ClientBase, id: string): Promise<Principal | undefined> {
  const { rows } = await client.query<PrincipalColumns>({
    name: 'wardrik_get_principal_v1',
    text: 'SELECT * FROM principals WHERE id = $1',
    values: [id],
  });
  return rows[0] === undefined ? undefined : principalFrom(rows[0]);
}

export async function listPrincipals(client: pg.ClientBase): Promise<Principal[]> {
  const { rows } = await client.query<PrincipalColumns>({
    name: 'wardrik_list_principals_v1',
    text: 'SELECT * FROM principals ORDER BY name',
  });
  return rows.map(principalFrom);
}

/** Adds a token. Throws `PrincipalNotFoundError` for an unknown principal, `StoreError` if its id or hash is in use. */
export async function putToken(client: pg.ClientBase, token: TokenColumns): Promise<void> {
  try {
    await client.query({
      name: 'wardrik_put_token_v2',
      text: 'INSERT INTO tokens (id, principal_id, hash, created_at, revoked_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      values: [token.id, token.principal_id, token.hash, token.created_at, token.revoked_at, token.expires_at],
    });
  } catch (cause) {
    const code = errorCode(cause);
    const constraint = constraintOf(cause);
    if (code === '23503' && constraint === 'tokens_principal_fkey') {
      throw new PrincipalNotFoundError(`no principal has the id ${token.principal_id}`);
    }
    if (code === '23505' && constraint === 'tokens_pkey') {
      throw new StoreError(`writing token ${token.id} failed: its id exists`, { cause });
    }
    if (code === '23505' && constraint === 'tokens_hash_key') {
      throw new StoreError(`writing token ${token.id} failed: its hash exists`, { cause });
    }
    throw cause;
  }
}

type TokenWithPrincipalColumns = TokenColumns & {
  readonly principal_name: string;
  readonly principal_kind: string;
  readonly principal_role: string;
  readonly principal_agents: string;
  readonly principal_created_at: number;
};

export async function findTokenByHash(
  client: pg.ClientBase,
  hash: string,
): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
  const { rows } = await client.query<TokenWithPrincipalColumns>({
    name: 'wardrik_find_token_v2',
    text: `SELECT t.id, t.principal_id, t.hash, t.created_at, t.revoked_at, t.expires_at,
             p.name AS principal_name, p.kind AS principal_kind, p.role AS principal_role,
             p.agents AS principal_agents, p.created_at AS principal_created_at
           FROM tokens t JOIN principals p ON p.id = t.principal_id WHERE t.hash = $1`,
    values: [hash],
  });
  const row = rows[0];
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

/** Marks a token revoked (keeping a first revocation). Returns false if no token has this id. */
export async function revokeToken(client: pg.ClientBase, id: string, at: number): Promise<boolean> {
  const result = await client.query({
    name: 'wardrik_revoke_token_v1',
    text: 'UPDATE tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2',
    values: [at, id],
  });
  return (result.rowCount ?? 0) > 0;
}

export async function listTokens(client: pg.ClientBase, principalId?: string): Promise<TokenInfo[]> {
  const { rows } =
    principalId === undefined
      ? await client.query<TokenColumns>({
          name: 'wardrik_list_tokens_v1',
          text: 'SELECT * FROM tokens ORDER BY created_at, id',
        })
      : await client.query<TokenColumns>({
          name: 'wardrik_list_tokens_of_v1',
          text: 'SELECT * FROM tokens WHERE principal_id = $1 ORDER BY created_at, id',
          values: [principalId],
        });
  return rows.map(tokenInfoFrom);
}
