/*
 * A person's edited arguments are checked against the tool's schema before the answer is taken:
 * an edit the tool would refuse is a 400 naming the field (an `InvalidParkAnswerError` in the
 * API), the park stays open, and a good edit then runs. For every tool source: the agent's own,
 * a toolset's, an MCP server's (server-everything over stdio) and a worker's (an MCP SDK server
 * connected over WebSocket).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { tool, toolset } from '@wardrik/core';
import { connectWorker, type WorkerConnection } from '@wardrik/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuthService } from '../src/auth/auth-service.js';
import {
  createWardrik,
  defineAgent,
  InvalidParkAnswerError,
  mcpToolset,
  type ParkRow,
  type RequestedToolCall,
  sqliteStore,
  type Wardrik,
} from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const ran: Array<{ tool: string; args: unknown }> = [];
const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  annotations: { destructive: true },
  run: (args) => {
    ran.push({ tool: 'refund', args });
    return 'refunded';
  },
});
const shop = toolset({
  name: 'shop',
  tools: () => [
    tool({
      name: 'ship',
      description: 'Ships an order.',
      schema: z.object({ order_id: z.string(), express: z.boolean() }),
      annotations: { destructive: true },
      run: (args) => {
        ran.push({ tool: 'ship', args });
        return 'shipped';
      },
    }),
  ],
});

/** An agent that makes `call`, then answers. */
function agentCalling(name: string, call: RequestedToolCall, extra: Partial<Parameters<typeof defineAgent>[0]> = {}) {
  return defineAgent({
    name,
    instructions: '',
    model: new ScriptedModel((request) => (request.step === 1 ? { toolCalls: [call] } : { text: 'done' })),
    ...extra,
  });
}

let wardrik: Wardrik;
let server: RunningServer;
let operatorToken = '';
let worker: WorkerConnection | undefined;
let everything: ReturnType<typeof mcpToolset>;

beforeAll(async () => {
  everything = mcpToolset({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });
  const agents = [
    agentCalling('own', { name: 'refund', arguments: { order_id: 'A1', amount: 5 } }, { tools: [refund] }),
    agentCalling('toolset', { name: 'ship', arguments: { order_id: 'A1', express: false } }, { toolsets: [shop] }),
    agentCalling(
      'mcp',
      { name: 'everything__get-sum', arguments: { a: 1, b: 2 } },
      {
        toolsets: [everything],
        policy: {
          rules: [{ name: 'sums-need-a-person', when: (call) => call.tool.endsWith('get-sum'), verdict: 'gate' }],
        },
      },
    ),
    agentCalling(
      'worker',
      { name: 'workers__cancel_order', arguments: { orderId: 'A1', reason: 'late' } },
      {
        workers: ['workers/*'],
      },
    ),
  ];
  const path = join(mkdtempSync(join(tmpdir(), 'wardrik-edits-')), 'wardrik.db');
  wardrik = await createWardrik({ store: sqliteStore(path), agents });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0 });
  const operator = await auth.createPrincipal({ name: 'operator', role: 'operator', kind: 'user', agents: ['*'] });
  operatorToken = (await auth.issueToken(operator.id)).token;
  const workerPrincipal = await auth.createPrincipal({ name: 'w', role: 'worker', kind: 'worker', agents: ['*'] });
  const mcp = new McpServer({ name: 'orders', version: '1.0.0' });
  mcp.registerTool(
    'cancel_order',
    { description: 'Cancel an order.', inputSchema: { orderId: z.string(), reason: z.string() } },
    async ({ orderId }) => {
      ran.push({ tool: 'cancel_order', args: orderId });
      return { content: [{ type: 'text', text: `cancelled ${orderId}` }] };
    },
  );
  worker = connectWorker({ url: server.url, token: (await auth.issueToken(workerPrincipal.id)).token, server: mcp });
  await worker.ready;
});
afterAll(async () => {
  await worker?.close();
  await server?.close();
  await wardrik?.close();
});

async function parkOf(agent: string): Promise<ParkRow> {
  const result = await wardrik.run(agent, 'go');
  expect(result.status).toBe('parked');
  const [held] = result.parks;
  expect(held?.kind).toBe('approval');
  return held as ParkRow;
}

async function answerOverHttp(held: ParkRow, decision: unknown) {
  const response = await fetch(`${server.url}/v1/parks/${held.id}/answer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ decision, callHash: held.callHash }),
  });
  return { status: response.status, body: (await response.json()) as { detail?: string } };
}

describe('edited arguments are checked against the tool’s schema', () => {
  it('own tool over HTTP: a wrong type, a missing field and an unknown field are 400s naming them; the park stays open; a good edit runs', async () => {
    const held = await parkOf('own');
    const wrongType = await answerOverHttp(held, { type: 'edit', arguments: { order_id: 7, amount: 'lots' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.detail).toContain('decision.arguments: tool refund would refuse them');
    expect(wrongType.body.detail).toContain('order_id');
    expect(wrongType.body.detail).toContain('amount');
    const missing = await answerOverHttp(held, { type: 'edit', arguments: { order_id: 'A1' } });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toContain('amount');
    const unknown = await answerOverHttp(held, { type: 'edit', arguments: { order_id: 'A1', amount: 3, note: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('note');
    expect((await wardrik.listParks({ status: 'open' })).map((each) => each.id)).toContain(held.id);
    const good = await answerOverHttp(held, { type: 'edit', arguments: { order_id: 'A1', amount: 3 } });
    expect(good.status).toBe(200);
    expect((await wardrik.wait(held.runId)).status).toBe('completed');
    expect(ran).toContainEqual({ tool: 'refund', args: { order_id: 'A1', amount: 3 } });
  });

  it.each([
    [
      'a toolset’s tool (a Zod schema)',
      'toolset',
      { order_id: 'A1', express: 'yes' },
      'express',
      { order_id: 'A1', express: true },
    ],
    ['an MCP server’s tool', 'mcp', { a: 'one', b: 2 }, 'a', { a: 40, b: 2 }],
    ['a worker’s tool', 'worker', { orderId: 5 }, 'orderId', { orderId: 'A2', reason: 'asked' }],
  ])('%s: refused naming the field, then a good edit runs', async (_source, agent, bad, field, good) => {
    const held = await parkOf(agent);
    const refused = await wardrik
      .answerPark(held.id, { type: 'edit', arguments: bad }, { callHash: held.callHash })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(InvalidParkAnswerError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain(field);
    expect((await wardrik.listParks({ status: 'open' })).map((each) => each.id)).toContain(held.id);
    await wardrik.answerPark(held.id, { type: 'edit', arguments: good }, { callHash: held.callHash });
    const result = await wardrik.wait(held.runId);
    expect(result.status).toBe('completed');
  });
});
