import type { Principal, PrincipalKind, Role, TokenInfo } from '../auth/types.js';
import { StoreError } from '../errors.js';

/*
 * The column format of principals and tokens, shared by every store. Stores check only that
 * what they keep is well-formed; the rules a person is told about (name characters, scopes)
 * are checked by the AuthService before anything reaches a store.
 */

/** A `principals` row. */
export interface PrincipalColumns {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly role: string;
  /** JSON array of agent names, or `["*"]`. */
  readonly agents: string;
  readonly created_at: number;
}

/** A `tokens` row. */
export interface TokenColumns {
  readonly id: string;
  readonly principal_id: string;
  /** sha256 hex of the secret. */
  readonly hash: string;
  readonly created_at: number;
  readonly revoked_at: number | null;
  readonly expires_at: number | null;
}

const ROLES: readonly Role[] = ['admin', 'operator', 'user', 'worker'];
const KINDS: readonly PrincipalKind[] = ['user', 'service', 'worker'];

function nonEmptyString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new StoreError(`${what} must be a non-empty string`);
  return value;
}

function time(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new StoreError(`${what} must be an integer time in ms, got ${String(value)}`);
  }
  return value;
}

/** Checks a principal's shape and turns it into columns. Throws `StoreError` naming the problem. */
export function principalColumns(principal: Principal): PrincipalColumns {
  const id = nonEmptyString(principal.id, 'a principal id');
  const what = `principal ${id}`;
  const name = nonEmptyString(principal.name, `${what}: name`);
  if (!KINDS.includes(principal.kind)) throw new StoreError(`${what}: unknown kind ${String(principal.kind)}`);
  if (!ROLES.includes(principal.role)) throw new StoreError(`${what}: unknown role ${String(principal.role)}`);
  const agents: unknown = principal.agents;
  if (!Array.isArray(agents) || !agents.every((agent) => typeof agent === 'string' && agent !== '')) {
    throw new StoreError(`${what}: agents must be an array of non-empty strings`);
  }
  return {
    id,
    name,
    kind: principal.kind,
    role: principal.role,
    agents: JSON.stringify(agents),
    created_at: time(principal.createdAt, `${what}: createdAt`),
  };
}

/** A `principals` row as a `Principal`. */
export function principalFrom(columns: PrincipalColumns): Principal {
  return {
    id: columns.id,
    name: columns.name,
    kind: columns.kind as PrincipalKind,
    role: columns.role as Role,
    agents: JSON.parse(columns.agents) as string[],
    createdAt: columns.created_at,
  };
}

/** Checks a new token's shape and turns it into columns. Throws `StoreError` naming the problem. */
export function tokenColumns(token: TokenInfo & { readonly hash: string }): TokenColumns {
  const id = nonEmptyString(token.id, 'a token id');
  return {
    id,
    principal_id: nonEmptyString(token.principalId, `token ${id}: principalId`),
    hash: nonEmptyString(token.hash, `token ${id}: hash`),
    created_at: time(token.createdAt, `token ${id}: createdAt`),
    revoked_at: token.revokedAt === undefined ? null : time(token.revokedAt, `token ${id}: revokedAt`),
    expires_at: token.expiresAt === undefined ? null : time(token.expiresAt, `token ${id}: expiresAt`),
  };
}

/** A `tokens` row as a `TokenInfo` (without its hash). */
export function tokenInfoFrom(columns: TokenColumns): TokenInfo {
  return {
    id: columns.id,
    principalId: columns.principal_id,
    createdAt: columns.created_at,
    ...(columns.revoked_at === null ? {} : { revokedAt: columns.revoked_at }),
    ...(columns.expires_at === null || columns.expires_at === undefined ? {} : { expiresAt: columns.expires_at }),
  };
}

/** Oldest first, then by id. */
export function compareTokens(left: TokenColumns, right: TokenColumns): number {
  if (left.created_at !== right.created_at) return left.created_at - right.created_at;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}
