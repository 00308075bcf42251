/*
 * What /mcp offers through the gateway follows what an agent's toolsets and workers offer now:
 * tools that come are listed and callable, tools that go are neither (a call of one is refused as
 * unknown, nothing run) — whatever was listed or called before. The MCP SDK's Client over
 * Streamable HTTP against a real startServer; the worker is a real WebSocket connection.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { type Tool, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../src/index.js';
import { mcpGatewayAgent } from '../src/mcp-server/gateway-agent.js';
import { ScriptedModel } from '../src/testing/index.js';
import { ECHO_TOOL, RawWorker } from './fixtures/workers/raw-worker.js';
import { connectClient, type McpEnv, startMcpEnv, type TestClient, until } from './mcp-server-env.js';

const ran: string[] = [];
function named(name: string): Tool<never> {
  return tool({
    name,
    description: `Tool ${name}.`,
    schema: {},
    annotations: { readOnly: true },
    run: () => {
      ran.push(name);
      return { ran: name };
    },
  }) as Tool<never>;
}
/** What the toolset offers now (a new array whenever it changes, as toolsets are asked to). */
let offered: readonly Tool<never>[] = [named('alpha')];
const ops = defineAgent({
  name: 'ops',
  instructions: '',
  toolsets: [{ name: 'dynamic', tools: () => offered }],
  workers: ['workers/*'],
  model: new ScriptedModel([{ text: 'unused: ops is called through its gateway here' }]),
});

let env: McpEnv;
let client: TestClient;

beforeAll(async () => {
  env = await startMcpEnv({
    agents: [ops, mcpGatewayAgent(ops)],
    mcp: { agents: [], gateway: ['ops'] },
    principals: [['worker', 'worker', ['*']]],
  });
  client = await connectClient(`${env.server.url}/mcp`, env.tokens.admin);
});
afterAll(async () => {
  await client?.close();
  await env?.close();
});

async function listed(): Promise<string[]> {
  return (await client.client.listTools()).tools.map((each) => each.name).sort();
}

/** The error a call is refused with (an MCP error), or the failure to be refused. */
async function refusal(name: string): Promise<McpError> {
  try {
    await client.client.callTool({ name, arguments: {} });
  } catch (thrown) {
    if (thrown instanceof McpError) return thrown;
    throw thrown;
  }
  throw new Error(`${name} was called`);
}

describe('gateway tools that come and go', () => {
  it("follows the toolset's tools", async () => {
    expect(await listed()).toEqual(['ops__alpha']);
    expect((await client.client.callTool({ name: 'ops__alpha', arguments: {} })).structuredContent).toEqual({
      ran: 'alpha',
    });

    offered = [named('beta')];
    expect(await listed()).toEqual(['ops__beta']);
    expect((await refusal('ops__alpha')).message).toContain('Unknown tool: "ops__alpha"');
    expect((await client.client.callTool({ name: 'ops__beta', arguments: {} })).structuredContent).toEqual({
      ran: 'beta',
    });

    offered = [named('alpha'), named('beta')];
    expect(await listed()).toEqual(['ops__alpha', 'ops__beta']);
    expect((await client.client.callTool({ name: 'ops__alpha', arguments: {} })).isError).toBeFalsy();
    expect(ran).toEqual(['alpha', 'beta', 'alpha']);
  });

  it("follows the workers' tools", async () => {
    offered = [];
    expect(await listed()).toEqual([]);
    const worker = await RawWorker.connect(env.server.url, env.tokens.worker ?? '', { tools: [ECHO_TOOL] });
    await until(() => env.wardrik.workers.list().some((each) => each.tools.length === 1));
    expect(await listed()).toEqual(['ops__workers__echo']);
    const call = client.client.callTool({ name: 'ops__workers__echo', arguments: { text: 'hi' } });
    const request = await worker.nextCall();
    expect(request.params).toMatchObject({ name: 'echo', arguments: { text: 'hi' } });
    worker.answer(request.id, { content: [{ type: 'text', text: 'hi back' }] });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'hi back' }]);

    worker.close();
    await worker.closed;
    await until(() => env.wardrik.workers.list().length === 0);
    expect(await listed()).toEqual([]);
    expect((await refusal('ops__workers__echo')).message).toContain('Unknown tool: "ops__workers__echo"');
    expect(worker.received.filter((message) => message.method === 'tools/call')).toHaveLength(1);
  });
});
