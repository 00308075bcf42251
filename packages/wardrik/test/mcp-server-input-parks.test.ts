/*
 * A call's question (an `input` park: context.requestInput) and a sign-in (an `authorize` park)
 * of a run started over /mcp reach the MCP client that called the agent as elicitation, while the
 * same park sits in the console and CLI; the first answer wins. Real parts: the MCP SDK's Client
 * over Streamable HTTP against a real startServer, real OAuth and MCP servers for the sign-in.
 */

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type InputQuestion, type InputReply, ok, tool } from '@wardrik/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, type ParkRow, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import { tempDbPath } from './helpers.js';
import { type OAuthTestServers, startOAuthTestServers } from './mcp/oauth-test-servers.js';
import { type McpEnv, startMcpEnv, until } from './mcp-server-env.js';

const accountSchema = {
  type: 'object',
  properties: {
    account: { type: 'string', description: 'IBAN' },
    currency: { type: 'string', default: 'EUR' },
  },
  required: ['account'],
} as const;

/** What each tool call received as its reply, by the question's message. */
const replies: { message: string; reply: InputReply }[] = [];

/** An agent whose one tool asks `question` while it runs, then the model says what the tool answered. */
function askingAgent(name: string, question: InputQuestion) {
  return defineAgent({
    name,
    instructions: '',
    tools: [
      tool({
        name: 'refund',
        description: 'Refunds to an account a person chooses.',
        run: async (_args, context) => {
          const reply = await context.requestInput(question);
          replies.push({ message: question.message, reply });
          return ok(reply);
        },
      }),
    ],
    model: new ScriptedModel([
      { toolCalls: [{ name: 'refund', arguments: {} }] },
      (request) => ({ text: `got ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ]),
  });
}

const formAgent = askingAgent('clerk', {
  mode: 'form',
  message: 'Which account gets the refund?',
  schema: accountSchema,
});
const urlAgent = askingAgent('payer', {
  mode: 'url',
  message: 'Open the page to pay.',
  url: 'https://pay.example/checkout/7',
  elicitationId: 'pay-7',
});
/** Stops the withdrawing agent's call from waiting for its question (the test aborts it). */
let stopWaiting = new AbortController();
const withdrawingAgent = defineAgent({
  name: 'impatient',
  instructions: '',
  tools: [
    tool({
      name: 'refund',
      description: 'Asks, then stops waiting.',
      run: async (_args, context) => {
        try {
          await context.requestInput(
            { mode: 'form', message: 'Quick: which account?', schema: accountSchema },
            { signal: stopWaiting.signal },
          );
          return ok('answered');
        } catch {
          return ok('stopped waiting');
        }
      },
    }),
  ],
  model: new ScriptedModel([
    { toolCalls: [{ name: 'refund', arguments: {} }] },
    (request) => ({ text: `got ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
  ]),
});
const nestedAgent = askingAgent('shipper', {
  mode: 'form',
  message: 'Where to?',
  schema: { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } },
});

type Elicit = (request: ElicitRequest, extra: { signal: AbortSignal }) => Promise<ElicitResult>;

interface Connected {
  readonly client: Client;
  readonly logs: string[];
  readonly completed: string[];
  close(): Promise<void>;
}

/** The SDK's Client over Streamable HTTP, declaring the elicitation modes given (none: no elicitation). */
async function connectWith(
  url: string,
  token: string,
  options: { readonly modes?: readonly ('form' | 'url')[]; readonly elicit?: Elicit } = {},
): Promise<Connected> {
  const modes = options.modes ?? [];
  const elicitation = Object.fromEntries(modes.map((mode) => [mode, {}]));
  const client = new Client(
    { name: 'wardrik-input-test', version: '1.0.0' },
    { capabilities: modes.length ? { elicitation } : {} },
  );
  if (options.elicit) client.setRequestHandler(ElicitRequestSchema, options.elicit);
  const logs: string[] = [];
  const completed: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(String(notification.params.data));
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    logs,
    completed,
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

function parkOf(request: ElicitRequest): { id: string; callHash: string; kind: string } {
  return (request.params._meta as { 'wardrik/park': { id: string; callHash: string; kind: string } })['wardrik/park'];
}

function replyTo(message: string): InputReply | undefined {
  return replies.filter((each) => each.message === message).at(-1)?.reply;
}

describe('a call’s question reaches the MCP client that called the agent', () => {
  let env: McpEnv;
  let mcpUrl: string;
  const clients: Connected[] = [];
  const connect = async (...args: Parameters<typeof connectWith> extends [string, ...infer Rest] ? Rest : never) => {
    const connected = await connectWith(mcpUrl, ...args);
    clients.push(connected);
    return connected;
  };
  /** The input park a call of `agent`'s run opens (one no earlier test opened). */
  const openQuestion = async (agent: string): Promise<ParkRow> => {
    let found: ParkRow | undefined;
    await until(async () => {
      for (const park of await env.wardrik.listParks({ status: 'open', kind: 'input' })) {
        if (park.status !== 'open' || answered.has(park.id)) continue;
        if ((await env.wardrik.getRunSummary(park.runId)).agent === agent) found = park;
      }
      return found !== undefined;
    });
    answered.add(found!.id);
    return found!;
  };
  const answered = new Set<string>();

  beforeAll(async () => {
    env = await startMcpEnv({
      agents: [formAgent, urlAgent, nestedAgent, withdrawingAgent],
      principals: [['operator', 'operator', ['*']]],
    });
    mcpUrl = `${env.server.url}/mcp`;
  });
  afterAll(async () => {
    for (const each of clients) await each.close().catch(() => {});
    await env?.close();
  });

  it('asks the question’s own message and schema; accept answers it, defaults filled in, and the call’s result comes back', async () => {
    const asked: ElicitRequest['params'][] = [];
    const { client } = await connect(env.tokens.admin!, {
      modes: ['form'],
      elicit: async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { account: 'NL01' } };
      },
    });
    const result = await client.callTool({ name: 'clerk', arguments: { input: 'refund' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'form', message: 'Which account gets the refund?' });
    expect((asked[0] as { requestedSchema: unknown }).requestedSchema).toEqual(accountSchema);
    expect(replyTo('Which account gets the refund?')).toEqual({
      action: 'accept',
      content: { account: 'NL01', currency: 'EUR' },
    });
    expect(result.content).toEqual([
      { type: 'text', text: 'got {"action":"accept","content":{"account":"NL01","currency":"EUR"}}' },
    ]);
    const { id } = parkOf({ method: 'elicitation/create', params: asked[0]! } as ElicitRequest);
    expect(result._meta).toMatchObject({
      'wardrik/run': {
        status: 'completed',
        parks: [{ park: id, kind: 'input', outcome: 'answered', detail: 'accept: answer' }],
      },
    });
    expect(await env.wardrik.getPark(id)).toMatchObject({
      status: 'answered',
      answeredBy: 'admin',
      decision: { type: 'answer', value: { account: 'NL01', currency: 'EUR' } },
    });
  });

  it('answered in the console first: the client’s question is withdrawn saying so, and _meta says answered-elsewhere', async () => {
    let withdrawn: unknown;
    const { client } = await connect(env.tokens.admin!, {
      modes: ['form'],
      elicit: async (request, extra) => {
        const { id, callHash } = parkOf(request);
        // A person answers in the console while the client's person still looks at the question.
        await env.wardrik.answerPark(
          id,
          { type: 'answer', value: { account: 'CONSOLE' } },
          { callHash, by: 'operator' },
        );
        await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
        withdrawn = extra.signal.reason;
        return { action: 'accept', content: { account: 'TOO-LATE' } }; // never sent: withdrawn
      },
    });
    const result = await client.callTool({ name: 'clerk', arguments: { input: 'refund' } });
    expect(String(withdrawn)).toMatch(
      /^park park_\S+ was answered by operator \(answer\) before you answered; your answer would not count$/,
    );
    expect(replyTo('Which account gets the refund?')).toEqual({
      action: 'accept',
      content: { account: 'CONSOLE', currency: 'EUR' },
    });
    expect(result._meta).toMatchObject({
      'wardrik/run': {
        status: 'completed',
        parks: [{ kind: 'input', outcome: 'answered-elsewhere', detail: expect.stringContaining('by operator') }],
      },
    });
  });

  it('a question withdrawn in the run (its call stopped waiting) is withdrawn from the client with its reason', async () => {
    stopWaiting = new AbortController();
    let withdrawn: unknown;
    const { client } = await connect(env.tokens.admin!, {
      modes: ['form'],
      elicit: async (_request, extra) => {
        stopWaiting.abort('no time left');
        await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
        withdrawn = extra.signal.reason;
        return { action: 'accept', content: { account: 'TOO-LATE' } }; // never sent: withdrawn
      },
    });
    const result = await client.callTool({ name: 'impatient', arguments: { input: 'refund' } });
    expect(result.content).toEqual([{ type: 'text', text: 'got "stopped waiting"' }]);
    expect(String(withdrawn)).toMatch(/^park park_\S+ was withdrawn: the call stopped waiting \(no time left\)$/);
    expect(result._meta).toMatchObject({
      'wardrik/run': {
        status: 'completed',
        parks: [{ kind: 'input', outcome: 'answered-elsewhere', detail: String(withdrawn) }],
      },
    });
  });

  it('decline gives the call decline; cancel gives it cancel (the run goes on)', async () => {
    let action: 'decline' | 'cancel' = 'decline';
    const { client } = await connect(env.tokens.admin!, { modes: ['form'], elicit: async () => ({ action }) });
    const declined = await client.callTool({ name: 'clerk', arguments: { input: 'refund' } });
    expect(replyTo('Which account gets the refund?')).toEqual({ action: 'decline' });
    expect(declined._meta).toMatchObject({
      'wardrik/run': { status: 'completed', parks: [{ outcome: 'answered', detail: 'decline: deny' }] },
    });
    action = 'cancel';
    const cancelled = await client.callTool({ name: 'clerk', arguments: { input: 'refund' } });
    expect(replyTo('Which account gets the refund?')).toEqual({ action: 'cancel' });
    expect(cancelled).toMatchObject({
      content: [{ type: 'text', text: 'got {"action":"cancel"}' }],
      _meta: { 'wardrik/run': { status: 'completed', parks: [{ outcome: 'answered', detail: 'cancel: stop' }] } },
    });
  });

  it('content that does not fit the schema: a clear error naming the field, and the question stays open', async () => {
    const { client } = await connect(env.tokens.admin!, {
      modes: ['form'],
      elicit: async () => ({ action: 'accept', content: { currency: 'USD' } }),
    });
    const call = client.callTool({ name: 'clerk', arguments: { input: 'refund' } });
    await expect(call).rejects.toThrow(McpError);
    const error = (await call.catch((thrown: unknown) => thrown)) as McpError;
    expect(error.message).toMatch(
      /your answer to park park_\S+ was refused: content\.account: is required \(expected string\)\./,
    );
    expect(error.message).toContain('the question is still open');
    const { parkId } = error.data as { parkId: string };
    const park = await env.wardrik.getPark(parkId);
    expect(park.status).toBe('open');
    // People answer it instead; the run goes on.
    await env.wardrik.answerPark(parkId, { type: 'answer', value: { account: 'BE02' } }, { callHash: park.callHash });
    await until(async () => (await env.wardrik.getRunSummary(park.runId)).status === 'completed');
  });

  it('URL mode: a client that declared it gets a URL-mode elicitation; accept reaches the call', async () => {
    const asked: ElicitRequest['params'][] = [];
    const { client } = await connect(env.tokens.admin!, {
      modes: ['form', 'url'],
      elicit: async (request) => {
        asked.push(request.params);
        return { action: 'accept' };
      },
    });
    const result = await client.callTool({ name: 'payer', arguments: { input: 'pay' } });
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'url',
        message: 'Open the page to pay.',
        url: 'https://pay.example/checkout/7',
        elicitationId: 'pay-7',
      }),
    ]);
    expect(replyTo('Open the page to pay.')).toEqual({ action: 'accept' });
    expect(result._meta).toMatchObject({
      'wardrik/run': { status: 'completed', parks: [{ outcome: 'answered', detail: 'accept: answer' }] },
    });
  });

  it('a client without URL mode, or a schema MCP forms can’t show: the question stays for people', async () => {
    let asked = 0;
    const { client, logs } = await connect(env.tokens.admin!, {
      modes: ['form'],
      elicit: async () => {
        asked += 1;
        return { action: 'decline' };
      },
    });
    const paying = client.callTool({ name: 'payer', arguments: { input: 'pay' } });
    const payPark = await openQuestion('payer');
    await env.wardrik.answerPark(payPark.id, { type: 'answer', value: {} }, { callHash: payPark.callHash, by: 'ops' });
    expect((await paying)._meta).toMatchObject({ 'wardrik/run': { status: 'completed' } });

    const shipping = client.callTool({ name: 'shipper', arguments: { input: 'ship' } });
    const shipPark = await openQuestion('shipper');
    await env.wardrik.answerPark(
      shipPark.id,
      { type: 'answer', value: { address: { city: 'Ghent' } } },
      { callHash: shipPark.callHash, by: 'ops' },
    );
    const shipped = await shipping;
    expect(shipped.content).toEqual([
      { type: 'text', text: 'got {"action":"accept","content":{"address":{"city":"Ghent"}}}' },
    ]);
    expect(asked).toBe(0);
    expect(logs).toContainEqual(expect.stringContaining(`a call asks a person (park ${shipPark.id}: Where to?)`));
  });

  it('a client without elicitation: the question waits for people, answered with answerPark', async () => {
    const { client, logs } = await connect(env.tokens.admin!);
    const calling = client.callTool({ name: 'clerk', arguments: { input: 'refund' } });
    const park = await openQuestion('clerk');
    expect(park).toMatchObject({ kind: 'input', details: { mode: 'form', schema: accountSchema } });
    expect((await env.wardrik.getRunSummary(park.runId)).status).toBe('running');
    await env.wardrik.answerPark(park.id, { type: 'answer', value: { account: 'FR03' } }, { callHash: park.callHash });
    const result = await calling;
    expect(result.content).toEqual([
      { type: 'text', text: 'got {"action":"accept","content":{"account":"FR03","currency":"EUR"}}' },
    ]);
    expect(logs).toContainEqual(expect.stringContaining(`a call asks a person (park ${park.id}`));
  });
});

/** A port nobody listens on now (the callback URL must be known before the server starts). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('a sign-in (authorize park) reaches an MCP client with URL mode', () => {
  const KEY = 'WARDRIK_SECRET_KEY';
  const previousKey = process.env[KEY];
  let servers: OAuthTestServers;
  let wardrik: Wardrik | undefined;
  let toolset: McpToolset | undefined;
  let server: RunningServer | undefined;
  let connected: Connected | undefined;

  afterEach(async () => {
    await connected?.close().catch(() => {});
    await server?.close();
    await wardrik?.close();
    await toolset?.close();
    await servers?.close();
    if (previousKey === undefined) delete process.env[KEY];
    else process.env[KEY] = previousKey;
  });

  /** A Wardrik serving /mcp whose agent's toolset needs a sign-in, its callback at wardrik serve; a client with URL mode. */
  async function setUp(elicit: Elicit): Promise<{ asked: ElicitRequest['params'][] }> {
    process.env[KEY] = randomBytes(32).toString('hex');
    servers = await startOAuthTestServers();
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
      instructions: 'Ask the remote server who you are.',
      toolsets: [toolset],
      model: new ScriptedModel([
        { toolCalls: [{ name: 'remote__whoami', arguments: {} }] },
        (request) => ({ text: `server says ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
      ]),
    });
    wardrik = await createWardrik({ store, agents: [agent] });
    const auth = new AuthService(wardrik.store);
    server = await startServer({ wardrik, auth, port });
    const admin = await auth.ensureAdmin();
    const asked: ElicitRequest['params'][] = [];
    connected = await connectWith(`${server.url}/mcp`, admin?.token ?? '', {
      modes: ['form', 'url'],
      elicit: async (request, extra) => {
        asked.push(request.params);
        return elicit(request, extra);
      },
    });
    return { asked };
  }

  /** Plays the person's browser: opens the sign-in page as `user` and follows the redirect to wardrik serve's callback. */
  async function signIn(url: string, user: string): Promise<Response> {
    const page = new URL(url);
    page.searchParams.set('user', user);
    return fetch(page);
  }

  it('accept: the person goes to sign in; the callback lets the run go on and the client is told the elicitation is complete', async () => {
    const { asked } = await setUp(async (request) => {
      // The client's person accepts and then signs in, after the reply (as a browser opened for them would).
      setTimeout(() => void signIn((request.params as { url: string }).url, 'grace').catch(() => {}), 0);
      return { action: 'accept' };
    });
    const result = await connected!.client.callTool({ name: 'assistant', arguments: { input: 'who am I?' } });
    expect(JSON.stringify(result.content)).toContain('grace');
    const [park] = await wardrik!.listParks({ kind: 'authorize' });
    expect(park).toMatchObject({ status: 'answered', answeredBy: 'oauth-callback', decision: { type: 'retry' } });
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'url',
        url: (park!.details as { url: string }).url,
        message: park!.reason,
        elicitationId: park!.id,
      }),
    ]);
    await until(() => connected!.completed.length > 0);
    expect(connected!.completed).toEqual([park!.id]);
    expect(result._meta).toMatchObject({
      'wardrik/run': {
        status: 'completed',
        parks: [
          {
            park: park!.id,
            kind: 'authorize',
            outcome: 'answered-elsewhere',
            detail: expect.stringContaining('accept: the person went to sign in; park'),
          },
        ],
      },
    });
  });

  it('decline: the run is not stopped; the sign-in is left to people, and their sign-in lets it go on', async () => {
    const { asked } = await setUp(async () => ({ action: 'decline' }));
    const calling = connected!.client.callTool({ name: 'assistant', arguments: { input: 'who am I?' } });
    await until(() => asked.length === 1);
    const [park] = await wardrik!.listParks({ status: 'open', kind: 'authorize' });
    await until(async () => connected!.logs.some((line) => line.includes(`park ${park!.id} waits for people`)));
    expect((await wardrik!.getPark(park!.id)).status).toBe('open');
    expect((await wardrik!.getRunSummary(park!.runId)).status).toBe('parked');
    expect((await signIn((park!.details as { url: string }).url, 'heidi')).status).toBe(200);
    const result = await calling;
    expect(JSON.stringify(result.content)).toContain('heidi');
    expect(asked).toHaveLength(1);
    expect(result._meta).toMatchObject({
      'wardrik/run': {
        status: 'completed',
        parks: [
          { park: park!.id, kind: 'authorize', outcome: 'left-to-people', detail: expect.stringMatching(/^decline/) },
        ],
      },
    });
  });
});
