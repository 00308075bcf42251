import type { Agent } from '../../agent.js';
import { AuthService } from '../../auth/auth-service.js';
import type { Principal, PrincipalKind, Role } from '../../auth/types.js';
import { loadConfig } from '../../config/load-config.js';
import { InvalidInputError } from '../../errors.js';
import { CliError, EXIT, usageError } from '../cli-error.js';
import { flag, type Parsed, stringOption } from '../command.js';
import { commandHint, type HintTarget } from '../hint.js';
import { print, printJson, table, when } from '../output.js';

import { KINDS, ROLES, TOKENS_HELP as tokens } from './tokens-help.js';

/** Runs `wardrik tokens` (loaded when the command runs). */
export async function runTokens(parsed: Parsed): Promise<number> {
  const [action, ...rest] = parsed.positionals;
  if (action === undefined) throw usageError('missing create, list or revoke', tokens.usage);
  if (!['create', 'list', 'revoke'].includes(action)) {
    throw usageError(`unknown action ${JSON.stringify(action)}; expected create, list or revoke`, tokens.usage);
  }
  const expected = action === 'revoke' ? 1 : 0;
  if (rest.length < expected) throw usageError('missing TOKEN_ID', tokens.usage);
  if (rest.length > expected) {
    throw usageError(`unexpected argument ${JSON.stringify(rest[expected])}`, tokens.usage);
  }
  const createOnly = ['name', 'role', 'agents', 'kind', 'expires-in'].filter(
    (option) => parsed.values[option] !== undefined,
  );
  if (action !== 'create' && createOnly.length > 0) {
    throw usageError(`--${createOnly[0]} goes with create only`, tokens.usage);
  }
  const input = action === 'create' ? createInput(parsed) : undefined;
  const configOption = stringOption(parsed, 'config');
  const config = await loadConfig(configOption);
  const store = config.store;
  try {
    if (input?.agents) checkAgents(input.agents, config.agents);
    await store.migrate();
    const auth = new AuthService(store);
    const hints = configOption === undefined ? {} : { config: configOption };
    if (input) return await create(auth, input, flag(parsed, 'json'), hints);
    if (action === 'list') return await list(auth, flag(parsed, 'json'));
    return await revoke(auth, rest[0] as string, flag(parsed, 'json'));
  } finally {
    await store.close();
  }
}

interface CreateInput {
  readonly name: string;
  readonly role: Role | undefined;
  readonly kind: PrincipalKind | undefined;
  readonly agents: readonly string[] | undefined;
  /** How long the token works once issued (ms); none: until revoked. */
  readonly expiresInMs?: number;
}

/** A duration such as 90d, 12h, 30m or 45s, in ms. */
const DURATION = /^(\d{1,9})(d|h|m|s)$/;
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

function durationMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = DURATION.exec(text.trim());
  const ms = match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : 0;
  if (!match || ms <= 0 || !Number.isSafeInteger(Date.now() + ms)) {
    throw usageError(
      `--expires-in expects a duration such as 90d, 12h, 30m or 45s (more than 0), got ${JSON.stringify(text)}`,
      tokens.usage,
    );
  }
  return ms;
}

function createInput(parsed: Parsed): CreateInput {
  const name = stringOption(parsed, 'name');
  if (!name) throw usageError('missing --name NAME', tokens.usage);
  const role = stringOption(parsed, 'role');
  if (role !== undefined && !ROLES.includes(role as Role)) {
    throw usageError(`--role expects one of ${ROLES.join(', ')}, got ${JSON.stringify(role)}`, tokens.usage);
  }
  const kind = stringOption(parsed, 'kind');
  if (kind !== undefined && !KINDS.includes(kind as PrincipalKind)) {
    throw usageError(`--kind expects one of ${KINDS.join(', ')}, got ${JSON.stringify(kind)}`, tokens.usage);
  }
  const agentsText = stringOption(parsed, 'agents');
  const agents = agentsText
    ?.split(',')
    .map((agent) => agent.trim())
    .filter(Boolean);
  if (agents !== undefined && agents.length === 0) {
    throw usageError('--agents expects agent names separated by commas, or *', tokens.usage);
  }
  const expiresInMs = durationMs(stringOption(parsed, 'expires-in'));
  return {
    name,
    role: role as Role | undefined,
    kind: kind as PrincipalKind | undefined,
    agents,
    ...(expiresInMs === undefined ? {} : { expiresInMs }),
  };
}

/** Refuses agents the config does not define (a token for them could never be used); `*` is every agent. */
function checkAgents(names: readonly string[], defined: readonly Agent[]): void {
  const known = defined.map((agent) => agent.name);
  const unknown = names.filter((name) => name !== '*' && !known.includes(name));
  if (unknown.length > 0) {
    throw usageError(
      `--agents names agents the config does not define: ${unknown.join(', ')} (it defines ${known.join(', ') || 'none'}; '*' means all)`,
      tokens.usage,
    );
  }
}

async function create(auth: AuthService, input: CreateInput, asJson: boolean, hints: HintTarget): Promise<number> {
  if (!input.role && !(await auth.findPrincipalByName(input.name))) {
    throw usageError(`${input.name} is new; give it a --role (${ROLES.join(', ')})`, tokens.usage);
  }
  let issued: Awaited<ReturnType<AuthService['tokenFor']>>;
  try {
    // From when it is issued (loading the config and the store takes a moment).
    const { expiresInMs, ...who } = input;
    issued = await auth.tokenFor({
      ...who,
      ...(expiresInMs === undefined ? {} : { expiresAt: Date.now() + expiresInMs }),
    });
  } catch (thrown) {
    if (InvalidInputError.isInstance(thrown)) throw new CliError(EXIT.failed, thrown.message);
    throw thrown;
  }
  const { principal } = issued;
  if (asJson) {
    const { expiresAt: expires } = issued.info;
    printJson({
      token: issued.token,
      tokenId: issued.info.id,
      principal,
      ...(expires === undefined ? {} : { expiresAt: expires }),
    });
    return EXIT.ok;
  }
  print(`Token for ${describePrincipal(principal)} (shown once; keep it):`);
  print(`  ${issued.token}`);
  if (issued.info.expiresAt !== undefined) print(`It stops working on its own at ${when(issued.info.expiresAt)}.`);
  print(`Its id is ${issued.info.id}; revoke it with: ${commandHint(`tokens revoke ${issued.info.id}`, hints)}`);
  return EXIT.ok;
}

async function list(auth: AuthService, asJson: boolean): Promise<number> {
  const [all, principals] = await Promise.all([auth.listTokens(), auth.listPrincipals()]);
  const byId = new Map(principals.map((principal) => [principal.id, principal]));
  if (asJson) {
    printJson(all.map((token) => ({ ...token, principal: byId.get(token.principalId) })));
    return EXIT.ok;
  }
  if (all.length === 0) {
    print('No tokens yet: `wardrik serve` makes the first (admin) one.');
    return EXIT.ok;
  }
  print(
    table(
      ['ID', 'PRINCIPAL', 'ROLE', 'AGENTS', 'CREATED', 'EXPIRES', 'REVOKED'],
      all.map((token) => {
        const principal = byId.get(token.principalId);
        return [
          token.id,
          principal?.name ?? token.principalId,
          principal?.role ?? '?',
          principal?.agents.join(',') ?? '?',
          when(token.createdAt),
          token.expiresAt === undefined
            ? '-'
            : `${when(token.expiresAt)}${token.expiresAt <= Date.now() ? ' (expired)' : ''}`,
          token.revokedAt === undefined ? '-' : when(token.revokedAt),
        ];
      }),
    ),
  );
  return EXIT.ok;
}

async function revoke(auth: AuthService, id: string, asJson: boolean): Promise<number> {
  const revoked = await auth.revokeToken(id);
  if (asJson) {
    printJson(revoked);
    return EXIT.ok;
  }
  const principal = await auth.getPrincipal(revoked.principalId);
  print(`Revoked ${revoked.id}${principal ? ` (${describePrincipal(principal)})` : ''}: it no longer works.`);
  return EXIT.ok;
}

function describePrincipal(principal: Principal): string {
  return `${principal.name}, role ${principal.role}, agents ${principal.agents.join(',')}`;
}
