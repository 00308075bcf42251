/*
 * mcpToolset({ url, auth }): OAuth for remote MCP servers, on the MCP SDK's OAuth client, against
 * an OAuth authorization server of the test's own (node:http) in front of a real MCP SDK server
 * over Streamable HTTP (test/mcp/oauth-test-servers.ts). Tokens live in a real SQLite store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Answer, call, createContext, StateView, type Tool, ToolDefinitionError } from '@wardrik/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SqliteStore, sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { McpAuthorizationRequest } from '../src/toolsets/mcp-oauth-options.js';
import { McpServerUnavailableError } from '../src/toolsets/mcp-server-unavailable.js';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import { type OAuthTestServers, PRE_REGISTERED, startOAuthTestServers } from './mcp/oauth-test-servers.js';

const KEY = 'WARDRIK_SECRET_KEY';
const REDIRECT_URL = 'http://127.0.0.1:1/callback';

function toolsetContext(principal: string) {
  return {
    runId: `r-${principal}`,
    agentName: 'helper',
    principal,
    step: 1,
    labels: [],
    state: new StateView(),
    signal: new AbortController().signal,
  };
}

async function callTool(toolset: McpToolset, principal: string, name: string): Promise<Answer> {
  const tools: readonly Tool<never>[] = await toolset.tools(toolsetContext(principal));
  return call(
    tools,
    { id: 'c1', name: `${toolset.name}__${name}`, arguments: {} },
    createContext({
      runId: `r-${principal}`,
      agent: 'helper',
      principal,
      callId: 'c1',
      idempotencyKey: `r-${principal}:c1`,
      signal: new AbortController().signal,
    }),
  );
}

function text(answer: Answer): string {
  if (answer.type !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(answer)}`);
  return JSON.stringify(answer.value);
}

/** Plays the person: opens the authorization URL as `user`, and reads the code and state from the redirect. */
function personSigningIn(user: string, asked: McpAuthorizationRequest[]) {
  return async (request: McpAuthorizationRequest) => {
    asked.push(request);
    const url = new URL(request.url);
    url.searchParams.set('user', user);
    const response = await fetch(url, { redirect: 'manual' });
    const back = new URL(response.headers.get('location') ?? '');
    return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
  };
}

describe('mcpToolset with OAuth', () => {
  let servers: OAuthTestServers;
  let store: SqliteStore;
  let path: string;
  const toolsets: McpToolset[] = [];
  const logs: string[] = [];
  const previousKey = process.env[KEY];

  beforeEach(async () => {
    process.env[KEY] = randomBytes(32).toString('hex');
    servers = await startOAuthTestServers();
    path = join(mkdtempSync(join(tmpdir(), 'wardrik-oauth-')), 'wardrik.db');
    store = sqliteStore(path);
    await store.migrate();
    logs.length = 0;
  });
  afterEach(async () => {
    await Promise.all(toolsets.splice(0).map((toolset) => toolset.close()));
    await store.close();
    await servers.close();
    if (previousKey === undefined) delete process.env[KEY];
    else process.env[KEY] = previousKey;
  });

  function open(auth: Record<string, unknown>, name = 'remote'): McpToolset {
    const toolset = mcpToolset({
      name,
      url: servers.mcpUrl,
      trusted: true,
      auth: { store, ...auth } as never,
      reconnect: { baseDelayMs: 1, maxDelayMs: 1 },
      log: (message) => logs.push(message),
    });
    toolsets.push(toolset);
    return toolset;
  }

  it('signs in with client credentials (a pre-registered client) and calls the server', async () => {
    const toolset = open({ clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret });
    expect(text(await callTool(toolset, 'carol', 'whoami'))).toContain(PRE_REGISTERED.clientId);
    expect(servers.grants).toEqual(['client_credentials']);
  });

  it('registers itself, has a person sign in through the authorize hook (PKCE), refreshes an expired token without asking again', async () => {
    const asked: McpAuthorizationRequest[] = [];
    const toolset = open({ redirectUrl: REDIRECT_URL, authorize: personSigningIn('alice', asked) });
    expect(text(await callTool(toolset, 'alice', 'whoami'))).toContain('alice');
    expect(servers.clients.size).toBe(2); // the pre-registered one and ours
    expect(asked).toHaveLength(1);
    expect(asked[0]?.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked[0]?.url.searchParams.get('redirect_uri')).toBe(REDIRECT_URL);
    expect(asked[0]?.state).toBe(asked[0]?.url.searchParams.get('state'));
    expect(servers.grants).toEqual(['authorization_code']);

    for (const token of servers.accessTokens.values()) token.expired = true;
    expect(text(await callTool(toolset, 'alice', 'whoami'))).toContain('alice');
    expect(servers.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(asked).toHaveLength(1);
  });

  it('steps up: a 403 insufficient_scope has the person sign in again with the scope asked for, and the call goes through', async () => {
    const asked: McpAuthorizationRequest[] = [];
    const toolset = open({ redirectUrl: REDIRECT_URL, authorize: personSigningIn('alice', asked) });
    expect(text(await callTool(toolset, 'alice', 'whoami'))).toContain('alice');
    expect(text(await callTool(toolset, 'alice', 'admin_report'))).toContain('report for alice');
    expect(asked).toHaveLength(2);
    expect(servers.authorizationScopes.at(-1)?.split(' ')).toEqual(expect.arrayContaining(['read', 'admin']));
  });

  it('keeps tokens and the registration in the store encrypted: no token or secret in the raw rows', async () => {
    const toolset = open({ redirectUrl: REDIRECT_URL, authorize: personSigningIn('alice', []) });
    await callTool(toolset, 'alice', 'whoami');
    const database = new Database(path, { readonly: true });
    try {
      const rows = database.prepare('SELECT * FROM oauth_credentials ORDER BY kind').all() as Array<
        Record<string, string>
      >;
      expect(rows.map((row) => row['kind'])).toEqual(['client', 'tokens']);
      const raw = JSON.stringify(rows);
      for (const secret of [
        ...servers.accessTokens.keys(),
        ...servers.refreshTokens.keys(),
        ...servers.clients.values(),
      ]) {
        if (secret !== undefined) expect(raw).not.toContain(secret);
      }
      expect(raw).not.toContain('access_token');
      for (const row of rows) expect(row['value']).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    } finally {
      database.close();
    }
    // Another key does not read them: the toolset signs in again rather than using them.
    process.env[KEY] = randomBytes(32).toString('hex');
    const other = open({ redirectUrl: REDIRECT_URL, authorize: personSigningIn('alice', []) }, 'remote');
    const answer = await callTool(other, 'alice', 'whoami').catch((cause: unknown) => cause);
    expect(String((answer as Error).message ?? JSON.stringify(answer))).toMatch(
      /does not decrypt with WARDRIK_SECRET_KEY/,
    );
  });

  it('keeps per-principal tokens apart: each principal signs in once and calls as themselves', async () => {
    const asked: McpAuthorizationRequest[] = [];
    const toolset = open({
      perPrincipal: true,
      redirectUrl: REDIRECT_URL,
      authorize: async (request: McpAuthorizationRequest) =>
        personSigningIn(request.principal ?? 'nobody', asked)(request),
    });
    expect(text(await callTool(toolset, 'alice', 'whoami'))).toContain('alice');
    expect(text(await callTool(toolset, 'bob', 'whoami'))).toContain('bob');
    expect(text(await callTool(toolset, 'alice', 'whoami'))).toContain('alice');
    expect(asked.map((request) => request.principal)).toEqual(['alice', 'bob']);
    const database = new Database(path, { readonly: true });
    try {
      const rows = database.prepare('SELECT principal, kind FROM oauth_credentials ORDER BY principal, kind').all();
      expect(rows).toEqual([
        { principal: '', kind: 'client' },
        { principal: 'alice', kind: 'tokens' },
        { principal: 'bob', kind: 'tokens' },
      ]);
    } finally {
      database.close();
    }
  });

  it('without a hook answer, waits for completeAuthorization with the callback; a wrong state is refused', async () => {
    const toolset = open({ redirectUrl: REDIRECT_URL });
    const failed = await toolset.connect().catch((cause: unknown) => cause);
    expect(McpServerUnavailableError.isInstance(failed)).toBe(true);
    const message = (failed as Error).message;
    expect(message).toMatch(
      /MCP server remote \(http:\/\/127\.0\.0\.1:\d+\/mcp\): needs authorization: a person must open http/,
    );
    const authorizationUrl = new URL(/open (\S+) and sign in/.exec(message)?.[1] ?? '');
    authorizationUrl.searchParams.set('user', 'dana');
    const back = new URL((await fetch(authorizationUrl, { redirect: 'manual' })).headers.get('location') ?? '');
    const code = back.searchParams.get('code') ?? '';
    await expect(toolset.completeAuthorization({ code, state: 'forged' })).rejects.toThrow(/state does not match/);
    await toolset.completeAuthorization({ code, state: back.searchParams.get('state') ?? '' });
    expect(text(await callTool(toolset, 'dana', 'whoami'))).toContain('dana');
  });

  it('refuses to build without WARDRIK_SECRET_KEY, naming the variable', () => {
    delete process.env[KEY];
    expect(() => open({ clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret })).toThrow(
      ToolDefinitionError,
    );
    expect(() => open({ clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret })).toThrow(
      /mcpToolset remote: auth keeps OAuth tokens in the store encrypted with WARDRIK_SECRET_KEY, which is not set/,
    );
  });

  it('a token endpoint that fails: the listing and the call are errors naming the server and why; no secret in errors or logs', async () => {
    const toolset = open({ clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret });
    const tools = await toolset.tools(toolsetContext('carol'));
    // The token expires, and the token endpoint is down: the call is refused before it runs.
    for (const token of servers.accessTokens.values()) token.expired = true;
    servers.tokenFailure = 'token service down for maintenance';
    const answer = await call(
      tools,
      { id: 'c2', name: 'remote__whoami', arguments: {} },
      createContext({
        runId: 'r1',
        agent: 'helper',
        principal: 'carol',
        callId: 'c2',
        idempotencyKey: 'r1:c2',
        signal: new AbortController().signal,
      }),
    );
    expect(answer).toMatchObject({ type: 'error', code: 'unavailable' });
    const reason = (answer as { reason: string }).reason;
    expect(reason).toMatch(/MCP server remote \(http:\/\/127\.0\.0\.1:\d+\/mcp\)/);
    expect(reason).toMatch(/server_error.*token service down for maintenance/);
    expect(reason).toMatch(/the call was not sent/);

    // A fresh toolset: connecting fails the same way, and a call says why.
    const fresh = open({ clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret }, 'fresh');
    const failed = await fresh.tools(toolsetContext('carol')).then(
      () => undefined,
      (cause: unknown) => cause as Error,
    );
    expect(McpServerUnavailableError.isInstance(failed)).toBe(true);
    expect(failed?.message).toMatch(
      /MCP server fresh \(http:\/\/127\.0\.0\.1:\d+\/mcp\).*token service down for maintenance/,
    );
    const secrets = [PRE_REGISTERED.clientSecret, ...servers.accessTokens.keys()];
    for (const line of [...logs, reason, failed?.message ?? '']) {
      for (const secret of secrets) expect(line).not.toContain(secret);
    }
  });
});
