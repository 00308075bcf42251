/*
 * Bad input to /mcp, from a real MCP client and raw HTTP: each a clear MCP error (or HTTP refusal
 * naming the problem), nothing run, nothing lost, and the server keeps serving.
 */

import { request as httpRequest } from 'node:http';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../src/index.js';
import { mcpGatewayAgent } from '../src/mcp-server/gateway-agent.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { connectClient, type McpEnv, startMcpEnv, type TestClient } from './mcp-server-env.js';

const refunds: number[] = [];
const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: {
    type: 'object',
    properties: { order_id: { type: 'string', pattern: '^[A-Z][0-9]+$' }, amount: { type: 'number' } },
    required: ['order_id', 'amount'],
  },
  annotations: { destructive: true },
  run: ({ amount }) => {
    refunds.push(amount as number);
    return { refunded: amount };
  },
});
const support = defineAgent({
  name: 'support',
  instructions: '',
  tools: [refund],
  model: new ScriptedModel([
    { toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 50 } }] },
    (request) => ({ text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
  ]),
});

/** A JSON-RPC error as /mcp refuses a request. */
type RpcError = { error: { code: number; message: string } };

let env: McpEnv;
let mcpUrl: string;
const clients: TestClient[] = [];

async function connect(token: string | undefined, options: Parameters<typeof connectClient>[2] = {}) {
  const connected = await connectClient(mcpUrl, token, options);
  clients.push(connected);
  return connected;
}

async function runCount(): Promise<number> {
  return (await env.wardrik.listRuns()).length;
}

/** A raw initialize request, as a client would send it. */
function initialize(headers: Record<string, string>) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

/** An initialize request sent with the given Host header (node:http lets a test set it). */
function rawPost(host: string, token: string): Promise<{ status: number; body: string }> {
  const url = new URL(mcpUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host: `${host}:${url.port}`,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
  });
}

beforeAll(async () => {
  env = await startMcpEnv({
    agents: [support, mcpGatewayAgent(support)],
    principals: [
      ['alice', 'user', ['*']],
      ['bob', 'user', ['*']],
      ['operator', 'operator', ['*']],
      ['worker', 'worker', ['*']],
    ],
  });
  mcpUrl = `${env.server.url}/mcp`;
});
afterAll(async () => {
  for (const each of clients) await each.close().catch(() => {});
  await env?.close();
});

describe('bad input to /mcp', () => {
  it('an unknown tool is an MCP error naming what is offered; nothing runs', async () => {
    const { client } = await connect(env.tokens.alice);
    const before = await runCount();
    const refused = await client.callTool({ name: 'refunds', arguments: { input: 'x' } }).catch((thrown) => thrown);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ code: -32602 });
    expect(refused.message).toContain('Unknown tool: "refunds"; this server offers support, support__refund');
    expect(await runCount()).toBe(before);
  });

  it('arguments that don’t fit are a tool error naming every field; nothing runs', async () => {
    const { client } = await connect(env.tokens.alice);
    const before = await runCount();
    const agent = await client.callTool({ name: 'support', arguments: { input: 7, extra: true } });
    expect(agent.isError).toBe(true);
    const text = (agent.content as { text: string }[])[0]?.text;
    expect(text).toContain('Invalid arguments for tool support: ');
    expect(text).toContain('input: expected string, got integer 7');
    expect(text).toContain('extra: is not an expected field (expected: input, session)');
    const gateway = await client.callTool({ name: 'support__refund', arguments: { order_id: 'A1', amount: 'lots' } });
    expect(gateway.isError).toBe(true);
    expect((gateway.content as { text: string }[])[0]?.text).toContain('amount: expected number');
    expect(await runCount()).toBe(before);
    expect(refunds).toEqual([]);
  });

  it('a token whose role may not start runs: listed nothing, and a call is a Forbidden MCP error; nothing runs', async () => {
    const before = await runCount();
    for (const name of ['operator', 'worker']) {
      const { client } = await connect(env.tokens[name]);
      expect((await client.listTools()).tools).toEqual([]);
      const refused = await client.callTool({ name: 'support', arguments: { input: 'x' } }).catch((thrown) => thrown);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused.message).toContain(`Forbidden: role ${name} may not start runs`);
    }
    expect(await runCount()).toBe(before);
  });

  it('a forged Origin or Host is refused with 403 before anything is read', async () => {
    const origin = await initialize({ authorization: `Bearer ${env.tokens.alice}`, origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as RpcError).error.message).toContain('Origin http://evil.example is not allowed');
    // DNS rebinding: a name that resolves to this machine, sent by a page of that name (fetch can't forge Host).
    const host = await rawPost('evil.example', env.tokens.alice ?? '');
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).error.message).toContain('Host "evil.example:');
    // The SDK's client, sent from a page of another origin, gets the same.
    await expect(connect(env.tokens.alice, { headers: { origin: 'http://evil.example' } })).rejects.toThrow(
      'Forbidden: Origin http://evil.example is not allowed',
    );
    // The server's own origin is fine.
    const own = await initialize({ authorization: `Bearer ${env.tokens.alice}`, origin: env.server.url });
    expect(own.status).toBe(200);
  });

  it('no token, a bad token or a revoked one: 401 with WWW-Authenticate naming the protected-resource metadata', async () => {
    const missing = await initialize({});
    expect(missing.status).toBe(401);
    const metadataUrl = `${env.server.url}/.well-known/oauth-protected-resource/mcp`;
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(((await missing.json()) as RpcError).error.message).toBe('Unauthorized: missing bearer token');
    const unknown = await initialize({ authorization: 'Bearer wdk_nope' });
    expect(unknown.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}", error="invalid_token", error_description="unknown token"`,
    );
    const metadata = await fetch(metadataUrl);
    expect(await metadata.json()).toEqual({
      resource: mcpUrl,
      resource_name: 'Wardrik',
      bearer_methods_supported: ['header'],
    });
    expect(await (await fetch(`${env.server.url}/.well-known/oauth-protected-resource`)).json()).toMatchObject({
      resource: mcpUrl,
    });
    // A session's token revoked: its next request is refused.
    const issued = await env.auth.issueToken(env.ids.alice ?? '');
    const { client } = await connect(issued.token);
    await env.auth.revokeToken(issued.info.id);
    await expect(client.listTools()).rejects.toThrow();
  });

  it('a malformed body is a parse error; an unknown session 404; another principal’s session 403', async () => {
    const headers = {
      authorization: `Bearer ${env.tokens.alice}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const malformed = await fetch(mcpUrl, { method: 'POST', headers, body: '{"jsonrpc": "2.0", ' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as RpcError).error).toMatchObject({
      code: -32700,
      message: expect.stringContaining('Parse error'),
    });
    const unknown = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
    const alices = await initialize({ authorization: `Bearer ${env.tokens.alice}` });
    const sessionId = alices.headers.get('mcp-session-id') ?? '';
    const taken = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${env.tokens.bob}`, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(taken.status).toBe(403);
    // The server still serves.
    const { client } = await connect(env.tokens.alice);
    expect((await client.listTools()).tools.length).toBe(2);
  });

  it('a task id of another principal is not found (whatever the role), and nothing about it changes', async () => {
    const alice = await connect(env.tokens.alice);
    const created = await alice.client.request(
      { method: 'tools/call', params: { name: 'support', arguments: { input: 'refund' }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    for (const name of ['bob', 'admin']) {
      const { client } = await connect(env.tokens[name]);
      await expect(client.experimental.tasks.getTask(taskId)).rejects.toThrow(
        `Task not found: no task "${taskId}" of ${name}`,
      );
      await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow('Task not found');
      await expect(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toThrow(
        'Task not found',
      );
    }
    expect((await env.wardrik.getRunSummary(taskId)).status).not.toBe('cancelled');
    expect(await alice.client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId });
    await env.wardrik.cancel(taskId, 'test over');
  });

  it('an elicitation reply that does not fit its form is refused: nothing runs, the park stays open, and asking again works', async () => {
    let reply: Record<string, unknown> = { amount: 'lots', note: 'x' };
    const { client } = await connect(env.tokens.admin, {
      elicit: async () => ({ action: 'accept', content: reply as Record<string, string> }),
    });
    const refused = await client
      .callTool({ name: 'support', arguments: { input: 'refund' } })
      .catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ code: -32602 });
    const { message, data } = refused as McpError & { data: { runId: string; parkId: string } };
    expect(message).toContain('your answer to park');
    expect(message).toContain('content.note: not a field of this form');
    expect(message).toContain('content.amount: expected number');
    expect(message).toContain('Nothing was run: the park is still open');
    expect(refunds).toEqual([]);
    expect(await env.wardrik.getPark(data.parkId)).toMatchObject({ status: 'open' });
    // Nothing lost: the run is the task; tasks/result asks again, and a fitting reply completes it.
    reply = { amount: 30 };
    const result = await client.experimental.tasks.getTaskResult(data.runId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('"refunded":30') }]);
    expect(refunds).toEqual([30]);
  });

  it('an edit that fits the form but that the tool would refuse is refused the same way; the park stays open', async () => {
    const { client } = await connect(env.tokens.admin, {
      elicit: async () => ({ action: 'accept', content: { order_id: 'lowercase' } }),
    });
    const refused = await client
      .callTool({ name: 'support__refund', arguments: { order_id: 'B1', amount: 5 } })
      .catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(McpError);
    const { message, data } = refused as McpError & { data: { parkId: string } };
    expect(message).toContain('tool refund would refuse them: order_id');
    expect(await env.wardrik.getPark(data.parkId)).toMatchObject({ status: 'open' });
    expect(refunds).toEqual([30]);
  });
});
