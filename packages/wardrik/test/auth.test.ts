import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AuthService, type CreatePrincipalInput } from '../src/auth/auth-service.js';
import { can, isRunVisible, visibleRunFilter } from '../src/auth/permissions.js';
import { generateToken, generateTokenId, hashToken, isTokenShaped } from '../src/auth/tokens.js';
import type { Action, Principal, Role } from '../src/auth/types.js';
import { InvalidInputError, PrincipalNotFoundError, TokenNotFoundError } from '../src/errors.js';
import { memoryStore } from '../src/store/memory-store.js';
import { type SqliteStore, sqliteStore } from '../src/store/sqlite/sqlite-store.js';

const root = mkdtempSync(join(tmpdir(), 'wardrik-auth-'));
let fileCount = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

function newPath(): string {
  fileCount += 1;
  return join(root, `case-${fileCount}`, 'wardrik.db');
}

function principalWith(role: Role, overrides: Partial<Principal> = {}): Principal {
  return {
    id: `prn_${role}`,
    name: role === 'admin' ? 'root' : `${role}-1`,
    kind: role === 'worker' ? 'worker' : 'user',
    role,
    agents: ['support'],
    createdAt: 0,
    ...overrides,
  };
}

describe('can: the permission matrix', () => {
  const ACTIONS: readonly Action[] = [
    'agents.list',
    'run.start',
    'run.read',
    'run.cancel',
    'park.read',
    'park.answer',
    'labels.release',
    'state.edit',
    'app-state.edit',
    'tokens.manage',
    'agent.serve',
    'workers.list',
  ];
  const WORDS: Record<Action, string> = {
    'agents.list': 'list agents',
    'run.start': 'start runs',
    'run.read': 'read runs',
    'run.cancel': 'cancel runs',
    'park.read': 'read parks',
    'park.answer': 'answer parks',
    'labels.release': 'release labels',
    'state.edit': "edit sessions' state",
    'app-state.edit': 'edit app: state (every principal reads it)',
    'tokens.manage': 'manage tokens',
    'agent.serve': 'serve agents',
    'workers.list': 'list workers',
  };
  const NOT_OWN: Partial<Record<Action, string>> = {
    'run.read': 'runs of another principal are not visible to role user',
    'run.cancel': 'runs of another principal may not be cancelled by role user',
    'park.read': "parks of another principal's runs are not visible to role user",
  };

  /**
   * Every principal has the scope ['support']. Each cell is four outcomes, for a resource that is:
   * its own run of `support`, another's run of `support`, its own run of `refunds`, another's run
   * of `refunds`. Y: allowed. R: denied by role. S: denied by scope. O: another principal's run.
   */
  const MATRIX: Record<Role, Record<Action, string>> = {
    admin: {
      'agents.list': 'YYYY',
      'run.start': 'YYYY',
      'run.read': 'YYYY',
      'run.cancel': 'YYYY',
      'park.read': 'YYYY',
      'park.answer': 'YYYY',
      'labels.release': 'YYYY',
      'state.edit': 'YYYY',
      'app-state.edit': 'YYYY',
      'tokens.manage': 'YYYY',
      'agent.serve': 'YYYY',
      'workers.list': 'YYYY',
    },
    operator: {
      'agents.list': 'YYSS',
      'run.start': 'RRRR',
      'run.read': 'YYSS',
      'run.cancel': 'YYSS',
      'park.read': 'YYSS',
      'park.answer': 'YYSS',
      'labels.release': 'YYSS',
      'state.edit': 'YYSS',
      'app-state.edit': 'RRRR',
      'tokens.manage': 'RRRR',
      'agent.serve': 'RRRR',
      'workers.list': 'YYYY',
    },
    user: {
      'agents.list': 'YYSS',
      'run.start': 'YYSS',
      'run.read': 'YOSO',
      'run.cancel': 'YOSO',
      'park.read': 'YOSO',
      'park.answer': 'RRRR',
      'labels.release': 'RRRR',
      'state.edit': 'RRRR',
      'app-state.edit': 'RRRR',
      'tokens.manage': 'RRRR',
      'agent.serve': 'RRRR',
      'workers.list': 'RRRR',
    },
    worker: {
      'agents.list': 'RRRR',
      'run.start': 'RRRR',
      'run.read': 'RRRR',
      'run.cancel': 'RRRR',
      'park.read': 'RRRR',
      'park.answer': 'RRRR',
      'labels.release': 'RRRR',
      'state.edit': 'RRRR',
      'app-state.edit': 'RRRR',
      'tokens.manage': 'RRRR',
      'agent.serve': 'YYSS',
      'workers.list': 'RRRR',
    },
  };

  const cells = (Object.keys(MATRIX) as Role[]).flatMap((role) =>
    ACTIONS.flatMap((action) =>
      [
        { agent: 'support', own: true },
        { agent: 'support', own: false },
        { agent: 'refunds', own: true },
        { agent: 'refunds', own: false },
      ].map((target, index) => ({ role, action, ...target, code: MATRIX[role][action][index] })),
    ),
  );

  it('covers every role and action, four cells each', () => {
    expect(cells).toHaveLength(4 * 12 * 4);
    expect(cells.every((cell) => cell.code !== undefined)).toBe(true);
  });

  it.each(cells)('$role $action on agent $agent, own run: $own → $code', ({ role, action, agent, own, code }) => {
    const principal = principalWith(role);
    const decision = can(principal, action, { agent, runPrincipal: own ? principal.id : 'prn_someone_else' });
    const expected =
      code === 'Y'
        ? { allowed: true }
        : {
            allowed: false,
            reason:
              code === 'R'
                ? `role ${role} may not ${WORDS[action]}`
                : code === 'S'
                  ? `principal ${principal.name} may not use agent ${agent} (scope: support)`
                  : NOT_OWN[action],
          };
    expect(decision).toEqual(expected);
  });

  it('uses the reasons the API shows', () => {
    const user = principalWith('user', { name: 'alice', agents: ['support', 'billing'] });
    expect(can(user, 'park.answer')).toEqual({ allowed: false, reason: 'role user may not answer parks' });
    expect(can(user, 'run.start', { agent: 'refunds' })).toEqual({
      allowed: false,
      reason: 'principal alice may not use agent refunds (scope: support, billing)',
    });
    expect(can(user, 'run.read', { agent: 'support', runPrincipal: 'prn_bob' })).toEqual({
      allowed: false,
      reason: 'runs of another principal are not visible to role user',
    });
  });

  it("checks only the facts given: a role's right to an action at all, then scope and ownership", () => {
    const user = principalWith('user');
    expect(can(user, 'run.read')).toEqual({ allowed: true });
    expect(can(user, 'run.read', { runPrincipal: user.id })).toEqual({ allowed: true });
    expect(can(user, 'run.read', { runPrincipal: 'prn_other' }).allowed).toBe(false);
    expect(can(user, 'run.read', { agent: 'refunds' }).allowed).toBe(false);
    expect(can(user, 'park.answer').allowed).toBe(false);
    expect(can(principalWith('operator'), 'park.answer', { agent: 'support' })).toEqual({ allowed: true });
    expect(can(principalWith('worker'), 'agent.serve')).toEqual({ allowed: true });
    expect(can(principalWith('worker'), 'run.read').allowed).toBe(false);
  });

  it("lets a '*' scope cover every agent, and an empty scope none", () => {
    const everywhere = principalWith('user', { agents: ['*'] });
    expect(can(everywhere, 'run.start', { agent: 'anything' })).toEqual({ allowed: true });
    expect(can(everywhere, 'run.read', { agent: 'anything', runPrincipal: 'prn_other' }).allowed).toBe(false);
    const nowhere = principalWith('worker', { name: 'w', agents: [] });
    expect(can(nowhere, 'agent.serve', { agent: 'support' })).toEqual({
      allowed: false,
      reason: 'principal w may not use agent support (scope: none)',
    });
  });

  it('denies a role or an action it does not know', () => {
    const stranger = principalWith('user', { role: 'superuser' as Role });
    expect(can(stranger, 'agents.list')).toEqual({ allowed: false, reason: 'role superuser may not list agents' });
    expect(can(principalWith('operator'), 'runs.delete' as Action)).toEqual({
      allowed: false,
      reason: 'role operator may not do runs.delete',
    });
    expect(can(principalWith('admin', { role: 'toString' as Role }), 'run.read').allowed).toBe(false);
  });
});

describe('visibleRunFilter', () => {
  it('limits users to their own runs, scoped operators to their agents, and workers to nothing', () => {
    expect(visibleRunFilter(principalWith('admin'))).toEqual({ type: 'all' });
    expect(visibleRunFilter(principalWith('operator', { agents: ['*'] }))).toEqual({ type: 'all' });
    expect(visibleRunFilter(principalWith('operator'))).toEqual({ type: 'some', agents: ['support'] });
    expect(visibleRunFilter(principalWith('user', { agents: ['*'] }))).toEqual({ type: 'some', principal: 'prn_user' });
    expect(visibleRunFilter(principalWith('user'))).toEqual({
      type: 'some',
      principal: 'prn_user',
      agents: ['support'],
    });
    expect(visibleRunFilter(principalWith('worker'))).toEqual({ type: 'none' });
  });

  it('agrees with can(run.read) and can(park.read) on every run', () => {
    const principals = (['admin', 'operator', 'user', 'worker'] as const).flatMap((role) => [
      principalWith(role),
      principalWith(role, { agents: ['*'] }),
      principalWith(role, { agents: ['support', 'billing'] }),
    ]);
    const runs = ['support', 'billing', 'refunds'].flatMap((agent) =>
      ['prn_admin', 'prn_operator', 'prn_user', 'prn_worker', 'prn_other'].map((principal) => ({ agent, principal })),
    );
    for (const principal of principals) {
      const visible = visibleRunFilter(principal);
      for (const run of runs) {
        const resource = { agent: run.agent, runPrincipal: run.principal };
        expect(isRunVisible(visible, run), `${principal.role} ${principal.agents} ${run.agent} ${run.principal}`).toBe(
          can(principal, 'run.read', resource).allowed,
        );
        expect(isRunVisible(visible, run)).toBe(can(principal, 'park.read', resource).allowed);
      }
    }
  });
});

describe('tokens', () => {
  it("are 'wdk_' and 32 random bytes in base64url, different every time", () => {
    const tokens = new Set(Array.from({ length: 200 }, generateToken));
    expect(tokens.size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^wdk_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
      expect(isTokenShaped(token)).toBe(true);
    }
    expect(isTokenShaped('wdk_short')).toBe(false);
    expect(isTokenShaped(`${generateToken()} `)).toBe(false);
  });

  it('hash with sha256, hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const token = generateToken();
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
  });

  it("have ids 'tok_' and random base64url", () => {
    const ids = new Set(Array.from({ length: 100 }, generateTokenId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^tok_[A-Za-z0-9_-]{16}$/);
  });
});

describe('AuthService on a SQLite file', () => {
  const stores: SqliteStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0).reverse()) await store.close();
  });

  function openService(path: string, clock?: () => number) {
    const store = sqliteStore(path);
    stores.push(store);
    return { store, auth: new AuthService(store, clock) };
  }

  const alice: CreatePrincipalInput = { name: 'alice', kind: 'user', role: 'user', agents: ['support'] };

  it('issues a token that authenticates, revokes it, and both survive reopening the file', async () => {
    const path = newPath();
    let now = 1_000;
    const { store, auth } = openService(path, () => now);
    const { principal, token, info } = await auth.createPrincipalWithToken(alice);
    expect(principal).toEqual({
      id: expect.stringMatching(/^prn_/),
      name: 'alice',
      kind: 'user',
      role: 'user',
      agents: ['support'],
      createdAt: 1_000,
    });
    expect(info).toEqual({ id: expect.stringMatching(/^tok_/), principalId: principal.id, createdAt: 1_000 });
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({ ok: true, principal, tokenId: info.id });

    now = 2_000;
    const second = await auth.issueToken(principal.id);
    expect(second.token).not.toBe(token);
    expect(await auth.listTokens(principal.id)).toEqual([info, second.info]);
    await store.close();

    const reopened = openService(path, () => 3_000);
    expect(await reopened.auth.authenticate(`Bearer ${token}`)).toEqual({ ok: true, principal, tokenId: info.id });
    expect(await reopened.auth.revokeToken(info.id)).toEqual({ ...info, revokedAt: 3_000 });
    expect(await reopened.auth.authenticate(`Bearer ${token}`)).toEqual({ ok: false, reason: 'token revoked' });
    expect(await reopened.auth.authenticate(`Bearer ${second.token}`)).toMatchObject({ ok: true });
    await reopened.store.close();

    const again = openService(path);
    expect(await again.auth.authenticate(`Bearer ${token}`)).toEqual({ ok: false, reason: 'token revoked' });
    expect(await again.auth.revokeToken(info.id)).toEqual({ ...info, revokedAt: 3_000 });
    expect(await again.auth.listPrincipals()).toEqual([principal]);
    expect(await again.auth.listTokens()).toEqual([{ ...info, revokedAt: 3_000 }, second.info]);
  });

  it('never stores the secret: only its sha256 is in the tokens table, or anywhere in the files', async () => {
    const path = newPath();
    const { store, auth } = openService(path);
    const { token, info } = await auth.createPrincipalWithToken(alice);
    const secret = token.slice('wdk_'.length);

    const peek = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const rows = peek.prepare('SELECT * FROM tokens').all() as Record<string, unknown>[];
      expect(rows).toEqual([
        {
          id: info.id,
          principal_id: info.principalId,
          hash: hashToken(token),
          created_at: info.createdAt,
          revoked_at: null,
          expires_at: null,
        },
      ]);
      for (const row of rows) {
        for (const value of Object.values(row)) {
          expect(String(value)).not.toContain(secret);
        }
      }
    } finally {
      peek.close();
    }
    await store.close();
    // Nor in any page of the database or its write-ahead log.
    const directory = dirname(path);
    for (const file of readdirSync(directory)) {
      const bytes = readFileSync(join(directory, file));
      expect(bytes.includes(secret), file).toBe(false);
      expect(bytes.includes(Buffer.from(secret, 'base64url')), file).toBe(false);
    }
  });

  it('names what is wrong with an Authorization header', async () => {
    const { auth } = openService(newPath());
    const { principal, token } = await auth.createPrincipalWithToken(alice);
    const malformed = "malformed Authorization header: expected 'Bearer <token>'";
    const cases: [string | undefined, string][] = [
      [undefined, 'missing bearer token'],
      ['', 'missing bearer token'],
      ['   ', 'missing bearer token'],
      [token, malformed],
      ['Bearer', malformed],
      ['Bearer ', malformed],
      [`Basic ${token}`, malformed],
      [`Bearer ${token} extra`, malformed],
      [`Bearer:${token}`, malformed],
      ['Bearer wdk_not-a-real-token', 'unknown token'],
      [`Bearer ${generateToken()}`, 'unknown token'],
      [`Bearer ${token}x`, 'unknown token'],
      [`Bearer ${token.toUpperCase()}`, 'unknown token'],
      [`Bearer ${hashToken(token)}`, 'unknown token'],
    ];
    for (const [header, reason] of cases) {
      expect(await auth.authenticate(header), String(header)).toEqual({ ok: false, reason });
    }
    for (const header of [`bearer ${token}`, `BEARER ${token}`, `  Bearer \t${token}  `]) {
      expect(await auth.authenticate(header), header).toMatchObject({ ok: true, principal });
    }
  });

  it('validates a new principal, naming the field', async () => {
    const { auth } = openService(newPath());
    const cases: [Partial<Record<keyof CreatePrincipalInput, unknown>>, string][] = [
      [{ name: '' }, 'name must be 1–64 characters of A–Z a–z 0–9 _ . @ -, got ""'],
      [{ name: 'a'.repeat(65) }, 'name must be 1–64 characters'],
      [{ name: 'alice smith' }, 'got "alice smith"'],
      [{ name: 'alice/1' }, 'name must be'],
      [{ name: 42 }, 'name must be 1–64 characters of A–Z a–z 0–9 _ . @ -, got number'],
      [{ role: 'root' }, 'role must be one of admin, operator, user, worker, got "root"'],
      [{ role: undefined }, 'role must be one of admin, operator, user, worker, got undefined'],
      [{ kind: 'robot' }, 'kind must be one of user, service, worker, got "robot"'],
      [{ agents: [] }, "agents must be a non-empty array of agent names or ['*'], got an array"],
      [{ agents: 'support' }, 'agents must be a non-empty array of agent names or [\'*\'], got "support"'],
      [{ agents: ['support', '*'] }, "agents: '*' (every agent) must stand alone"],
      [{ agents: ['support', 'bad name'] }, 'agents[1] must be an agent name'],
      [{ agents: [7] }, "agents[0] must be an agent name (1–128 characters of A–Z a–z 0–9 _ - .) or '*', got number"],
      [{ agents: ['support', 'support'] }, 'agents lists support twice'],
    ];
    for (const [change, message] of cases) {
      const input = { ...alice, ...change } as CreatePrincipalInput;
      const failure = await auth.createPrincipal(input).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(InvalidInputError.isInstance(failure), JSON.stringify(change)).toBe(true);
      expect((failure as Error).message).toContain(message);
    }
    expect(await auth.listPrincipals()).toEqual([]);

    for (const name of ['a', 'a'.repeat(64), 'alice.smith@example.com', 'svc_billing-2']) {
      await expect(auth.createPrincipal({ ...alice, name })).resolves.toMatchObject({ name });
    }
  });

  it('refuses a duplicate name, an unknown principal and an unknown token, with their errors', async () => {
    const { auth } = openService(newPath());
    await auth.createPrincipal(alice);
    await expect(auth.createPrincipal({ ...alice, role: 'operator' })).rejects.toThrow(
      'a principal named alice exists',
    );
    await expect(auth.createPrincipal(alice)).rejects.toSatisfy(InvalidInputError.isInstance);
    await expect(auth.issueToken('prn_nobody')).rejects.toSatisfy(PrincipalNotFoundError.isInstance);
    const unknown = await auth.revokeToken('tok_nobody').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(TokenNotFoundError.isInstance(unknown)).toBe(true);
    expect(unknown).toMatchObject({ code: 'token_not_found', message: 'no token has the id tok_nobody' });
    await expect(auth.revokeToken('')).rejects.toSatisfy(TokenNotFoundError.isInstance);
    expect((await auth.listPrincipals()).map((principal) => principal.name)).toEqual(['alice']);
  });

  it('ensureAdmin creates one admin with a token, once, even when called concurrently', async () => {
    const path = newPath();
    const { store, auth } = openService(path);
    const results = await Promise.all([auth.ensureAdmin(), auth.ensureAdmin(), auth.ensureAdmin()]);
    const created = results.filter((result) => result !== undefined);
    expect(created).toHaveLength(1);
    const first = created[0]!;
    expect(first.principal).toMatchObject({ name: 'admin', kind: 'user', role: 'admin', agents: ['*'] });
    expect(await auth.authenticate(`Bearer ${first.token}`)).toMatchObject({ ok: true, principal: first.principal });
    expect(await auth.ensureAdmin()).toBeUndefined();
    await store.close();

    const reopened = openService(path);
    expect(await reopened.auth.ensureAdmin()).toBeUndefined();
    expect(await reopened.auth.listPrincipals()).toEqual([first.principal]);
    expect(await reopened.auth.listTokens()).toHaveLength(1);
  });

  it('ensureAdmin picks another name when a non-admin holds "admin", and counts any admin', async () => {
    const { auth } = openService(newPath());
    await auth.createPrincipal({ ...alice, name: 'admin' });
    const created = await auth.ensureAdmin();
    expect(created?.principal).toMatchObject({ name: 'admin-2', role: 'admin' });

    const other = openService(newPath());
    await other.auth.createPrincipal({ ...alice, name: 'boss', role: 'admin', agents: ['*'] });
    expect(await other.auth.ensureAdmin()).toBeUndefined();
  });
});

describe('tokens that expire', () => {
  it('authenticate until their expiry, then "token expired" (also after a second of trust), listed with expiresAt', async () => {
    let now = 10_000;
    const auth = new AuthService(memoryStore(), () => now);
    const { principal, token, info } = await auth.createPrincipalWithToken(
      { name: 'temp', kind: 'service', role: 'user', agents: ['*'] },
      { expiresAt: 20_000 },
    );
    expect(info).toEqual({
      id: expect.stringMatching(/^tok_/),
      principalId: principal.id,
      createdAt: 10_000,
      expiresAt: 20_000,
    });
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({ ok: true, principal, tokenId: info.id });
    now = 19_999;
    expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({ ok: true });
    now = 20_000;
    // Accepted a moment ago (a second's trust by the wall clock), but never past its expiry.
    const cached = new AuthService(memoryStore(), () => now);
    const issued = await cached.tokenFor({ name: 'other', role: 'user', expiresAt: 20_001 });
    expect(await cached.authenticate(`Bearer ${issued.token}`)).toMatchObject({ ok: true });
    now = 20_001;
    expect(await cached.authenticate(`Bearer ${issued.token}`)).toEqual({ ok: false, reason: 'token expired' });
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({ ok: false, reason: 'token expired' });
    expect(await auth.listTokens()).toEqual([info]);
    // Another token of the same principal, without expiry, still works.
    const lasting = await auth.issueToken(principal.id);
    expect(await auth.authenticate(`Bearer ${lasting.token}`)).toMatchObject({ ok: true });
  });

  it('refuses an expiry that is not a time in the future, naming it, and issues nothing', async () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const auth = new AuthService(memoryStore(), () => now);
    const input = { name: 'temp', kind: 'service', role: 'user', agents: ['*'] } as const;
    await expect(auth.createPrincipalWithToken(input, { expiresAt: now })).rejects.toThrow(
      'expiresAt must be in the future, got 2026-06-01T00:00:00.000Z (now 2026-06-01T00:00:00.000Z)',
    );
    await expect(auth.tokenFor({ name: 'temp', role: 'user', expiresAt: 1.5 })).rejects.toThrow(
      'expiresAt must be a time in ms since the epoch, got number',
    );
    await expect(
      auth.tokenFor({ name: 'temp', role: 'user', expiresAt: '2027-01-01' as unknown as number }),
    ).rejects.toThrow('expiresAt must be a time in ms since the epoch, got "2027-01-01"');
    expect(await auth.listPrincipals()).toEqual([]);
    expect(await auth.listTokens()).toEqual([]);
  });
});

describe('AuthService on the memory store', () => {
  it('issues, authenticates and revokes the same way', async () => {
    const auth = new AuthService(memoryStore(), () => 7);
    const { principal, token, info } = await auth.createPrincipalWithToken({
      name: 'billing-worker',
      kind: 'worker',
      role: 'worker',
      agents: ['billing'],
    });
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({ ok: true, principal, tokenId: info.id });
    expect(await auth.revokeToken(info.id)).toEqual({ ...info, revokedAt: 7 });
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({ ok: false, reason: 'token revoked' });
    expect(await auth.ensureAdmin()).toMatchObject({ principal: { name: 'admin' } });
  });
});
