/*
 * What the MCP conformance suite's server fixtures need of /mcp's gateway, with a real MCP client
 * (the SDK's) over Streamable HTTP: a tool answering MCP content blocks (image, audio, an embedded
 * resource) answers them as such; a tool that parks with a form of its own
 * (`details.requestedSchema`) has the caller asked that form, and the reply's content (defaults
 * filled in) is the call's answer; a client that set `logging/setLevel` to debug is told the
 * run's steps as log lines.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../src/index.js';
import { mcpGatewayAgent } from '../src/mcp-server/gateway-agent.js';
import { ScriptedModel } from '../src/testing/index.js';
import { connectClient, type Elicit, type McpEnv, startMcpEnv, type TestClient } from './mcp-server-env.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

const PROFILE_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
  },
};

const tools = [
  tool({
    name: 'picture',
    description: 'An image and a resource.',
    annotations: { readOnly: true },
    run: () => [
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://note', mimeType: 'text/plain', text: 'a note' } },
    ],
  }),
  tool({
    name: 'numbers',
    description: 'A list that is not content blocks.',
    annotations: { readOnly: true },
    run: () => [1, 2, { type: 'image' }],
  }),
  tool({
    name: 'profile',
    description: 'Asks for a profile.',
    annotations: { readOnly: true },
    run: () => park('Fill in your profile', { details: { requestedSchema: PROFILE_FORM } }),
  }),
  tool({
    name: 'nested',
    description: 'Parks with a form MCP cannot show (a nested object).',
    annotations: { readOnly: true },
    run: () =>
      park('Where do you live?', {
        details: { requestedSchema: { type: 'object', properties: { address: { type: 'object' } } } },
      }),
  }),
  tool({
    name: 'slow',
    description: 'Takes a moment.',
    annotations: { readOnly: true },
    run: async () => {
      await sleep(20);
      return 'done';
    },
  }),
];

const fixtures = defineAgent({
  name: 'fixtures',
  instructions: '',
  tools,
  model: new ScriptedModel(() => ({ text: 'not used' })),
});

let env: McpEnv;
const open: TestClient[] = [];
beforeAll(async () => {
  env = await startMcpEnv({
    agents: [fixtures, mcpGatewayAgent(fixtures)],
    mcp: { agents: [], gateway: ['fixtures'], gatewayPrefix: false },
  });
});
afterAll(async () => {
  for (const client of open) await client.close().catch(() => {});
  await env?.close();
});

async function connect(elicit?: Elicit): Promise<TestClient> {
  const client = await connectClient(`${env.server.url}/mcp`, env.tokens.admin, elicit ? { elicit } : {});
  open.push(client);
  return client;
}

describe('gateway tools as the conformance fixtures need them', () => {
  it('a tool answering MCP content blocks answers them as such; any other list as JSON text', async () => {
    const { client } = await connect();
    const picture = await client.callTool({ name: 'picture', arguments: {} });
    expect(picture.content).toEqual([
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://note', mimeType: 'text/plain', text: 'a note' } },
    ]);
    expect(picture.isError).toBeUndefined();
    expect(picture.structuredContent).toBeUndefined();
    expect(picture._meta).toMatchObject({ 'wardrik/run': { agent: 'fixtures.gateway', status: 'completed' } });

    const numbers = await client.callTool({ name: 'numbers', arguments: {} });
    expect(numbers.content).toEqual([{ type: 'text', text: '[1,2,{"type":"image"}]' }]);
  });

  it('a tool that parks with its own form has the caller asked that form; the content, defaults filled in, is the answer', async () => {
    const asked: { requestedSchema: unknown; meta: unknown }[] = [];
    const { client } = await connect(async (request) => {
      const params = request.params as { requestedSchema: unknown; _meta?: unknown };
      asked.push({ requestedSchema: params.requestedSchema, meta: params._meta });
      return { action: 'accept', content: { name: 'Jane Smith' } };
    });
    const result = await client.callTool({ name: 'profile', arguments: {} });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.requestedSchema).toEqual(PROFILE_FORM);
    const expected = { name: 'Jane Smith', age: 30, status: 'active' };
    expect(result.structuredContent).toEqual(expected);
    const meta = asked[0]?.meta as { 'wardrik/park': { id: string } } | undefined;
    const parkId = meta?.['wardrik/park'].id ?? '';
    expect(await env.wardrik.getPark(parkId)).toMatchObject({
      kind: 'tool',
      status: 'answered',
      answeredBy: 'admin',
      decision: { type: 'answer', value: expected },
    });
  });

  it('a reply that does not fit the tool’s form is an MCP error naming the field; the park stays open', async () => {
    let asked = 0;
    const { client } = await connect(async () => {
      asked += 1;
      return { action: 'accept', content: { name: 'Jane', age: 'old', city: 'Oslo' } };
    });
    await expect(client.callTool({ name: 'profile', arguments: {} })).rejects.toThrow(
      /content\.city: not a field of this form \(it has name, age, status\).*content\.age/,
    );
    expect(asked).toBe(1);
    const parks = await env.wardrik.listParks({ status: 'open' });
    expect(parks.some((each) => each.kind === 'tool' && each.reason === 'Fill in your profile')).toBe(true);
  });

  it('a form MCP cannot show (nested) is not offered: the caller is asked for the answer as text', async () => {
    const asked: unknown[] = [];
    const { client } = await connect(async (request) => {
      asked.push((request.params as { requestedSchema: unknown }).requestedSchema);
      return { action: 'accept', content: { answer: 'Oslo' } };
    });
    const result = await client.callTool({ name: 'nested', arguments: {} });
    expect(asked).toEqual([
      {
        type: 'object',
        properties: { answer: expect.objectContaining({ type: 'string' }) },
        required: ['answer'],
      },
    ]);
    expect(result.content).toEqual([{ type: 'text', text: 'Oslo' }]);
  });

  it('a client that set the log level to debug is told the run’s steps; at info, it is not', async () => {
    const debug = await connect();
    await debug.client.setLoggingLevel('debug');
    await debug.client.callTool({ name: 'slow', arguments: {} });
    const lines = debug.logs.filter((line) => line.level === 'debug').map((line) => String(line.data));
    expect(lines).toEqual([
      expect.stringMatching(/^run run_\S+: step 1: the model calls slow$/),
      expect.stringMatching(/: calling slow$/),
      expect.stringMatching(/: call c1\.0 answered$/),
      expect.stringMatching(/: step 2: the model answered$/),
      expect.stringMatching(/: run completed$/),
    ]);

    const info = await connect();
    await info.client.setLoggingLevel('info');
    await info.client.callTool({ name: 'slow', arguments: {} });
    expect(info.logs).toEqual([]);
  });
});
