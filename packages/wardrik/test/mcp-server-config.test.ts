/*
 * What /mcp offers and to whom, as configured: the config's mcp section (checked as it loads, the
 * gateway agents it names added), MCP off, and callers without a token taken as one named
 * principal — only when asked for, and never on a listener other machines reach unless forced.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { ConfigError, createWardrik, defineAgent, defineConfig, loadConfig, sqliteStore } from '../src/index.js';
import { mcpGatewayAgent } from '../src/mcp-server/gateway-agent.js';
import { createMcpEndpoint } from '../src/mcp-server/mcp-endpoint.js';
import { startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { connectClient, type McpEnv, startMcpEnv } from './mcp-server-env.js';

const greeter = defineAgent({ name: 'greeter', instructions: '', model: new ScriptedModel(() => ({ text: 'hello' })) });
const other = defineAgent({ name: 'other', instructions: '', model: new ScriptedModel(() => ({ text: 'other' })) });

/** A JSON-RPC error as /mcp refuses a request. */
type RpcError = { error: { code: number; message: string } };

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close().catch(() => {});
});

async function env(options: Parameters<typeof startMcpEnv>[0]): Promise<McpEnv> {
  const started = await startMcpEnv(options);
  closing.push(() => started.close());
  return started;
}

describe('the mcp section of a config', () => {
  it('is checked as the config is defined, naming the setting that is wrong', () => {
    expect(() => defineConfig({ agents: [greeter], mcp: { agents: ['nobody'] } })).toThrow(
      new ConfigError('config.mcp.agents: no agent "nobody" in this config (agents: greeter)'),
    );
    expect(() => defineConfig({ agents: [greeter], mcp: { gateways: ['greeter'] } as never })).toThrow(
      /config\.mcp\.gateways: unknown setting \(expected agents, gateway,/,
    );
    expect(() => defineConfig({ agents: [greeter], mcp: { unauthenticated: { principal: '' } } })).toThrow(
      /config\.mcp\.unauthenticated: expected \{ principal: 'NAME' \}/,
    );
    expect(() => defineConfig({ agents: [greeter], mcp: { allowedOrigins: ['evil'] } })).toThrow(
      'config.mcp.allowedOrigins: "evil" is not an http(s) URL',
    );
    expect(() => defineConfig({ agents: [greeter], mcp: { sessionIdleMs: 0 } })).toThrow(
      'config.mcp.sessionIdleMs: expected a positive whole number, got 0',
    );
  });

  it('as loaded: the gateway agents it names join the agents, and what /mcp offers defaults to the config’s agents', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'wardrik-mcp-config-'));
    writeFileSync(join(directory, 'wardrik.config.mjs'), 'export default globalThis.__wardrikMcpConfig;\n');
    (globalThis as { __wardrikMcpConfig?: unknown }).__wardrikMcpConfig = defineConfig({
      agents: [greeter, other],
      mcp: { gateway: ['greeter'], allowedOrigins: ['https://app.example.com'] },
    });
    const config = await loadConfig(undefined, directory);
    closing.push(() => config.store.close());
    expect(config.agents.map((agent) => agent.name)).toEqual(['greeter', 'other', 'greeter.gateway']);
    expect(config.mcp).toEqual({
      gateway: ['greeter'],
      allowedOrigins: ['https://app.example.com'],
      agents: ['greeter', 'other'],
    });
  });
});

describe('serving MCP, as configured', () => {
  it('mcp: false serves no /mcp (the rest of the API as ever)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'wardrik-mcp-off-')), 'wardrik.db');
    const wardrik = await createWardrik({ store: sqliteStore(path), agents: [greeter] });
    const server = await startServer({ wardrik, auth: new AuthService(wardrik.store), port: 0, mcp: false });
    closing.push(async () => {
      await server.close();
      await wardrik.close();
    });
    expect((await fetch(`${server.url}/mcp`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });

  it('offers only the agents named, and refuses to start with one it does not run or a gateway agent missing', async () => {
    const started = await env({ agents: [greeter, other], mcp: { agents: ['other'] } });
    const { client, close } = await connectClient(`${started.server.url}/mcp`, started.tokens.admin);
    closing.push(close);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['other']);
    const auth = started.auth;
    expect(() =>
      createMcpEndpoint({ wardrik: started.wardrik, auth, listenHost: '127.0.0.1', agents: ['nobody'] }),
    ).toThrow('mcp.agents: no agent "nobody" (agents: greeter, other)');
    expect(() =>
      createMcpEndpoint({ wardrik: started.wardrik, auth, listenHost: '127.0.0.1', gateway: ['greeter'] }),
    ).toThrow(
      'mcp.gateway: the runtime has no gateway agent greeter.gateway; add mcpGatewayAgent(greeter) to its agents',
    );
  });

  it('unauthenticated: callers without a token are the named principal; a token sent is still checked', async () => {
    const started = await env({
      agents: [greeter],
      mcp: { unauthenticated: { principal: 'conformance' } },
      principals: [['conformance', 'admin', ['*']]],
    });
    const url = `${started.server.url}/mcp`;
    const { client, close } = await connectClient(url, undefined);
    closing.push(close);
    const result = await client.callTool({ name: 'greeter', arguments: { input: 'hi' } });
    const runId = (result._meta as { 'wardrik/run': { runId: string } })['wardrik/run'].runId;
    expect(await started.wardrik.getRunSummary(runId)).toMatchObject({ principal: started.ids.conformance });
    await expect(connectClient(url, 'wdk_not_a_token')).rejects.toThrow();
    // The principal named must exist: without it, a caller without a token is told what to do.
    const missing = await env({ agents: [greeter], mcp: { unauthenticated: { principal: 'nobody' } } });
    const refused = await fetch(`${missing.server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as RpcError).error.message).toContain('principal nobody, which does not exist');
  });

  it('gatewayPrefix: false offers an agent’s tools under their own names (a name taken already is left out)', async () => {
    const tools = [
      tool({ name: 'echo', description: 'Says it back.', annotations: { readOnly: true }, run: () => 'echo' }),
      tool({
        name: 'shout',
        description: 'Says it loud.',
        schema: { text: { type: 'string', required: true } },
        annotations: { readOnly: true },
        run: ({ text }) => String(text).toUpperCase(),
      }),
    ];
    const echo = defineAgent({
      name: 'echo',
      instructions: '',
      tools,
      model: new ScriptedModel(() => ({ text: 'e' })),
    });
    const started = await env({
      agents: [echo, mcpGatewayAgent(echo)],
      mcp: { gateway: ['echo'], gatewayPrefix: false },
    });
    const { client, close } = await connectClient(`${started.server.url}/mcp`, started.tokens.admin);
    closing.push(close);
    expect((await client.listTools()).tools.map((each) => each.name)).toEqual(['echo', 'shout']);
    expect(await client.callTool({ name: 'shout', arguments: { text: 'hi' } })).toMatchObject({
      content: [{ type: 'text', text: 'HI' }],
      _meta: { 'wardrik/run': { agent: 'echo.gateway', status: 'completed' } },
    });
  });

  it('speaks protocol 2025-11-25 and 2025-06-18, with tools, tasks and logging', async () => {
    const started = await env({ agents: [greeter] });
    for (const version of ['2025-11-25', '2025-06-18']) {
      const response = await fetch(`${started.server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${started.tokens.admin}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
      const data = (await response.text()).split('\n').find((line) => line.startsWith('data: '));
      expect(JSON.parse(data?.slice(6) ?? '{}')).toMatchObject({
        result: {
          protocolVersion: version,
          serverInfo: { name: 'wardrik' },
          capabilities: { tools: {}, logging: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
        },
      });
    }
  });

  it('allowedOrigins: a page of that origin may call /mcp from a browser (CORS); any other origin is refused', async () => {
    const started = await env({ agents: [greeter], mcp: { allowedOrigins: ['https://app.example.com'] } });
    const url = `${started.server.url}/mcp`;
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-session-id',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    const { client, close } = await connectClient(url, started.tokens.admin, {
      headers: { origin: 'https://app.example.com' },
    });
    closing.push(close);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greeter']);
    await expect(
      connectClient(url, started.tokens.admin, { headers: { origin: 'https://other.example.com' } }),
    ).rejects.toThrow('Origin https://other.example.com is not allowed');
  });

  it('unauthenticated is refused on a listener other machines reach, unless forced', async () => {
    const started = await env({ agents: [greeter] });
    const options = { wardrik: started.wardrik, auth: started.auth, listenHost: '0.0.0.0' };
    expect(() => createMcpEndpoint({ ...options, unauthenticated: { principal: 'conformance' } })).toThrow(
      /mcp\.unauthenticated takes MCP callers without a token as principal conformance: refused on host 0\.0\.0\.0/,
    );
    await expect(
      startServer({
        wardrik: started.wardrik,
        auth: started.auth,
        host: '0.0.0.0',
        port: 0,
        mcp: { unauthenticated: { principal: 'conformance' } },
      }),
    ).rejects.toThrow(ConfigError);
    const forced = createMcpEndpoint({ ...options, unauthenticated: { principal: 'conformance', force: true } });
    expect(forced.sessions).toBe(0);
    await forced.close();
  });
});
