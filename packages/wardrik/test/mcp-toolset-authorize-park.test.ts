/**
 * A run whose toolset's remote MCP server needs a person to sign in (the OAuth code flow, no
 * `authorize` hook) parks with kind `authorize`, showing the URL; the callback's code and state
 * (`completeAuthorization`) finish the sign-in and the run goes on. Real OAuth and MCP servers.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { defineAgent, ParkNotFoundError, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import { openWardrik, tempDbPath, until } from './helpers.js';
import { type OAuthTestServers, startOAuthTestServers } from './mcp/oauth-test-servers.js';

const KEY = 'WARDRIK_SECRET_KEY';
const REDIRECT_URL = 'http://127.0.0.1:1/oauth/callback';

/** A port nobody listens on now (the callback URL must be known before the server starts). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Plays the person: opens the authorization URL as `user`; the redirect says what the callback brings back. */
async function signIn(url: string, user: string): Promise<{ code: string; state: string }> {
  const page = new URL(url);
  page.searchParams.set('user', user);
  const back = new URL((await fetch(page, { redirect: 'manual' })).headers.get('location') ?? '');
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

describe('a run waits for a person to sign in to a remote MCP server (authorize parks)', () => {
  let servers: OAuthTestServers;
  let wardrik: Wardrik | undefined;
  let toolset: McpToolset | undefined;
  const previousKey = process.env[KEY];

  beforeEach(async () => {
    process.env[KEY] = randomBytes(32).toString('hex');
    servers = await startOAuthTestServers();
  });
  afterEach(async () => {
    await wardrik?.close();
    await toolset?.close();
    wardrik = undefined;
    await servers.close();
    if (previousKey === undefined) delete process.env[KEY];
    else process.env[KEY] = previousKey;
  });

  it('parks with the authorization URL; the callback signs in and every run waiting for it goes on', async () => {
    const path = tempDbPath();
    const store = sqliteStore(path);
    toolset = mcpToolset({
      name: 'remote',
      url: servers.mcpUrl,
      trusted: true,
      auth: { store, redirectUrl: REDIRECT_URL },
      reconnect: { baseDelayMs: 1, maxDelayMs: 1 },
      log: () => {},
    });
    const agent = defineAgent({
      name: 'assistant',
      instructions: 'Ask the remote server who you are.',
      toolsets: [toolset],
      model: new ScriptedModel([
        { toolCalls: [{ name: 'remote__whoami', arguments: {} }] },
        (request) => ({ text: `server says ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
      ]),
    });
    wardrik = await openWardrik(path, [agent], { store });
    const first = await wardrik.run('assistant', 'who am I?');
    expect(first.status).toBe('parked');
    const park = first.parks[0]!;
    expect(park.kind).toBe('authorize');
    const details = park.details as { toolset: string; url: string; state: string };
    expect(details.toolset).toBe('remote');
    expect(details.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(park.reason).toBe(
      `toolset remote: its MCP server needs a person to sign in at ${details.url}; the run goes on once they have`,
    );
    expect(park.call).toBeUndefined();
    // A person can't answer it as if it were a call.
    await expect(
      wardrik.answerPark(park.id, { type: 'answer', value: 1 }, { callHash: park.callHash }),
    ).rejects.toThrow('a authorize park takes one of retry, stop, approve');

    // A second run meanwhile waits too, with a sign-in of its own that replaces the first one's.
    const second = await wardrik.run('assistant', 'who am I, again?');
    const secondDetails = second.parks[0]?.details as { url: string; state: string };
    expect(second.parks[0]?.kind).toBe('authorize');
    expect(secondDetails.state).not.toBe(details.state);
    await expect(wardrik.completeAuthorization(await signIn(details.url, 'erin'))).rejects.toThrow(
      `state: a newer sign-in to remote replaced this one (park ${second.parks[0]?.id}); open its URL instead`,
    );

    const callback = await signIn(secondDetails.url, 'erin');
    expect(callback.state).toBe(secondDetails.state);
    // A forged or stale state finishes nothing, and the run keeps waiting.
    await expect(wardrik.completeAuthorization({ code: callback.code, state: 'forged' })).rejects.toThrow(
      ParkNotFoundError,
    );
    expect((await wardrik.getPark(park.id)).status).toBe('open');

    const done = await wardrik.completeAuthorization(callback);
    expect(done.runs.sort()).toEqual([first.runId, second.runId].sort());
    expect(await wardrik.getPark(park.id)).toMatchObject({ status: 'answered', answeredBy: 'oauth-callback' });
    await until(async () => (await wardrik!.getRunSummary(first.runId)).status === 'completed', 60_000);
    const result = await wardrik.wait(first.runId);
    expect(result.output).toContain('erin');
    await until(async () => (await wardrik!.getRunSummary(second.runId)).status === 'completed', 60_000);
    // The same callback again: nobody waits for it any more.
    await expect(wardrik.completeAuthorization(callback)).rejects.toThrow(ParkNotFoundError);
  });

  it('a person may end the run instead of signing in', async () => {
    const path = tempDbPath();
    const store = sqliteStore(path);
    toolset = mcpToolset({
      name: 'remote',
      url: servers.mcpUrl,
      auth: { store, redirectUrl: REDIRECT_URL },
      reconnect: { baseDelayMs: 1, maxDelayMs: 1 },
      log: () => {},
    });
    const agent = defineAgent({
      name: 'assistant',
      instructions: 'Ask.',
      toolsets: [toolset],
      model: new ScriptedModel([{ text: 'never reached' }]),
    });
    wardrik = await openWardrik(path, [agent], { store });
    const parked = await wardrik.run('assistant', 'who am I?');
    const park = parked.parks[0]!;
    await wardrik.answerPark(park.id, { type: 'stop' }, { callHash: park.callHash, by: 'alice' });
    const ended = await wardrik.wait(parked.runId);
    expect(ended.status).toBe('failed');
    expect(ended.error).toBe('a person stopped the run instead of signing in');
  });

  it("wardrik serve takes the callback: the person's browser lands there and the run goes on", async () => {
    const path = tempDbPath();
    const store = sqliteStore(path);
    const port = await freePort();
    toolset = mcpToolset({
      name: 'remote',
      url: servers.mcpUrl,
      trusted: true,
      auth: { store, redirectUrl: `http://127.0.0.1:${port}/v1/oauth/callback` },
      reconnect: { baseDelayMs: 1, maxDelayMs: 1 },
      log: () => {},
    });
    const agent = defineAgent({
      name: 'assistant',
      instructions: 'Ask.',
      toolsets: [toolset],
      model: new ScriptedModel([
        { toolCalls: [{ name: 'remote__whoami', arguments: {} }] },
        (request) => ({ text: `server says ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
      ]),
    });
    wardrik = await openWardrik(path, [agent], { store });
    let server: RunningServer | undefined;
    try {
      server = await startServer({ wardrik, auth: new AuthService(wardrik.store), port });
      const parked = await wardrik.run('assistant', 'who am I?');
      const details = parked.parks[0]?.details as { url: string };
      // The authorization server refused: the run still waits.
      const refused = await fetch(`${server.url}/v1/oauth/callback?error=access_denied&error_description=no`);
      expect(refused.status).toBe(400);
      expect((await refused.json()).detail).toMatch(/refused the sign-in \(access_denied: no\); the runs still wait/);
      const forged = await fetch(`${server.url}/v1/oauth/callback?code=x&state=forged`);
      expect(forged.status).toBe(404);
      // The person signs in; the browser follows the redirect to wardrik serve (no token: the state binds it).
      const page = new URL(details.url);
      page.searchParams.set('user', 'frank');
      const landed = await fetch(page);
      expect(landed.status).toBe(200);
      expect(await landed.text()).toBe('Signed in: 1 run goes on. You can close this page.\n');
      await until(async () => (await wardrik!.getRunSummary(parked.runId)).status === 'completed', 60_000);
      expect((await wardrik.wait(parked.runId)).output).toContain('frank');
    } finally {
      await server?.close();
    }
  });
});
