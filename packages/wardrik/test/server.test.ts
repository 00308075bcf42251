import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { readEvents } from './sse-client.js';

const orderStatus = tool({
  name: 'order_status',
  description: 'Say where an order is.',
  schema: { order_id: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});
const refund = tool({
  name: 'refund',
  description: 'Refund; over 100 needs a manager.',
  schema: { amount: { type: 'number', required: true } },
  run: ({ amount }, context) =>
    (amount as number) > 100 && !context.approval ? park('needs a manager') : ok({ refunded: amount }),
});
const support = defineAgent({
  name: 'support',
  instructions: '',
  tools: [orderStatus, refund],
  model: new ScriptedModel([
    { text: 'checking', toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }] },
    { text: 'refunding', toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] },
    (request) => ({ text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
  ]),
});
const other = defineAgent({ name: 'other', instructions: '', model: new ScriptedModel(() => ({ text: 'hello' })) });

let wardrik: Wardrik;
let server: RunningServer;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};

async function api(
  path: string,
  options: { token?: string; method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method: options.method ?? (body ? 'POST' : 'GET'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    json: text ? JSON.parse(text) : undefined,
  };
}

beforeAll(async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'wardrik-server-')), 'wardrik.db');
  wardrik = await createWardrik({ store: sqliteStore(path), agents: [support, other] });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0, bodyLimitBytes: 64 * 1024, heartbeatMs: 50 });
  const admin = await auth.ensureAdmin();
  tokens.admin = admin?.token ?? '';
  for (const [name, role, agents] of [
    ['operator', 'operator', ['*']],
    ['alice', 'user', ['*']],
    ['bob', 'user', ['*']],
    ['carol', 'user', ['other']],
    ['worker', 'worker', ['*']],
    ['scoped-operator', 'operator', ['other']],
  ] as const) {
    const principal = await auth.createPrincipal({
      name,
      role,
      kind: role === 'worker' ? 'worker' : 'user',
      agents: [...agents],
    });
    ids[name] = principal.id;
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

describe('the HTTP API end to end', () => {
  it('start, follow live, park, answer, resume — over real HTTP and SSE', async () => {
    const started = await api('/v1/runs', { token: tokens.alice, body: { agent: 'support', input: 'refund A1' } });
    expect(started.status).toBe(201);
    const runId = started.json.runId as string;

    const live = await fetch(`${server.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    const beforePark = await readEvents(live, (event) => event.event === 'run-parked');
    expect(beforePark.map((event) => event.event)).toEqual([
      'run-started',
      'model-step',
      'call-started',
      'call-answered',
      'model-step',
      'call-started',
      'run-parked',
    ]);
    expect(beforePark.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5', '6', '7']);

    const parks = await api('/v1/parks?status=open', { token: tokens.operator });
    const parked = parks.json.parks.find((each: { runId: string }) => each.runId === runId);
    expect(parked).toMatchObject({
      kind: 'tool',
      reason: 'needs a manager',
      call: { name: 'refund', arguments: { amount: 500 } },
    });

    const resumed = await fetch(`${server.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${tokens.alice}`, 'last-event-id': '7' },
    });
    const answered = await api(`/v1/parks/${parked.id}/answer`, {
      token: tokens.operator,
      body: { decision: { type: 'retry', note: 'ok' }, callHash: parked.callHash },
    });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ status: 'answered', answeredBy: 'operator' });
    const afterPark = await readEvents(resumed, (event) => event.event === 'run-ended');
    expect(afterPark.map((event) => `${event.id}:${event.event}`)).toEqual([
      '8:park-answered',
      '9:call-started',
      '10:call-answered',
      '11:model-step',
      '12:run-ended',
    ]);

    const run = await api(`/v1/runs/${runId}`, { token: tokens.alice });
    expect(run.json).toMatchObject({ status: 'completed', output: 'done {"refunded":500}', principal: ids.alice });
    expect(run.json.journal).toHaveLength(12);
    expect(run.json.measures).toEqual({ inputTokens: 30, outputTokens: 15 });

    const again = await api(`/v1/parks/${parked.id}/answer`, {
      token: tokens.operator,
      body: { decision: { type: 'retry' }, callHash: parked.callHash },
    });
    expect(again.status).toBe(409);
    expect(again.type).toContain('application/problem+json');
    expect(again.json.detail).toMatch(/takes one answer only/);
  });

  it('waits for the result when asked, and resumes SSE after a dropped connection without loss or repeats', async () => {
    const done = await api('/v1/runs', { token: tokens.bob, body: { agent: 'other', input: 'hi', wait: true } });
    expect(done.status).toBe(201);
    expect(done.json).toMatchObject({ status: 'completed', output: 'hello' });
    const first = await fetch(`${server.url}/v1/runs/${done.json.runId}/events`, {
      headers: { authorization: `Bearer ${tokens.bob}` },
    });
    const one = await readEvents(first, () => true);
    expect(one.map((event) => event.id)).toEqual(['1']);
    const rest = await fetch(`${server.url}/v1/runs/${done.json.runId}/events`, {
      headers: { authorization: `Bearer ${tokens.bob}`, 'last-event-id': one[0]?.id ?? '' },
    });
    const tail = await readEvents(rest, (event) => event.event === 'run-ended');
    expect(tail.map((event) => event.id)).toEqual(['2', '3']);
  });

  it('serves an OpenAPI document generated from the schemas it validates with', async () => {
    const doc = await api('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        '/v1/runs',
        '/v1/runs/{id}',
        '/v1/runs/{id}/events',
        '/v1/parks/{id}/answer',
        '/v1/tokens',
      ]),
    );
    const startSchema = doc.json.paths['/v1/runs'].post.requestBody.content['application/json'].schema;
    expect(startSchema.required).toEqual(['agent', 'input']);
    expect(startSchema.additionalProperties).toBe(false);

    // The limits' answers: 503 anywhere (server full), 429 for too many event streams, 400 for bodies.
    const events = doc.json.paths['/v1/runs/{id}/events'].get.responses;
    expect(events['429'].description).toMatch(/maxStreamsPerPrincipal/);
    expect(events['429'].headers['retry-after']).toBeDefined();
    expect(events['503'].description).toMatch(/maxConnections/);
    const answer = doc.json.paths['/v1/parks/{id}/answer'].post.responses;
    expect(answer['400'].description).toMatch(/nests deeper than 64 levels/);
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(['400', '413', '415', '503']));
  });
});

describe('authentication', () => {
  it('401 with a JSON reason for a missing, malformed, unknown or revoked token', async () => {
    const missing = await api('/v1/runs');
    expect(missing).toMatchObject({ status: 401, json: { detail: 'missing bearer token' } });
    expect(missing.type).toContain('application/problem+json');
    const malformed = await api('/v1/runs', { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    expect(malformed.json.detail).toMatch(/malformed Authorization header/);
    expect((await api('/v1/runs', { token: 'wdk_nope' })).json.detail).toBe('unknown token');
    const created = await api('/v1/tokens', { token: tokens.admin, body: { name: 'temp', role: 'user' } });
    expect(created.status).toBe(201);
    expect((await api('/v1/runs', { token: created.json.token })).status).toBe(200);
    expect((await api(`/v1/tokens/${created.json.tokenId}`, { token: tokens.admin, method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await api('/v1/runs', { token: created.json.token })).json.detail).toBe('token revoked');
  });

  it('POST /v1/tokens takes expiresAt: the token works until then, then gets 401 token expired; a past one is a 400', async () => {
    // A token that lasts a day works and is listed with its expiry; one that lasts a moment stops working.
    const expiresAt = Date.now() + 86_400_000;
    const created = await api('/v1/tokens', { token: tokens.admin, body: { name: 'brief', role: 'user', expiresAt } });
    expect(created.status).toBe(201);
    expect(created.json.expiresAt).toBe(expiresAt);
    expect((await api('/v1/runs', { token: created.json.token })).status).toBe(200);
    const listed = await api('/v1/tokens', { token: tokens.admin });
    expect(listed.json.tokens).toContainEqual(expect.objectContaining({ id: created.json.tokenId, expiresAt }));
    const momentary = await api('/v1/tokens', {
      token: tokens.admin,
      body: { name: 'momentary', role: 'user', expiresAt: Date.now() + 3_000 },
    });
    expect(momentary.status).toBe(201);
    while (Date.now() <= momentary.json.expiresAt) await new Promise((resolve) => setTimeout(resolve, 50));
    const expired = await api('/v1/runs', { token: momentary.json.token });
    expect(expired).toMatchObject({ status: 401, json: { detail: 'token expired' } });

    const past = await api('/v1/tokens', {
      token: tokens.admin,
      body: { name: 'late', role: 'user', expiresAt: Date.now() - 1 },
    });
    expect(past.status).toBe(400);
    expect(past.json.detail).toMatch(/^expiresAt must be in the future, got /);
    const text = await api('/v1/tokens', {
      token: tokens.admin,
      body: { name: 'late', role: 'user', expiresAt: 'soon' },
    });
    expect(text.status).toBe(400);
    expect(text.json.detail).toMatch(/expiresAt/);
    expect((await api('/v1/tokens', { token: tokens.admin })).json.principals).not.toContainEqual(
      expect.objectContaining({ name: 'late' }),
    );
  });
});

describe('authorization', () => {
  type Who = 'admin' | 'operator' | 'alice' | 'bob' | 'carol' | 'worker';
  let aliceRun: string;
  let alicePark: { id: string; callHash: string };
  beforeAll(async () => {
    const started = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'support', input: 'refund', wait: true },
    });
    aliceRun = started.json.runId;
    alicePark = started.json.parks[0];
  });

  const endpoints: Array<[string, (who: Who) => Promise<number>, Record<Who, number>]> = [
    [
      'GET /v1/agents',
      (who) => api('/v1/agents', { token: tokens[who] }).then((r) => r.status),
      { admin: 200, operator: 200, alice: 200, bob: 200, carol: 200, worker: 403 },
    ],
    [
      'POST /v1/runs (agent other)',
      (who) => api('/v1/runs', { token: tokens[who], body: { agent: 'other', input: 'x' } }).then((r) => r.status),
      { admin: 201, operator: 403, alice: 201, bob: 201, carol: 201, worker: 403 },
    ],
    [
      'POST /v1/runs (agent support, out of carol’s scope)',
      (who) =>
        api('/v1/runs', { token: tokens[who], body: { agent: 'support', input: 'x' } }).then((r) =>
          r.status === 201 ? 201 : r.status,
        ),
      { admin: 201, operator: 403, alice: 201, bob: 201, carol: 403, worker: 403 },
    ],
    [
      'GET /v1/runs',
      (who) => api('/v1/runs', { token: tokens[who] }).then((r) => r.status),
      { admin: 200, operator: 200, alice: 200, bob: 200, carol: 200, worker: 403 },
    ],
    [
      "GET alice's run",
      (who) => api(`/v1/runs/${aliceRun}`, { token: tokens[who] }).then((r) => r.status),
      { admin: 200, operator: 200, alice: 200, bob: 403, carol: 403, worker: 403 },
    ],
    [
      "GET alice's run events",
      (who) =>
        fetch(`${server.url}/v1/runs/${aliceRun}/events`, { headers: { authorization: `Bearer ${tokens[who]}` } }).then(
          async (r) => {
            await r.body?.cancel();
            return r.status;
          },
        ),
      { admin: 200, operator: 200, alice: 200, bob: 403, carol: 403, worker: 403 },
    ],
    [
      'GET /v1/parks',
      (who) => api('/v1/parks', { token: tokens[who] }).then((r) => r.status),
      { admin: 200, operator: 200, alice: 200, bob: 200, carol: 200, worker: 403 },
    ],
    [
      "GET alice's park",
      (who) => api(`/v1/parks/${alicePark.id}`, { token: tokens[who] }).then((r) => r.status),
      { admin: 200, operator: 200, alice: 200, bob: 403, carol: 403, worker: 403 },
    ],
    [
      "answer alice's park (stale hash)",
      (who) =>
        api(`/v1/parks/${alicePark.id}/answer`, {
          token: tokens[who],
          body: { decision: { type: 'fail' }, callHash: 'stale' },
        }).then((r) => r.status),
      { admin: 409, operator: 409, alice: 403, bob: 403, carol: 403, worker: 403 },
    ],
    [
      'GET /v1/tokens',
      (who) => api('/v1/tokens', { token: tokens[who] }).then((r) => r.status),
      { admin: 200, operator: 403, alice: 403, bob: 403, carol: 403, worker: 403 },
    ],
    [
      'POST /v1/tokens',
      (who) =>
        api('/v1/tokens', { token: tokens[who], body: { name: `made-by-${who}`, role: 'user' } }).then((r) => r.status),
      { admin: 201, operator: 403, alice: 403, bob: 403, carol: 403, worker: 403 },
    ],
  ];

  it.each(endpoints)('%s: every role gets what it should', async (_name, request, expected) => {
    const got: Record<string, number> = {};
    for (const who of Object.keys(expected) as Who[]) got[who] = await request(who);
    expect(got).toEqual(expected);
  });

  it('a forbidden request gets 403 with the reason; lists hide other principals’ runs and parks', async () => {
    const forbidden = await api(`/v1/runs/${aliceRun}`, { token: tokens.bob });
    expect(forbidden.type).toContain('application/problem+json');
    expect(forbidden.json.detail).toMatch(/another principal/);
    const bobsRuns = await api('/v1/runs', { token: tokens.bob });
    expect(bobsRuns.json.runs.every((run: { principal: string }) => run.principal === ids.bob)).toBe(true);
    const bobsParks = await api('/v1/parks', { token: tokens.bob });
    expect(bobsParks.json.parks.some((each: { runId: string }) => each.runId === aliceRun)).toBe(false);
    const scoped = await api('/v1/runs', { token: tokens['scoped-operator'] });
    expect(scoped.json.runs.every((run: { agent: string }) => run.agent === 'other')).toBe(true);
    const cancel = await api(`/v1/runs/${aliceRun}/cancel`, { token: tokens.bob, body: {} });
    expect(cancel.status).toBe(403);
    const canceled = await api(`/v1/runs/${aliceRun}/cancel`, {
      token: tokens.alice,
      body: { reason: 'changed my mind' },
    });
    expect(canceled.json).toMatchObject({ status: 'cancelled', error: 'changed my mind' });
  });
});

describe('bad input', () => {
  it('gets a problem+json naming the problem, and the server keeps serving', async () => {
    const malformed = await api('/v1/runs', { token: tokens.alice, raw: '{"agent": "support",' });
    expect(malformed.status).toBe(400);
    expect(malformed.type).toContain('application/problem+json');
    expect(malformed.json.detail).toMatch(/^the body is not valid JSON/);

    const wrong = await api('/v1/runs', { token: tokens.alice, body: { agent: 7, input: '', extra: true } });
    expect(wrong.status).toBe(400);
    const paths = wrong.json.errors.map((error: { path: string }) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['body.agent', 'body.input', 'body']));
    expect(wrong.json.detail).toContain('body.agent');

    const big = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'support', input: 'x'.repeat(70 * 1024) },
    });
    expect(big.status).toBe(413);
    expect(big.json.detail).toMatch(/over the limit of 65536 bytes/);

    // Without a content-length (chunked), the limit holds while the body streams in.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${server.url}/v1/runs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.alice}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      });
      request.on('response', (response) => {
        let body = '';
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      for (let index = 0; index < 80; index++) request.write('x'.repeat(1024));
      request.end();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).detail).toMatch(/over the limit of 65536 bytes/);

    const unknownAgent = await api('/v1/runs', { token: tokens.admin, body: { agent: 'ghost', input: 'x' } });
    expect(unknownAgent).toMatchObject({ status: 404, json: { detail: 'no agent "ghost"; agents: support, other' } });
    expect((await api('/v1/runs/run_nope', { token: tokens.admin })).status).toBe(404);
    expect((await api('/v1/parks/park_nope', { token: tokens.admin })).status).toBe(404);
    expect(
      (
        await api('/v1/parks/park_nope/answer', {
          token: tokens.admin,
          body: { decision: { type: 'maybe' }, callHash: 'x' },
        })
      ).status,
    ).toBe(400);
    expect((await api('/v1/nothing', { token: tokens.admin })).status).toBe(404);
    expect((await api('/v1/runs?status=sideways', { token: tokens.admin })).json.errors[0].path).toBe('query.status');
    const text = await api('/v1/runs', {
      token: tokens.alice,
      raw: 'agent=support',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect((await api('/v1/runs/x/events', { token: tokens.admin, headers: { 'last-event-id': 'abc' } })).status).toBe(
      404,
    );

    expect((await api('/v1/health')).json).toEqual({ status: 'ok' });
    expect(
      (await api('/v1/runs', { token: tokens.alice, body: { agent: 'other', input: 'still there?', wait: true } })).json
        .output,
    ).toBe('hello');
  });
});
