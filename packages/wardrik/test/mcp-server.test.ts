/*
 * Agents served over MCP at /mcp, driven by the MCP SDK's own Client over Streamable HTTP against
 * a real startServer: tools listed per principal, calls that are durable runs (output, labels and
 * cost in _meta), parks that reach the client as elicitation (accept / decline / cancel), the
 * same park answered in the console first, tasks, cancellation, progress and logging.
 */

import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../src/index.js';
import { mcpGatewayAgent } from '../src/mcp-server/gateway-agent.js';
import { askAboutPark } from '../src/mcp-server/park-elicitation.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { connectClient, type McpEnv, startMcpEnv, type TestClient, until } from './mcp-server-env.js';

const refunds: { order_id: string; amount: number }[] = [];
const orderStatus = tool({
  name: 'order_status',
  description: 'Say where an order is.',
  schema: { order_id: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});
const refund = tool({
  name: 'refund',
  description: 'Refund an order (a person approves every refund).',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  annotations: { destructive: true },
  run: ({ order_id, amount }) => {
    refunds.push({ order_id: order_id as string, amount: amount as number });
    return { refunded: amount, order_id };
  },
});
const support = defineAgent({
  name: 'support',
  description: 'Helps with orders.',
  instructions: '',
  tools: [orderStatus, refund],
  model: new ScriptedModel((request) => {
    if (request.step === 1) return { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }] };
    if (request.step === 2) {
      const order =
        request.messages
          .find((message) => message.role === 'user')
          ?.content.split(' ')
          .at(-1) ?? 'A1';
      return { toolCalls: [{ name: 'refund', arguments: { order_id: order, amount: 50 } }] };
    }
    return { text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` };
  }),
});
const greeter = defineAgent({
  name: 'greeter',
  instructions: '',
  model: new ScriptedModel(() => ({ text: 'hello', measures: { usd: 0.002 } })),
});
const waitForCancel = tool({
  name: 'wait_for_cancel',
  description: 'Waits until the run is cancelled.',
  annotations: { readOnly: true },
  run: (_args, context) =>
    new Promise((resolve) => context.signal.addEventListener('abort', () => resolve('stopped'), { once: true })),
});
const slow = defineAgent({
  name: 'slow',
  instructions: '',
  tools: [waitForCancel],
  model: new ScriptedModel([{ toolCalls: [{ name: 'wait_for_cancel', arguments: {} }] }, { text: 'woke' }]),
});
const quoter = defineAgent({
  name: 'quoter',
  instructions: '',
  tools: [
    tool({
      name: 'quote',
      description: 'A price only a person knows.',
      run: () => park('what does it cost?'),
    }),
  ],
  model: new ScriptedModel([
    { toolCalls: [{ name: 'quote', arguments: {} }] },
    (request) => ({ text: `it costs ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
  ]),
});

let env: McpEnv;
let mcpUrl: string;
const clients: TestClient[] = [];

async function connect(token: string | undefined, options: Parameters<typeof connectClient>[2] = {}) {
  const connected = await connectClient(mcpUrl, token, options);
  clients.push(connected);
  return connected;
}

/** The HTTP API, as the console and CLI use it. */
async function api(path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${env.server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, string> };
}

async function openParks(runId?: string) {
  return (await env.wardrik.listParks({ status: 'open', ...(runId ? { runId } : {}) })).filter(
    (each) => each.status === 'open',
  );
}

beforeAll(async () => {
  env = await startMcpEnv({
    agents: [support, greeter, slow, quoter, mcpGatewayAgent(support)],
    principals: [
      ['alice', 'user', ['*']],
      ['bob', 'user', ['*']],
      ['carol', 'user', ['greeter']],
      ['operator', 'operator', ['*']],
    ],
  });
  mcpUrl = `${env.server.url}/mcp`;
});
afterAll(async () => {
  for (const each of clients) await each.close().catch(() => {});
  await env?.close();
});

describe('tools', () => {
  it('lists each agent as a tool, and (gateway) the agent’s tools, to whoever may start their runs', async () => {
    const { client } = await connect(env.tokens.alice);
    const { tools } = await client.listTools();
    expect(tools.map((each) => each.name).sort()).toEqual([
      'greeter',
      'quoter',
      'slow',
      'support',
      'support__order_status',
      'support__refund',
    ]);
    const agent = tools.find((each) => each.name === 'support');
    expect(agent).toMatchObject({
      description: 'Helps with orders.',
      inputSchema: { type: 'object', required: ['input'], properties: { input: { type: 'string' } } },
      execution: { taskSupport: 'optional' },
    });
    expect(tools.find((each) => each.name === 'support__order_status')).toMatchObject({
      annotations: { readOnlyHint: true },
      inputSchema: { properties: { order_id: { type: 'string' } } },
      _meta: { 'wardrik/gateway': { agent: 'support.gateway', tool: 'order_status' } },
    });
    // A principal sees only the agents its scope covers (the gateway is an agent of its own).
    const carol = await connect(env.tokens.carol);
    expect((await carol.client.listTools()).tools.map((each) => each.name)).toEqual(['greeter']);
  });

  it('a call is a durable run of the agent for the caller, answered with its output, labels and cost in _meta, with progress', async () => {
    const { client } = await connect(env.tokens.alice);
    const progress: string[] = [];
    const result = await client.callTool({ name: 'greeter', arguments: { input: 'hi' } }, undefined, {
      onprogress: (each) => progress.push(each.message ?? ''),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(result.isError).toBeUndefined();
    const meta = result._meta as Record<string, { runId: string }>;
    expect(meta).toMatchObject({
      'wardrik/run': { agent: 'greeter', status: 'completed' },
      'wardrik/labels': [],
      'wardrik/measures': { usd: 0.002 },
    });
    const run = await env.wardrik.getRunSummary(meta['wardrik/run']?.runId ?? '');
    expect(run).toMatchObject({ agent: 'greeter', principal: env.ids.alice, status: 'completed', output: 'hello' });
    expect(progress).toContain('step 1: the model answered');
    expect(progress.at(-1)).toBe('run completed');
  });

  it('a session argument continues a conversation (started for the caller if new)', async () => {
    const { client } = await connect(env.tokens.alice);
    const first = await client.callTool({ name: 'greeter', arguments: { input: 'hi', session: 'chat-1' } });
    const second = await client.callTool({ name: 'greeter', arguments: { input: 'again', session: 'chat-1' } });
    const session = await env.wardrik.getSession('chat-1');
    expect(session).toMatchObject({ agent: 'greeter', principal: env.ids.alice, runs: 2 });
    expect(second._meta).toMatchObject({ 'wardrik/run': { session: 'chat-1' } });
    expect(first._meta).toMatchObject({ 'wardrik/run': { session: 'chat-1' } });
    // Another principal can't take it over: the id is taken, and the session is not theirs to see.
    const bob = await connect(env.tokens.bob);
    const refused = await bob.client.callTool({ name: 'greeter', arguments: { input: 'mine?', session: 'chat-1' } });
    expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no session "chat-1"' }] });
  });

  it('a gateway tool is a run of NAME.gateway whose one step calls it: journaled, and answered with the tool’s own result', async () => {
    const { client } = await connect(env.tokens.alice);
    const result = await client.callTool({ name: 'support__order_status', arguments: { order_id: 'Z9' } });
    expect(result.structuredContent).toEqual({ order_id: 'Z9', status: 'shipped' });
    const runId = (result._meta as { 'wardrik/run': { runId: string } })['wardrik/run'].runId;
    const run = await env.wardrik.getRun(runId);
    expect(run).toMatchObject({ agent: 'support.gateway', principal: env.ids.alice, status: 'completed' });
    expect(run.journal.map((each) => each.record.type)).toEqual([
      'run-started',
      'model-step',
      'call-started',
      'call-answered',
      'model-step',
      'run-ended',
    ]);
  });
});

describe('parks reach the caller', () => {
  it('a park asks the client (elicitation); accept approves it, bound to the call, and the run completes', async () => {
    const asked: { message: string; schema: unknown; meta: unknown }[] = [];
    const { client } = await connect(env.tokens.admin, {
      elicit: async (request) => {
        const params = request.params as { message: string; requestedSchema: unknown; _meta?: unknown };
        asked.push({ message: params.message, schema: params.requestedSchema, meta: params._meta });
        return { action: 'accept', content: { order_id: 'A1', amount: 50 } };
      },
    });
    const before = refunds.length;
    const result = await client.callTool({ name: 'support', arguments: { input: 'refund A1' } });
    expect(result.content).toEqual([{ type: 'text', text: 'done {"refunded":50,"order_id":"A1"}' }]);
    expect(refunds.slice(before)).toEqual([{ order_id: 'A1', amount: 50 }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toContain('Why: refund is destructive');
    expect(asked[0]?.message).toContain('"order_id": "A1"');
    expect(asked[0]?.schema).toMatchObject({
      type: 'object',
      properties: { order_id: { type: 'string', default: 'A1' }, amount: { type: 'number', default: 50 } },
    });
    const { id, callHash } = (asked[0]?.meta as { 'wardrik/park': { id: string; callHash: string } } | undefined)?.[
      'wardrik/park'
    ] ?? { id: '', callHash: '' };
    const answered = await env.wardrik.getPark(id);
    expect(answered).toMatchObject({
      status: 'answered',
      answeredBy: 'admin',
      decision: { type: 'approve' },
      callHash,
    });
    expect(result._meta).toMatchObject({
      'wardrik/run': { status: 'completed', parks: [{ park: id, outcome: 'answered', detail: 'accept: approve' }] },
    });
    // The console (or CLI) answering the same park now is refused: the first answer won.
    const late = await api(`/v1/parks/${id}/answer`, env.tokens.operator, { decision: { type: 'deny' }, callHash });
    expect(late.status).toBe(409);
    expect(late.json.detail).toContain('takes one answer only');
  });

  it('accept with changed fields edits the call; decline denies it; cancel stops the run', async () => {
    let reply: 'edit' | 'decline' | 'cancel' = 'edit';
    const { client } = await connect(env.tokens.admin, {
      elicit: async () => (reply === 'edit' ? { action: 'accept', content: { amount: 20 } } : { action: reply }),
    });
    const before = refunds.length;
    const edited = await client.callTool({ name: 'support', arguments: { input: 'refund E1' } });
    expect(refunds.slice(before)).toEqual([{ order_id: 'E1', amount: 20 }]);
    expect(edited._meta).toMatchObject({ 'wardrik/run': { status: 'completed', parks: [{ detail: 'accept: edit' }] } });

    reply = 'decline';
    const declined = await client.callTool({ name: 'support', arguments: { input: 'refund D1' } });
    expect(refunds.slice(before)).toHaveLength(1);
    expect(declined.content).toEqual([{ type: 'text', text: expect.stringContaining('declined by admin over MCP') }]);
    expect(declined._meta).toMatchObject({
      'wardrik/run': { status: 'completed', parks: [{ detail: 'decline: deny' }] },
    });

    reply = 'cancel';
    const cancelled = await client.callTool({ name: 'support', arguments: { input: 'refund C1' } });
    expect(refunds.slice(before)).toHaveLength(1);
    expect(cancelled).toMatchObject({ isError: true, _meta: { 'wardrik/run': { status: 'cancelled' } } });
    expect((cancelled.content as { text: string }[])[0]?.text).toContain('stopped by admin over MCP');
  });

  it('a tool park takes the client’s answer in the call’s place', async () => {
    const { client } = await connect(env.tokens.admin, {
      elicit: async (request) => {
        expect(request.params).toMatchObject({ requestedSchema: { required: ['answer'] } });
        return { action: 'accept', content: { answer: '12 EUR' } };
      },
    });
    const result = await client.callTool({ name: 'quoter', arguments: { input: 'price?' } });
    expect(result.content).toEqual([{ type: 'text', text: 'it costs "12 EUR"' }]);
  });

  it('the same park answered in the console first: the question is withdrawn, saying who answered, and the call ends by that answer', async () => {
    let asked!: (parkId: string) => void;
    const question = new Promise<string>((resolve) => {
      asked = resolve;
    });
    let withdrawn: unknown;
    const { client } = await connect(env.tokens.admin, {
      elicit: async (request, extra) => {
        asked((request.params._meta as { 'wardrik/park': { id: string } })['wardrik/park'].id);
        await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
        withdrawn = extra.signal.reason;
        return { action: 'accept', content: {} }; // too late: never sent
      },
    });
    const before = refunds.length;
    const call = client.callTool({ name: 'support', arguments: { input: 'refund W1' } });
    const parkId = await question;
    const parked = await api(`/v1/parks/${parkId}`, env.tokens.operator);
    const answered = await api(`/v1/parks/${parkId}/answer`, env.tokens.operator, {
      decision: { type: 'deny', reason: 'not today' },
      callHash: parked.json.callHash,
    });
    expect(answered.status).toBe(200);
    const result = await call;
    await until(() => withdrawn !== undefined);
    expect(String(withdrawn)).toContain(`park ${parkId} was answered by operator (deny) before you answered`);
    expect(refunds.slice(before)).toEqual([]);
    expect(result._meta).toMatchObject({
      'wardrik/run': { status: 'completed', parks: [{ park: parkId, outcome: 'answered-elsewhere' }] },
    });
    expect(await env.wardrik.getPark(parkId)).toMatchObject({ answeredBy: 'operator', decision: { type: 'deny' } });
  });

  it('a reply that comes after another answer is refused, and the client is told so', async () => {
    // The race the withdrawal can't close: the client replies while the console's answer is being written.
    const { runId } = await env.wardrik.start('support', 'refund R1', { principal: env.ids.admin });
    await until(async () => (await openParks(runId)).length === 1);
    const [parked] = await openParks(runId);
    if (!parked) throw new Error('no park');
    const told: string[] = [];
    const principal = await env.auth.findPrincipalByName('admin');
    if (!principal) throw new Error('no admin');
    const note = await askAboutPark(
      {
        wardrik: env.wardrik,
        principal,
        log: (_level, message) => told.push(message),
        elicit: async () => {
          await env.wardrik.answerPark(parked.id, { type: 'deny' }, { callHash: parked.callHash, by: 'operator' });
          return { action: 'accept', content: {} };
        },
      },
      parked,
      'support',
      new AbortController().signal,
    );
    expect(note).toMatchObject({
      outcome: 'refused',
      detail: expect.stringContaining('was answered by operator (deny) first'),
    });
    expect(told).toEqual([expect.stringContaining(`your answer to park ${parked.id} was refused`)]);
    expect(await env.wardrik.getPark(parked.id)).toMatchObject({ answeredBy: 'operator', decision: { type: 'deny' } });
    await env.wardrik.wait(runId);
  });

  it('a client without elicitation sees the run wait (a task, working) while people answer the park in the console', async () => {
    const { client, logs } = await connect(env.tokens.admin);
    const stream = client.experimental.tasks.callToolStream(
      { name: 'support', arguments: { input: 'refund T1' } },
      undefined,
      {
        task: {},
      },
    );
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated' });
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    expect((await env.wardrik.getRunSummary(taskId)).agent).toBe('support');
    await until(async () => (await openParks(taskId)).length === 1);
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({
      taskId,
      status: 'working',
      statusMessage: expect.stringContaining('waiting for a person'),
    });
    const [parked] = await openParks(taskId);
    await api(`/v1/parks/${parked?.id}/answer`, env.tokens.operator, {
      decision: { type: 'approve' },
      callHash: parked?.callHash,
    });
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'done {"refunded":50,"order_id":"T1"}' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
    await stream.return(undefined);
    expect(logs).toEqual([]);
  });
});

describe('tasks', () => {
  it('a task is the run: input_required while the client is to answer, which tasks/result asks; then its result', async () => {
    const metas: unknown[] = [];
    const { client } = await connect(env.tokens.admin, {
      elicit: async (request) => {
        metas.push(request.params._meta);
        return { action: 'accept', content: {} };
      },
    });
    const messages: { type: string; task?: { status: string } }[] = [];
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'support', arguments: { input: 'refund K1' } },
      undefined,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message as (typeof messages)[number]);
    }
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { ttl: null } });
    const taskId = (messages[0] as unknown as { task: { taskId: string } }).task.taskId;
    expect(metas).toEqual([expect.objectContaining({ 'io.modelcontextprotocol/related-task': { taskId } })]);
    expect(messages.some((message) => message.task?.status === 'input_required')).toBe(true);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'done {"refunded":50,"order_id":"K1"}' }] },
    });
  });

  it('a task’s run reports progress under the progress token of the call that started it', async () => {
    const { client } = await connect(env.tokens.alice);
    const progress: string[] = [];
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { input: 'wait' } } },
      CreateTaskResultSchema,
      { task: {}, onprogress: (each) => progress.push(each.message ?? '') },
    );
    const taskId = created.task.taskId;
    await until(async () =>
      (await env.wardrik.getRun(taskId)).journal.some((each) => each.record.type === 'call-started'),
    );
    await client.experimental.tasks.cancelTask(taskId);
    await until(() => progress.includes('run cancelled'));
  });

  it('tasks/cancel cancels the run; a task that ended can’t be cancelled', async () => {
    const { client } = await connect(env.tokens.alice);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { input: 'wait' }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await until(async () =>
      (await env.wardrik.getRun(taskId)).journal.some((each) => each.record.type === 'call-started'),
    );
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({
      taskId,
      status: 'cancelled',
      statusMessage: expect.stringContaining('tasks/cancel'),
    });
    expect((await env.wardrik.getRunSummary(taskId)).status).toBe('cancelled');
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal status/);
  });
});

describe('cancelling and logging', () => {
  it('notifications/cancelled for a call cancels its run', async () => {
    const { client } = await connect(env.tokens.alice);
    const abort = new AbortController();
    const progress: string[] = [];
    const call = client.callTool({ name: 'slow', arguments: { input: 'wait' } }, undefined, {
      signal: abort.signal,
      onprogress: (each) => progress.push(each.message ?? ''),
    });
    await until(() => progress.includes('calling wait_for_cancel'));
    const [running] = await env.wardrik.listRuns({ agent: 'slow', status: 'running' });
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    if (!running) throw new Error('no run');
    await until(async () => (await env.wardrik.getRunSummary(running.id)).status === 'cancelled');
    expect((await env.wardrik.getRunSummary(running.id)).error).toBe('cancelled by alice over MCP: changed my mind');
  });

  it('log lines follow logging/setLevel', async () => {
    const quiet = await connect(env.tokens.alice);
    await quiet.client.setLoggingLevel('warning');
    const chatty = await connect(env.tokens.alice);
    const calls = [quiet, chatty].map((each) =>
      each.client.callTool({ name: 'support', arguments: { input: 'refund L1' } }),
    );
    // Alice may not answer parks: the client is told the run waits for people, who answer it.
    await until(async () => (await openParks()).filter((each) => each.kind === 'approval').length >= 2);
    await until(() => chatty.logs.length > 0);
    for (const parked of await openParks()) {
      await api(`/v1/parks/${parked.id}/answer`, env.tokens.operator, {
        decision: { type: 'approve' },
        callHash: parked.callHash,
      });
    }
    await Promise.all(calls);
    expect(chatty.logs).toEqual([{ level: 'info', data: expect.stringContaining('waits for a person') }]);
    expect(quiet.logs).toEqual([]);
  });
});

describe('errors the client sees', () => {
  it('a tool error from the run comes back as isError, not a protocol error', async () => {
    const { client } = await connect(env.tokens.alice);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toBeInstanceOf(McpError);
  });
});
