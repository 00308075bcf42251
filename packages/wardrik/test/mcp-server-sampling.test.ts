/*
 * A gateway tool that samples (`context.sample`) over MCP: the MCP SDK's own Client over Streamable
 * HTTP against a real startServer is asked `sampling/createMessage` on the call's stream, and its
 * model's text is what the tool gets, labelled `outside`. A client that did not declare sampling,
 * one that refuses, and a gateway run nobody waits on over MCP are refused, saying so.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
} from '@modelcontextprotocol/sdk/types.js';
import { tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../src/index.js';
import { ClientSamplers } from '../src/mcp-server/client-sampling.js';
import { gatewayInput, mcpGatewayAgent } from '../src/mcp-server/gateway-agent.js';
import { ScriptedModel } from '../src/testing/index.js';
import { type McpEnv, startMcpEnv } from './mcp-server-env.js';

const summarize = tool({
  name: 'summarize',
  description: 'Summarizes a text with the caller’s model.',
  schema: { text: { type: 'string', required: true } },
  run: async ({ text }, context) => {
    const sampled = await context.sample({
      messages: [{ role: 'user', text: `Summarize: ${text as string}` }],
      systemPrompt: 'Be brief.',
      maxTokens: 50,
    });
    return { summary: sampled.text, model: sampled.model, stopReason: sampled.stopReason };
  },
});
const writer = defineAgent({
  name: 'writer',
  instructions: '',
  tools: [summarize],
  model: new ScriptedModel(() => ({ text: 'the writer’s own model is never asked here' })),
});

let env: McpEnv;
const clients: { close(): Promise<void> }[] = [];

/** The SDK's Client over Streamable HTTP; declares sampling, answered by `sample`, when given. */
async function connect(sample?: (request: CreateMessageRequest) => Promise<CreateMessageResult>) {
  const client = new Client(
    { name: 'wardrik-sampling-test', version: '1.0.0' },
    { capabilities: sample ? { sampling: {} } : {} },
  );
  if (sample) client.setRequestHandler(CreateMessageRequestSchema, (request) => sample(request));
  const transport = new StreamableHTTPClientTransport(new URL(`${env.server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${env.tokens.alice}` } },
  });
  await client.connect(transport);
  clients.push({
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  });
  return client;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

beforeAll(async () => {
  env = await startMcpEnv({
    agents: [writer, mcpGatewayAgent(writer)],
    mcp: { agents: [], gateway: ['writer'] },
    principals: [['alice', 'user', ['*']]],
  });
});
afterAll(async () => {
  for (const each of clients) await each.close().catch(() => {});
  await env?.close();
});

describe('a gateway tool that samples', () => {
  it('asks the calling MCP client, and gets its model’s text labelled outside', async () => {
    const asked: CreateMessageRequest['params'][] = [];
    const client = await connect(async (request) => {
      asked.push(request.params);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Short.' },
        model: 'client-model-1',
        stopReason: 'maxTokens',
      };
    });
    const result = (await client.callTool({
      name: 'writer__summarize',
      arguments: { text: 'A long story.' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ summary: 'Short.', model: 'client-model-1', stopReason: 'maxTokens' });
    expect(asked).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: A long story.' } }],
        systemPrompt: 'Be brief.',
        maxTokens: 50,
      },
    ]);
    // The client's model wrote the text: the answer, and the run from then on, carry `outside`.
    expect(result._meta?.['wardrik/labels']).toEqual(['outside']);
    const meta = result._meta as { 'wardrik/run': { runId: string } };
    const { runId } = meta['wardrik/run'];
    const { journal } = await env.wardrik.getRun(runId);
    const answered = journal.find((stored) => stored.record.type === 'call-answered')?.record;
    expect(answered).toMatchObject({ type: 'call-answered', answer: { type: 'ok', labels: ['outside'] } });
  });

  it('asks each call’s own client when two call at once', async () => {
    const answering = (name: string) => async (): Promise<CreateMessageResult> => {
      await new Promise((resolve) => setImmediate(resolve));
      return { role: 'assistant', content: { type: 'text', text: `from ${name}` }, model: name };
    };
    const [first, second] = await Promise.all([connect(answering('first')), connect(answering('second'))]);
    const results = (await Promise.all(
      [first, second].map((client) => client.callTool({ name: 'writer__summarize', arguments: { text: 'x' } })),
    )) as CallToolResult[];
    expect(results.map((result) => result.structuredContent)).toEqual([
      { summary: 'from first', model: 'first', stopReason: 'endTurn' },
      { summary: 'from second', model: 'second', stopReason: 'endTurn' },
    ]);
  });

  it('a client that did not declare sampling: the sample is refused, and the tool’s error reaches the client', async () => {
    const client = await connect();
    const result = (await client.callTool({
      name: 'writer__summarize',
      arguments: { text: 'A long story.' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      'sample: the MCP client that called writer__summarize did not declare the sampling capability',
    );
  });

  it('a client that refuses to sample: the tool’s error names the refusal', async () => {
    const client = await connect(async () => {
      throw new Error('the user said no');
    });
    const result = (await client.callTool({ name: 'writer__summarize', arguments: { text: 'x' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('sample: the MCP client that called writer__summarize did not sample');
    expect(textOf(result)).toContain('the user said no');
  });

  it('a gateway run no MCP client waits on: the sample is refused, saying why', async () => {
    const result = await env.wardrik.run(
      'writer.gateway',
      gatewayInput({ tool: 'summarize', arguments: { text: 'x' } }),
    );
    expect(result.status).toBe('completed');
    const { journal } = await env.wardrik.getRun(result.runId);
    const answered = journal.find((stored) => stored.record.type === 'call-answered')?.record;
    expect(answered).toMatchObject({ type: 'call-answered', answer: { type: 'error' } });
    expect(JSON.stringify(answered)).toContain('is a gateway call with no MCP client waiting on it');
  });
});

describe('ClientSamplers', () => {
  const request = { messages: [{ role: 'user' as const, text: 'hi' }], maxTokens: 5 };
  const signal = new AbortController().signal;

  it('a call that samples before its start named the run waits for it, then asks that run’s client', async () => {
    const samplers = new ClientSamplers();
    const starting = samplers.starting();
    const asked = samplers.sample({ runId: 'run_a', request, signal });
    const detach = starting.attach('run_a', async () => ({
      result: { text: 'answered', model: 'm', stopReason: 'endTurn' },
      measures: {},
    }));
    await expect(asked).resolves.toMatchObject({ result: { text: 'answered' } });
    detach();
    await expect(samplers.sample({ runId: 'run_a', request, signal })).rejects.toThrow(
      'run run_a is a gateway call with no MCP client waiting on it',
    );
  });

  it('a start that started nothing, or named another run, leaves the sample refused', async () => {
    const samplers = new ClientSamplers();
    const abandoned = samplers.starting();
    const other = samplers.starting();
    const asked = samplers.sample({ runId: 'run_b', request, signal });
    abandoned.abandon();
    other.attach('run_c', async () => {
      throw new Error('run_c’s client must not be asked for run_b');
    });
    await expect(asked).rejects.toThrow('run run_b is a gateway call with no MCP client waiting on it');
  });
});
