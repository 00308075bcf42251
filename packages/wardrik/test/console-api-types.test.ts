/*
 * The console's types of the API are generated from the OpenAPI document the server serves
 * (packages/console/scripts/api-types.ts writes packages/console/src/api-types.ts), and the
 * document describes what the server answers: this test fails when either drifts. It regenerates
 * the types from the document of a real server and compares them with the file the console
 * compiles against; then it drives that server over HTTP (runs that park, are answered, carry and
 * release labels, a session with state, tokens, a worker) and checks every answer the console reads,
 * and every event of the two streams it follows, against the schema the document declares for it.
 * The schemas' objects are closed, so a field the server sends that the document does not name
 * fails here too.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Schema, Validator } from '@cfworker/json-schema';
import { ok, park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypesSource } from '../../console/scripts/api-types.js';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { ECHO_TOOL, RawWorker } from './fixtures/workers/raw-worker.js';
import { type SseEvent, SseReader } from './sse-client.js';

/** The routes the console reads the answers of (see packages/console/src), by method and documented path. */
const CONSOLE_ROUTES = [
  'get /v1/me',
  'get /v1/inbox',
  'get /v1/runs',
  'get /v1/runs/{id}',
  'post /v1/runs/{id}/cancel',
  'post /v1/runs/{id}/labels/release',
  'get /v1/parks',
  'get /v1/parks/{id}',
  'post /v1/parks/{id}/answer',
  'get /v1/workers',
  'get /v1/tokens',
  'post /v1/tokens',
  'get /v1/sessions',
  'post /v1/sessions',
  'get /v1/sessions/{id}',
  'post /v1/sessions/{id}/state',
];
/** The event streams it follows. */
const CONSOLE_STREAMS = ['/v1/runs/{id}/events', '/v1/inbox/events'];

const lookup = tool({
  name: 'lookup',
  description: 'Read a page from outside.',
  schema: { query: { type: 'string', required: true } },
  annotations: { readOnly: true, labels: ['outside'] },
  run: ({ query }) => ok({ page: `about ${query}` }, { measures: { usd: 0.001 } }),
});
const broken = tool({
  name: 'broken',
  description: 'Always fails.',
  annotations: { readOnly: true },
  run: () => {
    throw new Error('out of order');
  },
});
const refund = tool({
  name: 'refund',
  description: 'Refund; over 100 needs a manager.',
  schema: { amount: { type: 'number', required: true } },
  run: ({ amount }, context) =>
    (amount as number) > 100 && !context.approval
      ? park('needs a manager', { details: { amount } })
      : ok({ refunded: amount }),
});

/** Reads outside text (the run carries `outside`), fails a call, then refunds: a tool park, or an approval once `outside`. */
const support = defineAgent({
  name: 'support',
  instructions: '',
  tools: [lookup, broken, refund],
  model: new ScriptedModel(
    [
      (request) => {
        const input = request.messages.find((message) => message.role === 'user');
        const outside = input?.role === 'user' && input.content.includes('outside');
        return {
          text: 'looking',
          toolCalls: [...(outside ? [{ name: 'lookup', arguments: { query: 'refunds' } }] : []), { name: 'broken' }],
        };
      },
      { text: 'refunding', toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] },
      (request) => ({ text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ],
    { stream: true },
  ),
});
/** Stops waiting for the person when the test says (the question is then withdrawn while the run goes on). */
const stopAsking = new AbortController();
const ask = tool({
  name: 'ask',
  description: 'Asks a person which account to use.',
  annotations: { readOnly: true },
  run: async (_args, context) => {
    const reply = await context
      .requestInput(
        {
          mode: 'form',
          message: 'Which account?',
          schema: { type: 'object', properties: { account: { type: 'string' } } },
        },
        { signal: stopAsking.signal },
      )
      .catch(() => undefined);
    return ok({ asked: reply === undefined ? 'withdrawn' : reply.action });
  },
});
const asker = defineAgent({
  name: 'asker',
  instructions: '',
  tools: [ask],
  model: new ScriptedModel([{ toolCalls: [{ name: 'ask' }] }, { text: 'done' }]),
});
const chat = defineAgent({
  name: 'chat',
  instructions: '',
  model: new ScriptedModel(() => ({ text: 'hello' })),
});

let wardrik: Wardrik;
let server: RunningServer;
let auth: AuthService;
let admin = '';
let document: {
  readonly paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
  readonly components: Record<string, unknown>;
};
const worker: { raw?: RawWorker } = {};

beforeAll(async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'wardrik-console-types-')), 'wardrik.db');
  wardrik = await createWardrik({ store: sqliteStore(path), agents: [support, chat, asker] });
  auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0, heartbeatMs: 50 });
  admin = (await auth.ensureAdmin())?.token ?? '';
  document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as typeof document;
});
afterAll(async () => {
  worker.raw?.socket.terminate();
  await server?.close();
  await wardrik?.close();
});

/** Why `value` does not match `schema` (whose refs point into the document's components); empty when it does. */
function mismatches(schema: unknown, value: unknown): string[] {
  const root = { ...(schema as object), components: document.components } as Schema;
  const result = new Validator(root, '2020-12', false).validate(value);
  return result.valid ? [] : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

/** The schema the document declares for a route's JSON answer with `status`. */
function declared(route: string, status: number): unknown {
  const [method = '', path = ''] = route.split(' ');
  const content = document.paths[path]?.[method]?.responses[String(status)]?.content as
    | Record<string, { schema?: unknown }>
    | undefined;
  return content?.['application/json']?.schema;
}

/** The schemas the document declares for a stream's events, by event name. */
function declaredEvents(path: string): Record<string, unknown> {
  const content = document.paths[path]?.get?.responses['200']?.content as Record<string, Record<string, unknown>>;
  return (content?.['text/event-stream']?.['x-events'] ?? {}) as Record<string, unknown>;
}

const checked = new Set<string>();

/**
 * Calls `route` (`method /documented/path`) at `url` with the admin's token, expects `status`, and
 * checks the answer against the schema the document declares for it.
 */
async function call<T = Record<string, unknown>>(route: string, url: string, status: number, body?: unknown) {
  const [method = ''] = route.split(' ');
  const response = await fetch(`${server.url}${url}`, {
    method: method.toUpperCase(),
    headers: {
      authorization: `Bearer ${admin}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, `${route}: ${text}`).toBe(status);
  const json = JSON.parse(text) as T;
  const schema = declared(route, status);
  expect(schema, `${route} declares no schema for ${status}`).toBeDefined();
  expect(mismatches(schema, json), `${route} answered ${text}`).toEqual([]);
  checked.add(route);
  return json;
}

/** Checks each event's data against the schema the document declares for its name. */
function checkEvents(path: string, events: readonly SseEvent[]): void {
  const schemas = declaredEvents(path);
  for (const event of events) {
    expect(schemas[event.event], `${path} declares no event ${event.event}`).toBeDefined();
    expect(mismatches(schemas[event.event], JSON.parse(event.data)), `${event.event}: ${event.data}`).toEqual([]);
  }
  checked.add(path);
}

async function openStream(url: string): Promise<SseReader> {
  const response = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(response.status).toBe(200);
  return new SseReader(response);
}

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the console's API types", () => {
  it('are what openapi-typescript makes of the document the server serves (else: npm run api-types -w @wardrik/console)', async () => {
    const generated = await apiTypesSource(document);
    const committed = readFileSync(API_TYPES_FILE, 'utf8');
    expect(
      generated === committed,
      'packages/console/src/api-types.ts differs from the types of the served OpenAPI document: run `npm run api-types -w @wardrik/console`',
    ).toBe(true);
  });

  it('every answer the console reads, and every event it follows, has a schema in the document', () => {
    for (const route of CONSOLE_ROUTES) {
      const status = route === 'post /v1/tokens' || route === 'post /v1/sessions' ? 201 : 200;
      expect(declared(route, status), route).toMatchObject({
        $ref: expect.stringMatching(/^#\/components\/schemas\//),
      });
    }
    expect(Object.keys(declaredEvents('/v1/runs/{id}/events'))).toEqual(
      expect.arrayContaining(['run-started', 'model-step', 'run-parked', 'run-ended', 'text-delta', 'node-stopping']),
    );
    expect(Object.keys(declaredEvents('/v1/inbox/events')).sort()).toEqual(
      ['node-stopping', 'park-answered', 'park-closed', 'park-opened', 'ready', 'run-ended'].sort(),
    );
  });

  it("a call's question (an input park) opens and closes in the inbox and the run's events as the document says", async () => {
    const inbox = await openStream('/v1/inbox/events');
    const ready = await inbox.until((event) => event.event === 'ready');
    const started = await wardrik.start('asker', 'which account?');
    const events = await openStream(`/v1/runs/${started.runId}/events`);
    const opened = await inbox.until(
      (event) => event.event === 'park-opened' && JSON.parse(event.data).run.id === started.runId,
    );
    expect(JSON.parse(opened.at(-1)?.data ?? '{}').park).toMatchObject({ kind: 'input', reason: 'Which account?' });
    stopAsking.abort(new Error('the person went home'));
    const closed = await inbox.until((event) => event.event === 'park-closed');
    expect(JSON.parse(closed.at(-1)?.data ?? '{}')).toMatchObject({
      runId: started.runId,
      reason: 'the call stopped waiting (the person went home)',
    });
    checkEvents('/v1/inbox/events', [...ready, ...opened, ...closed]);
    const untilEnded = await events.until((event) => event.event === 'run-ended');
    checkEvents('/v1/runs/{id}/events', untilEnded);
    expect(untilEnded.map((event) => event.event)).toEqual(
      expect.arrayContaining(['input-requested', 'input-withdrawn']),
    );
    expect((await wardrik.wait(started.runId)).status).toBe('completed');
    await inbox.cancel();
    await events.cancel();
  });

  it("real answers of a real server match the document's schemas, and a field it does not name fails the check", async () => {
    const inbox = await openStream('/v1/inbox/events');
    const ready = await inbox.until((event) => event.event === 'ready');

    // A worker, so that /v1/workers lists one (with a tool left out, and why).
    const workerToken = (
      await call('post /v1/tokens', '/v1/tokens', 201, { name: 'w', role: 'worker', kind: 'worker' })
    ).token as string;
    worker.raw = await RawWorker.connect(server.url, workerToken, {
      tools: [ECHO_TOOL, { name: 'bad tool!', inputSchema: { type: 'object' } }],
    });
    await until(() => wardrik.workers.list().some((each) => each.tools.length + each.rejected.length === 2));
    const { workers } = await call<{ workers: { rejected: unknown[] }[] }>('get /v1/workers', '/v1/workers', 200);
    expect(workers[0]?.rejected).toHaveLength(1);

    // A run that reads outside text, sees a call fail, and is held for approval (it carries outside).
    const started = await wardrik.start('support', 'outside: refund A1', { principal: 'alice' });
    const events = await openStream(`/v1/runs/${started.runId}/events`);
    const untilParked = await events.until((event) => event.event === 'run-parked');
    const approval = (await wardrik.wait(started.runId)).parks[0];
    expect(approval?.kind).toBe('approval');
    const opened = await inbox.until((event) => event.event === 'park-opened');

    await call('get /v1/me', '/v1/me', 200);
    await call('get /v1/inbox', '/v1/inbox?limit=1', 200);
    await call('get /v1/parks', `/v1/parks?runId=${started.runId}`, 200);
    await call('get /v1/parks/{id}', `/v1/parks/${approval?.id}`, 200);
    const released = await call<{ labels: string[] }>(
      'post /v1/runs/{id}/labels/release',
      `/v1/runs/${started.runId}/labels/release`,
      200,
      { labels: ['outside'], reason: 'our own docs' },
    );
    expect(released.labels).not.toContain('outside');
    const answered = await call<{ status: string }>(
      'post /v1/parks/{id}/answer',
      `/v1/parks/${approval?.id}/answer`,
      200,
      {
        decision: { type: 'approve', note: 'fine' },
        callHash: approval?.callHash,
      },
    );
    expect(answered.status).toBe('answered');
    const untilEnded = await events.until((event) => event.event === 'run-ended');
    checkEvents('/v1/runs/{id}/events', [...untilParked, ...untilEnded]);
    expect([...untilParked, ...untilEnded].map((event) => event.event)).toEqual(
      expect.arrayContaining(['text-delta', 'model-step', 'call-answered', 'labels-released', 'park-answered']),
    );
    const run = await call<{ journal: unknown[]; status: string }>(
      'get /v1/runs/{id}',
      `/v1/runs/${started.runId}`,
      200,
    );
    expect(run.status).toBe('completed');

    // A run held by its tool (a tool park, with details), answered with a value; and one cancelled while parked.
    const held = await wardrik.start('support', 'refund A2');
    const toolPark = (await wardrik.wait(held.runId)).parks[0];
    expect(toolPark?.kind).toBe('tool');
    await call('post /v1/parks/{id}/answer', `/v1/parks/${toolPark?.id}/answer`, 200, {
      decision: { type: 'answer', value: { refunded: 500 } },
      callHash: toolPark?.callHash,
    });
    const cancelled = await wardrik.start('support', 'refund A3');
    await wardrik.wait(cancelled.runId);
    const result = await call<{ status: string }>(
      'post /v1/runs/{id}/cancel',
      `/v1/runs/${cancelled.runId}/cancel`,
      200,
      {
        reason: 'not needed',
      },
    );
    expect(result.status).toBe('cancelled');
    const untilRunEnded = await inbox.until(
      (event) => event.event === 'run-ended' && JSON.parse(event.data).runId === cancelled.runId,
    );
    checkEvents('/v1/inbox/events', [...ready, ...opened, ...untilRunEnded]);
    expect(new Set([...opened, ...untilRunEnded].map((event) => event.event))).toEqual(
      new Set(['park-opened', 'park-answered', 'run-ended']),
    );
    await inbox.cancel();
    await events.cancel();
    await call('get /v1/runs', '/v1/runs', 200);
    await call('get /v1/runs/{id}', `/v1/runs/${held.runId}`, 200);

    // A session: a run's turn in it, state a person set, the messages.
    const session = await call<{ id: string; principal: string }>('post /v1/sessions', '/v1/sessions', 201, {
      agent: 'chat',
    });
    const turn = await wardrik.start('chat', 'hi', { session: session.id, principal: session.principal });
    await wardrik.wait(turn.runId);
    await call('post /v1/sessions/{id}/state', `/v1/sessions/${session.id}/state`, 200, {
      set: { cart: ['book'], 'app:flags': { beta: true } },
      reason: 'a test',
    });
    await call('post /v1/sessions/{id}/state', `/v1/sessions/${session.id}/state`, 200, {
      delete: ['cart'],
      reason: 'emptied',
    });
    const details = await call<{ messages: unknown[]; edits: unknown[] }>(
      'get /v1/sessions/{id}',
      `/v1/sessions/${session.id}`,
      200,
    );
    expect(details.messages.length).toBeGreaterThan(0);
    expect(details.edits).toHaveLength(2);
    await call('get /v1/sessions', '/v1/sessions', 200);

    // Tokens: one that expires, one revoked.
    const expiring = await call<{ tokenId: string }>('post /v1/tokens', '/v1/tokens', 201, {
      name: 'ops',
      role: 'operator',
      expiresAt: Date.now() + 86_400_000,
    });
    await auth.revokeToken(expiring.tokenId);
    await call('get /v1/tokens', '/v1/tokens', 200);

    expect([...checked].sort()).toEqual([...CONSOLE_ROUTES, ...CONSOLE_STREAMS].sort());

    // The check can fail: the schemas are closed, and hold types.
    const schema = declared('get /v1/runs/{id}', 200);
    expect(mismatches(schema, { ...run, unnamed: 1 })).not.toEqual([]);
    expect(mismatches(schema, { ...run, status: 'asleep' })).not.toEqual([]);
    expect(mismatches(schema, { ...run, journal: [...run.journal, { runId: 'r', seq: 1, record: {} }] })).not.toEqual(
      [],
    );
  });
});
