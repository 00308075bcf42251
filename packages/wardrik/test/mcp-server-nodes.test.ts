/*
 * MCP tasks across nodes on one PostgreSQL: a task started through one node's /mcp is answered
 * through another's — tasks/get, and tasks/result, which asks that node's client about the park
 * (its answer recorded for whichever node holds the run) and returns the result.
 */

import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { connectClient, type TestClient, until } from './mcp-server-env.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';

const refunded: string[] = [];
const refund = tool({
  name: 'refund',
  description: 'Refund an order (a person approves every refund).',
  schema: { order_id: { type: 'string', required: true } },
  annotations: { destructive: true },
  run: ({ order_id }) => {
    refunded.push(order_id as string);
    return { refunded: order_id };
  },
});

function support() {
  return defineAgent({
    name: 'support',
    instructions: '',
    tools: [refund],
    model: new ScriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order_id: 'N1' } }] },
      (request) => ({ text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ]),
  });
}

const schema = testSchemaName();
const nodes: { wardrik: Wardrik; server: RunningServer }[] = [];
const clients: TestClient[] = [];
let token = '';

async function startNode(name: string) {
  const wardrik = await createWardrik({
    store: openPostgresTestStore({ schema, keepSchema: true }),
    agents: [support()],
    node: name,
    claimIntervalMs: 20,
  });
  const server = await startServer({ wardrik, auth: new AuthService(wardrik.store), port: 0 });
  nodes.push({ wardrik, server });
  return { wardrik, server };
}

beforeAll(async () => {
  const a = await startNode('a');
  await startNode('b');
  token = (await new AuthService(a.wardrik.store).ensureAdmin())?.token ?? '';
});
afterAll(async () => {
  for (const each of clients) await each.close().catch(() => {});
  for (const { server, wardrik } of nodes) {
    await server.close();
    await wardrik.close();
  }
  await dropTestSchema(schema);
});

describe('an MCP task across nodes', () => {
  it('started through node a, answered through node b: tasks/get, then tasks/result asks b’s client and returns the result', async () => {
    const [a, b] = nodes;
    if (!a || !b) throw new Error('two nodes');
    const onA = await connectClient(`${a.server.url}/mcp`, token);
    clients.push(onA);
    const created = await onA.client.request(
      { method: 'tools/call', params: { name: 'support', arguments: { input: 'refund N1' }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    const asked: string[] = [];
    const onB = await connectClient(`${b.server.url}/mcp`, token, {
      elicit: async (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: {} };
      },
    });
    clients.push(onB);
    await until(async () => (await onB.client.experimental.tasks.getTask(taskId)).status === 'input_required');
    const result = await onB.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'done {"refunded":"N1"}' }]);
    expect(asked).toEqual([expect.stringContaining('Why: refund is destructive')]);
    expect(refunded).toEqual(['N1']);
    expect(await onA.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
  });
});
