import { timingSafeEqual } from 'node:crypto';
import { InvalidInputError, PrincipalNotFoundError, TokenNotFoundError } from '../errors.js';
import type { AuthStore } from '../store/auth-store.js';
import { generatePrincipalId, generateToken, generateTokenId, hashToken, isTokenShaped } from './tokens.js';
import type { Principal, PrincipalKind, Role, TokenInfo } from './types.js';

/** What a new principal needs. */
export interface CreatePrincipalInput {
  /** 1–64 characters of `A–Z a–z 0–9 _ . @ -`, unique among principals. */
  readonly name: string;
  readonly kind: PrincipalKind;
  readonly role: Role;
  /** The agents it may run, read or serve (agent names), or `['*']` for all. */
  readonly agents: readonly string[];
}

/** How a token is issued. */
export interface IssueOptions {
  /**
   * When the token stops working on its own (ms since the epoch, in the future). Default: never;
   * it works until revoked.
   */
  readonly expiresAt?: number;
}

/** The outcome of {@link AuthService.authenticate}. */
export type Authentication =
  | { readonly ok: true; readonly principal: Principal; readonly tokenId: string }
  | { readonly ok: false; readonly reason: string };

/** A token as issued: the secret (shown this once, never stored) and what lists show of it. */
export interface IssuedToken {
  readonly token: string;
  readonly info: TokenInfo;
}

const ROLES: readonly Role[] = ['admin', 'operator', 'user', 'worker'];
const KINDS: readonly PrincipalKind[] = ['user', 'service', 'worker'];
const PRINCIPAL_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;
/** As `defineAgent` checks agent names. */
const AGENT_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value;
}

/** Checks how a token is to be issued; throws `InvalidInputError` naming the field that is wrong. */
function checkIssueOptions(options: IssueOptions, now: number): void {
  const { expiresAt } = options;
  if (expiresAt === undefined) return;
  if (typeof expiresAt !== 'number' || !Number.isSafeInteger(expiresAt)) {
    throw new InvalidInputError(`expiresAt must be a time in ms since the epoch, got ${describeValue(expiresAt)}`);
  }
  if (expiresAt <= now) {
    throw new InvalidInputError(
      `expiresAt must be in the future, got ${new Date(expiresAt).toISOString()} (now ${new Date(now).toISOString()})`,
    );
  }
}

/** Checks a new principal's fields; throws `InvalidInputError` naming the first field that is wrong. */
function checkPrincipalInput(input: CreatePrincipalInput): void {
  const { name, kind, role } = input;
  if (typeof name !== 'string' || !PRINCIPAL_NAME.test(name)) {
    throw new InvalidInputError(`name must be 1–64 characters of A–Z a–z 0–9 _ . @ -, got ${describeValue(name)}`);
  }
  if (!ROLES.includes(role)) {
    throw new InvalidInputError(`role must be one of ${ROLES.join(', ')}, got ${describeValue(role)}`);
  }
  if (!KINDS.includes(kind)) {
    throw new InvalidInputError(`kind must be one of ${KINDS.join(', ')}, got ${describeValue(kind)}`);
  }
  const agents: unknown = input.agents;
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new InvalidInputError(
      `agents must be a non-empty array of agent names or ['*'], got ${describeValue(agents)}`,
    );
  }
  const seen = new Set<string>();
  agents.forEach((agent: unknown, index) => {
    if (agent === '*') {
      if (agents.length > 1) throw new InvalidInputError(`agents: '*' (every agent) must stand alone`);
    } else if (typeof agent !== 'string' || !AGENT_NAME.test(agent)) {
      throw new InvalidInputError(
        `agents[${index}] must be an agent name (1–128 characters of A–Z a–z 0–9 _ - .) or '*', got ${describeValue(agent)}`,
      );
    } else if (seen.has(agent)) {
      throw new InvalidInputError(`agents lists ${agent} twice`);
    }
    if (typeof agent === 'string') seen.add(agent);
  });
}

/** Whether two sha256 hex digests are equal, in time that does not depend on where they differ. */
function sameHash(left: string, right: string): boolean {
  const leftBytes = Buffer.from(left, 'hex');
  const rightBytes = Buffer.from(right, 'hex');
  return leftBytes.length === 32 && rightBytes.length === 32 && timingSafeEqual(leftBytes, rightBytes);
}

/**
 * How long an accepted token is trusted without asking the store again. A token revoked through
 * this service stops at once; one revoked elsewhere (another process, another node) within this.
 */
const ACCEPTED_FOR_MS = 1_000;
const ACCEPTED_TOKENS_KEPT = 10_000;

/**
 * Principals and their bearer tokens, kept in an {@link AuthStore} (any `Store` is one): creates
 * them, checks a request's `Authorization` header, revokes tokens. A token's secret is returned once, when it is issued;
 * the store keeps only its sha256. What a principal may then do is {@link can}'s business.
 *
 * @example
 * ```ts
 * const auth = new AuthService(sqliteStore('.wardrik/wardrik.db'));
 * const first = await auth.ensureAdmin(); // { principal, token } the first time, then undefined
 * const { token } = await auth.createPrincipalWithToken({
 *   name: 'alice', kind: 'user', role: 'user', agents: ['support'],
 * });
 * const outcome = await auth.authenticate(`Bearer ${token}`);
 * if (outcome.ok) console.log(outcome.principal.name); // 'alice'
 * else console.log(outcome.reason); // e.g. 'token revoked'
 * ```
 */
export class AuthService {
  private readonly store: AuthStore;
  private readonly clock: () => number;
  /** `ensureAdmin` calls, one after another. */
  private ensuring: Promise<unknown> = Promise.resolve();

  /**
   * @param store where principals and tokens are kept.
   * @param clock the time in ms, for `createdAt` and `revokedAt`; `Date.now` by default.
   */
  /** Tokens recently accepted, so a busy API doesn't ask the store on every request. */
  readonly #accepted = new Map<
    string,
    { readonly result: Authentication; readonly until: number; readonly expiresAt?: number }
  >();
  /** Who is told when a token is revoked through this service. */
  readonly #revocationListeners = new Set<(tokenId: string) => void>();

  constructor(store: AuthStore, clock: () => number = Date.now) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Checks an `Authorization` header value (`Bearer <token>`, the scheme in any case). Never
   * throws for bad input; the reason is one of "missing bearer token", "malformed Authorization
   * header: expected 'Bearer <token>'", "unknown token", "token revoked", "token expired". A
   * failing store rejects.
   *
   * @example
   * ```ts
   * const outcome = await auth.authenticate(request.headers.authorization);
   * if (!outcome.ok) return reply(401, { detail: outcome.reason });
   * ```
   */
  async authenticate(bearer: string | undefined): Promise<Authentication> {
    if (typeof bearer !== 'string' || bearer.trim() === '') return { ok: false, reason: 'missing bearer token' };
    const match = BEARER.exec(bearer.trim());
    const token = match?.[1];
    if (token === undefined) {
      return { ok: false, reason: "malformed Authorization header: expected 'Bearer <token>'" };
    }
    if (!isTokenShaped(token)) return { ok: false, reason: 'unknown token' };
    const now = Date.now();
    const cached = this.#accepted.get(token);
    // Trusted for a second at most, and never past the token's expiry.
    if (cached && cached.until > now && !(cached.expiresAt !== undefined && cached.expiresAt <= this.clock())) {
      return cached.result;
    }
    const hash = hashToken(token);
    const found = await this.store.findTokenByHash(hash);
    if (found === undefined || !sameHash(found.hash, hash)) return { ok: false, reason: 'unknown token' };
    if (found.revokedAt !== undefined) return { ok: false, reason: 'token revoked' };
    if (found.expiresAt !== undefined && found.expiresAt <= this.clock()) return { ok: false, reason: 'token expired' };
    const result: Authentication = { ok: true, principal: found.principal, tokenId: found.id };
    if (this.#accepted.size >= ACCEPTED_TOKENS_KEPT) this.#accepted.clear();
    this.#accepted.set(token, {
      result,
      until: now + ACCEPTED_FOR_MS,
      ...(found.expiresAt === undefined ? {} : { expiresAt: found.expiresAt }),
    });
    return result;
  }

  /**
   * Creates a principal (without a token: see {@link AuthService.issueToken}). Throws
   * `InvalidInputError` naming the field that is wrong, or "a principal named X exists".
   *
   * @example
   * ```ts
   * const worker = await auth.createPrincipal({ name: 'billing-worker', kind: 'worker', role: 'worker', agents: ['billing'] });
   * ```
   */
  async createPrincipal(input: CreatePrincipalInput): Promise<Principal> {
    checkPrincipalInput(input);
    if ((await this.findPrincipalByName(input.name)) !== undefined) {
      throw new InvalidInputError(`a principal named ${input.name} exists`);
    }
    const principal: Principal = {
      id: generatePrincipalId(),
      name: input.name,
      kind: input.kind,
      role: input.role,
      agents: [...input.agents],
      createdAt: this.clock(),
    };
    // The store refuses a duplicate name too, should another process create it meanwhile.
    await this.store.putPrincipal(principal);
    return principal;
  }

  /**
   * Issues a new token for a principal, working until revoked or, with `expiresAt`, until then.
   * The secret is in the result and nowhere else: the store keeps its hash. Throws
   * `PrincipalNotFoundError` for an unknown principal, `InvalidInputError` for an `expiresAt` that
   * is not a time in the future.
   *
   * @example
   * ```ts
   * const { token, info } = await auth.issueToken(principal.id);
   * console.log(`Authorization: Bearer ${token}`, info.id);
   * // one that stops working in 90 days
   * await auth.issueToken(principal.id, { expiresAt: Date.now() + 90 * 86_400_000 });
   * ```
   */
  async issueToken(principalId: string, options: IssueOptions = {}): Promise<IssuedToken> {
    const createdAt = this.clock();
    checkIssueOptions(options, createdAt);
    if ((await this.store.getPrincipal(principalId)) === undefined) {
      throw new PrincipalNotFoundError(`no principal has the id ${principalId}`);
    }
    const token = generateToken();
    const info: TokenInfo = {
      id: generateTokenId(),
      principalId,
      createdAt,
      ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
    };
    await this.store.putToken({ ...info, hash: hashToken(token) });
    return { token, info };
  }

  /**
   * {@link AuthService.createPrincipal} and {@link AuthService.issueToken} in one call.
   *
   * @example
   * ```ts
   * const { principal, token } = await auth.createPrincipalWithToken({
   *   name: 'ops', kind: 'user', role: 'operator', agents: ['*'],
   * });
   * ```
   */
  async createPrincipalWithToken(
    input: CreatePrincipalInput,
    options: IssueOptions = {},
  ): Promise<{ principal: Principal; token: string; info: TokenInfo }> {
    checkIssueOptions(options, this.clock());
    const principal = await this.createPrincipal(input);
    const { token, info } = await this.issueToken(principal.id, options);
    return { principal, token, info };
  }

  /**
   * A new token for the principal named `input.name`: an existing one gets another token (its
   * role, kind and agents must match what is given, if anything is); a new name is created, and
   * then needs a role. `expiresAt`: when the token stops working on its own. Throws
   * `InvalidInputError` naming what does not fit.
   *
   * @example
   * ```ts
   * const { token, principal, created } = await auth.tokenFor({ name: 'bob', role: 'user', agents: ['support'] });
   * ```
   */
  async tokenFor(
    input: {
      readonly name: string;
      readonly role?: Role;
      readonly kind?: PrincipalKind;
      readonly agents?: readonly string[];
    } & IssueOptions,
  ): Promise<IssuedToken & { principal: Principal; created: boolean }> {
    const issue: IssueOptions = input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt };
    checkIssueOptions(issue, this.clock());
    const existing = await this.findPrincipalByName(input.name);
    if (existing) {
      const differs =
        (input.role !== undefined && input.role !== existing.role) ||
        (input.kind !== undefined && input.kind !== existing.kind) ||
        (input.agents !== undefined && input.agents.join(',') !== existing.agents.join(','));
      if (differs) {
        throw new InvalidInputError(
          `${input.name} exists with role ${existing.role}, kind ${existing.kind}, agents ${existing.agents.join(',')}; ` +
            'leave out role, kind and agents to give it another token',
        );
      }
      return { ...(await this.issueToken(existing.id, issue)), principal: existing, created: false };
    }
    if (!input.role)
      throw new InvalidInputError(`role: ${input.name} is new; give it a role (admin, operator, user, worker)`);
    const principal = await this.createPrincipal({
      name: input.name,
      role: input.role,
      kind: input.kind ?? (input.role === 'worker' ? 'worker' : 'user'),
      agents: input.agents ?? ['*'],
    });
    return { ...(await this.issueToken(principal.id, issue)), principal, created: true };
  }

  /**
   * Revokes a token: it stops authenticating at once, and lists show when it was revoked.
   * Revoking it again changes nothing. Throws `TokenNotFoundError` for an unknown id.
   *
   * @example
   * ```ts
   * const revoked = await auth.revokeToken('tok_Jx0…'); // revoked.revokedAt is set
   * ```
   */
  async revokeToken(id: string): Promise<TokenInfo> {
    for (const [token, entry] of this.#accepted)
      if (entry.result.ok && entry.result.tokenId === id) this.#accepted.delete(token);
    if (typeof id !== 'string' || id === '' || !(await this.store.revokeToken(id, this.clock()))) {
      throw new TokenNotFoundError(`no token has the id ${typeof id === 'string' ? id : describeValue(id)}`);
    }
    const revoked = (await this.store.listTokens()).find((token) => token.id === id);
    if (revoked === undefined) throw new TokenNotFoundError(`no token has the id ${id}`);
    for (const listener of [...this.#revocationListeners]) {
      try {
        listener(id);
      } catch {
        // The token is revoked in the store all the same; a listener's failure must not say otherwise.
      }
    }
    return revoked;
  }

  /**
   * Calls `listener` with the id of every token revoked through this service from now on, once it
   * is revoked in the store: what was opened with it (event streams, worker connections) can be
   * closed at once. Returns the function that stops listening. A token revoked elsewhere (another
   * process or node) is not reported here; check open connections again with `authenticate`.
   *
   * @example
   * ```ts
   * const stop = auth.onTokenRevoked((tokenId) => streams.closeAll(tokenId));
   * // later
   * stop();
   * ```
   */
  onTokenRevoked(listener: (tokenId: string) => void): () => void {
    this.#revocationListeners.add(listener);
    return () => {
      this.#revocationListeners.delete(listener);
    };
  }

  /**
   * A principal by id.
   *
   * @example
   * ```ts
   * const principal = await auth.getPrincipal(outcome.principal.id);
   * ```
   */
  getPrincipal(id: string): Promise<Principal | undefined> {
    return this.store.getPrincipal(id);
  }

  /**
   * A principal by name.
   *
   * @example
   * ```ts
   * const alice = await auth.findPrincipalByName('alice');
   * ```
   */
  async findPrincipalByName(name: string): Promise<Principal | undefined> {
    return (await this.store.listPrincipals()).find((principal) => principal.name === name);
  }

  /**
   * Every principal, by name.
   *
   * @example
   * ```ts
   * for (const principal of await auth.listPrincipals()) console.log(principal.name, principal.role);
   * ```
   */
  listPrincipals(): Promise<Principal[]> {
    return this.store.listPrincipals();
  }

  /**
   * Tokens (all, or one principal's), oldest first, revoked and expired ones included; never their
   * secrets.
   *
   * @example
   * ```ts
   * const active = (await auth.listTokens(principal.id)).filter((token) => token.revokedAt === undefined);
   * ```
   */
  listTokens(principalId?: string): Promise<TokenInfo[]> {
    return this.store.listTokens(principalId);
  }

  /**
   * Makes sure someone can administer this Wardrik: if no principal has the role `admin`,
   * creates `admin` (kind user, role admin, agents `['*']`; `admin-2`, `admin-3`… if a
   * non-admin took that name) with a token and returns both, the only time that token is seen.
   * Otherwise returns undefined. Calls are serialized, so concurrent calls create one admin.
   *
   * @example
   * ```ts
   * const created = await auth.ensureAdmin();
   * if (created) console.log(`admin token (shown once): ${created.token}`);
   * ```
   */
  ensureAdmin(): Promise<{ principal: Principal; token: string } | undefined> {
    const next = this.ensuring.then(() => this.ensureAdminNow());
    this.ensuring = next.catch(() => undefined);
    return next;
  }

  private async ensureAdminNow(): Promise<{ principal: Principal; token: string } | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      const principals = await this.store.listPrincipals();
      if (principals.some((principal) => principal.role === 'admin')) return undefined;
      const taken = new Set(principals.map((principal) => principal.name));
      let name = 'admin';
      for (let suffix = 2; taken.has(name); suffix += 1) name = `admin-${suffix}`;
      try {
        const { principal, token } = await this.createPrincipalWithToken({
          name,
          kind: 'user',
          role: 'admin',
          agents: ['*'],
        });
        return { principal, token };
      } catch (error) {
        // Another process took the name meanwhile: look again (it may have made an admin).
        if (!InvalidInputError.isInstance(error) || attempt >= 3) throw error;
      }
    }
  }
}
