/**
 * Issue 26, items 9 and 10, over a real server on a temp SQLite file: every route of the HTTP API
 * answers 400 naming a query parameter it does not take (a typo in a filter used to return
 * everything), while the parameters the console and the CLI send keep working; and every
 * response says `nosniff`, every API answer `no-store` (the console's page and assets keep their
 * own caching).
 */
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { ok, park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, enableMetrics, sqliteStore, type Wardrik } from '../src/index.js';
import { CONSOLE_DIRECTORY } from '../src/server/console-assets.js';
import { type RunningMetricsServer, startMetricsServer } from '../src/server/metrics-route.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath } from './helpers.js';
import { readEvents } from './sse-client.js';

const refund = tool({
  name: 'refund',
  description: 'Refund an order; a manager must approve.',
  schema: { order_id: { type: 'string', required: true } },
  run: ({ order_id }, context) => (context.approval ? ok({ refunded: order_id }) : park('needs a manager')),
});
const support = defineAgent({
  name: 'support',
  instructions: '',
  tools: [refund],
  model: new ScriptedModel(() => ({
    text: 'refunding',
    toolCalls: [{ name: 'refund', arguments: { order_id: 'A1' } }],
  })),
});
const chat = defineAgent({
  name: 'chat',
  instructions: '',
  model: new ScriptedModel((request) => {
    const last = request.messages.at(-1);
    return { text: `noted: ${last?.role === 'user' ? last.content : ''}` };
  }),
});

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

let wardrik: Wardrik;
let server: RunningServer;
let admin = '';
let adminId = '';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, checked by the assertions.
  readonly json: any;
  readonly text: string;
}

async function api(
  path: string,
  options: { method?: string; body?: unknown; bytes?: string; type?: string; token?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? admin : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const body = options.bytes ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = options.type ?? 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const isJson = /json/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    json: isJson && text ? JSON.parse(text) : undefined,
    text,
  };
}

async function parkedRun(): Promise<string> {
  const started = await api('/v1/runs', { body: { agent: 'support', input: 'refund A1', wait: true } });
  expect(started.json.status).toBe('parked');
  return started.json.runId as string;
}

beforeAll(async () => {
  wardrik = await createWardrik({ store: sqliteStore(tempDbPath()), agents: [support, chat] });
  const auth = new AuthService(wardrik.store);
  server = await startServer({
    wardrik,
    auth,
    port: 0,
    heartbeatMs: 50,
    metrics: { source: enableMetrics(wardrik), token: METRICS_TOKEN },
  });
  admin = (await auth.ensureAdmin())?.token ?? '';
  adminId = (await api('/v1/me')).json.principal.id as string;
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

/** Every route of the OpenAPI document, with the query parameters it lists. */
async function documentedRoutes(): Promise<{ method: string; path: string; parameters: string[] }[]> {
  const document = (await api('/v1/openapi.json')).json as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method,
      path,
      parameters: (operation.parameters ?? []).filter((each) => each.in === 'query').map((each) => each.name),
    })),
  );
}

describe('query strings: a route takes only the parameters it names', () => {
  it('answers 400 naming a parameter the route does not take, listing those it does — on every route of the API', async () => {
    const routes = await documentedRoutes();
    // The routes that take a query, with what they take (the console's and the CLI's, see below).
    const taking = Object.fromEntries(
      routes
        .filter((route) => route.parameters.length > 0)
        .map((route) => [`${route.method.toUpperCase()} ${route.path}`, route.parameters]),
    );
    expect(taking).toEqual({
      'GET /v1/runs': ['status', 'agent', 'principal', 'limit'],
      'GET /v1/runs/{id}/events': ['after'],
      'GET /v1/parks': ['status', 'runId', 'limit'],
      'GET /v1/sessions': ['agent', 'limit'],
      'GET /v1/sessions/{id}': ['messages'],
      'GET /v1/memory': ['agent', 'query', 'principal', 'limit'],
      'GET /v1/sessions/{id}/artifacts/{name}': ['version'],
      'POST /v1/sessions/{id}/artifacts/{name}': ['labels'],
      'GET /v1/inbox': ['limit', 'after'],
      'GET /v1/oauth/callback': ['code', 'state', 'error', 'error_description'],
    });
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.map((route) => route.path)).toContain('/metrics');

    for (const route of routes) {
      // An authorization server writes the callback's query, and a client must ignore what it does
      // not know there (RFC 6749 §4.1.2: e.g. iss, session_state): checked below.
      if (route.path === '/v1/oauth/callback') continue;
      const method = route.method.toUpperCase();
      const path = route.path.replace('{id}', 'missing').replace('{name}', 'missing.txt');
      const answer = await api(`${path}?bogus=1`, { method });
      const takes = route.parameters.length === 0 ? 'no query parameters' : route.parameters.join(', ');
      const message = `unknown parameter; ${method} ${route.path} takes ${takes}`;
      expect({ route: `${method} ${route.path}`, status: answer.status }).toEqual({
        route: `${method} ${route.path}`,
        status: 400,
      });
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(answer.json).toMatchObject({
        type: 'https://wardrik.dev/problems/invalid_request',
        title: 'Invalid request',
        status: 400,
        detail: `query.bogus: ${message}`,
        errors: [{ path: 'query.bogus', message }],
      });
    }
    const callback = await api('/v1/oauth/callback?bogus=1&iss=https%3A%2F%2Fauth.example');
    expect(callback.status).toBe(400);
    expect(callback.json.detail).toBe('code and state: both are needed (the callback brings them)');
  });

  it('a typo in a filter is named, not ignored: GET /v1/runs?principle=… no longer answers every run', async () => {
    await parkedRun();
    const typo = await api(`/v1/runs?principle=${adminId}`);
    expect(typo.status).toBe(400);
    expect(typo.json.errors).toEqual([
      {
        path: 'query.principle',
        message: 'unknown parameter (did you mean principal?); GET /v1/runs takes status, agent, principal, limit',
      },
    ]);
    const cased = await api('/v1/parks?runid=x');
    expect(cased.json.errors[0].message).toMatch(/^unknown parameter \(did you mean runId\?\)/);
    // Each wrong parameter is named.
    const two = await api('/v1/sessions?agnet=chat&limt=5');
    expect(two.json.errors.map((error: { path: string }) => error.path)).toEqual(['query.agnet', 'query.limt']);
  });

  it('answers 400 naming a parameter given twice (which one would win is not guessed)', async () => {
    const twice = await api('/v1/runs?status=parked&status=completed');
    expect(twice.status).toBe(400);
    expect(twice.json.errors).toEqual([{ path: 'query.status', message: 'given 2 times; give it once' }]);
  });

  it('says that a token goes in the Authorization header, never in the URL (as an EventSource would send it)', async () => {
    const runId = await parkedRun();
    const answer = await api(`/v1/runs/${runId}/events?access_token=${admin}`, { token: null });
    expect(answer.status).toBe(400);
    expect(answer.json.errors[0]).toEqual({
      path: 'query.access_token',
      message:
        'unknown parameter (a token goes in the Authorization header, Bearer <token>, never in a URL); GET /v1/runs/{id}/events takes after',
    });
  });

  it('a wrong value is still named as before, and an unknown route is still a 404', async () => {
    const limit = await api('/v1/runs?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.json.errors[0].path).toBe('query.limit');
    const after = await api('/v1/runs/missing/events?after=-1');
    expect(after.status).toBe(400);
    expect(after.json.errors[0].path).toBe('query.after');
    expect((await api('/v1/nowhere?bogus=1')).status).toBe(404);
  });

  it('takes every parameter the console and the CLI send, with its effect', async () => {
    const first = await parkedRun();
    const second = await parkedRun();
    const done = await api('/v1/runs', { body: { agent: 'chat', input: 'hello', wait: true } });
    expect(done.json.status).toBe('completed');

    // Runs: status, agent, principal, limit (console runs page, wardrik runs).
    const parked = await api(`/v1/runs?status=parked&agent=support&principal=${adminId}&limit=1`);
    expect(parked.status).toBe(200);
    expect(parked.json.runs.map((run: { id: string }) => run.id)).toEqual([second]);
    const completed = await api('/v1/runs?status=completed&agent=chat&limit=200');
    expect(completed.json.runs.map((run: { id: string }) => run.id)).toEqual([done.json.runId]);

    // Parks: status, runId, limit (console run page, wardrik parks, follow).
    const parks = await api(`/v1/parks?runId=${first}&status=open&limit=1000`);
    expect(parks.json.parks.map((each: { runId: string }) => each.runId)).toEqual([first]);

    // The inbox: limit, after (console).
    const page = await api('/v1/inbox?limit=1');
    expect(page.json.items.map((item: { run: { id: string } }) => item.run.id)).toEqual([second]);
    const next = await api(`/v1/inbox?limit=1&after=${encodeURIComponent(page.json.next)}`);
    expect(next.status).toBe(200);
    expect(next.json.items.map((item: { run: { id: string } }) => item.run.id)).toEqual([first]);

    // Events: after (the header wins; ?after for clients that cannot set it).
    const events = await fetch(`${server.url}/v1/runs/${done.json.runId}/events?after=2`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(events.status).toBe(200);
    const [firstEvent] = await readEvents(events, () => true);
    expect(firstEvent?.id).toBe('3');

    // Sessions: agent, limit; messages (console, wardrik chat).
    const session = (await api('/v1/sessions', { body: { agent: 'chat' } })).json.id as string;
    await api('/v1/runs', { body: { agent: 'chat', input: 'first', session, wait: true } });
    await api('/v1/runs', { body: { agent: 'chat', input: 'second', session, wait: true } });
    const sessions = await api('/v1/sessions?agent=chat&limit=1');
    expect(sessions.json.sessions.map((each: { id: string }) => each.id)).toEqual([session]);
    const details = await api(`/v1/sessions/${session}?messages=1`);
    expect(details.json.messages).toHaveLength(1);
    expect(details.json.earlierMessages).toBe(true);

    // Memory: agent, query, principal, limit (wardrik memory search).
    await api(`/v1/sessions/${session}/memory`, { method: 'POST' });
    const memories = await api(`/v1/memory?agent=chat&query=second&principal=${adminId}&limit=1`);
    expect(memories.status).toBe(200);
    expect(memories.json.memories).toHaveLength(1);

    // Artifacts: labels on upload, version on download (wardrik artifacts put/get).
    const saved = await api(`/v1/sessions/${session}/artifacts/note.txt?labels=outside`, {
      bytes: 'one',
      type: 'text/plain',
    });
    expect(saved.status).toBe(201);
    expect(saved.json.labels).toEqual(['outside']);
    await api(`/v1/sessions/${session}/artifacts/note.txt`, { bytes: 'two', type: 'text/plain' });
    const version = await api(`/v1/sessions/${session}/artifacts/note.txt?version=1`);
    expect(version.text).toBe('one');
  });

  it('the worker endpoint takes no query parameters either', async () => {
    const refused = await upgrade(`/v1/workers?name=w1`, admin);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).errors).toEqual([
      { path: 'query.name', message: 'unknown parameter; the worker endpoint (/v1/workers) takes no query parameters' },
    ]);
  });
});

/** A worker's WebSocket upgrade refused: its status, headers and body. */
function upgrade(
  path: string,
  token: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    socket.on('error', () => {});
    socket.once('open', () => {
      socket.terminate();
      reject(new Error(`the upgrade to ${path} was accepted`));
    });
    socket.once('unexpected-response', (request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.once('end', () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        request.destroy();
      });
    });
  });
}

function expectApiHeaders(headers: Headers | Record<string, unknown>, what: string): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  expect({ what, cache: get('cache-control'), sniff: get('x-content-type-options') }).toEqual({
    what,
    cache: 'no-store',
    sniff: 'nosniff',
  });
}

describe('response headers: nosniff everywhere, no-store on the API', () => {
  it('JSON answers, POST /v1/tokens (its secret), problems and 404s', async () => {
    expectApiHeaders((await api('/v1/agents')).headers, 'a JSON answer');
    expect((await api('/v1/agents')).headers.get('x-accel-buffering')).toBeNull();
    expectApiHeaders((await api('/v1/health', { token: null })).headers, 'a public JSON answer');
    const created = await api('/v1/tokens', { body: { name: 'olivia', role: 'operator' } });
    expect(created.status).toBe(201);
    expect(created.json.token).toMatch(/^wdk_/);
    expectApiHeaders(created.headers, 'POST /v1/tokens');
    expectApiHeaders((await api('/v1/runs/missing')).headers, 'a 404 problem');
    expectApiHeaders((await api('/v1/agents', { token: null })).headers, 'a 401 problem');
    expectApiHeaders((await api('/v1/runs', { body: { agent: 7 } })).headers, 'a 400 problem');
    expectApiHeaders((await api('/v1/nowhere')).headers, 'an unknown route');
  });

  it('event streams: no-store (not the no-cache an SSE helper sends), nosniff, and no buffering in a proxy', async () => {
    const runId = await parkedRun();
    for (const path of [`/v1/runs/${runId}/events`, '/v1/inbox/events']) {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      expectApiHeaders(response.headers, path);
      expect({ path, buffering: response.headers.get('x-accel-buffering') }).toEqual({ path, buffering: 'no' });
      await response.body?.cancel();
    }
  });

  it('artifacts downloaded: no-store and nosniff', async () => {
    const session = (await api('/v1/sessions', { body: { agent: 'chat' } })).json.id as string;
    await api(`/v1/sessions/${session}/artifacts/page.html`, { bytes: '<p>hi</p>', type: 'text/html' });
    const download = await api(`/v1/sessions/${session}/artifacts/page.html`);
    expect(download.text).toBe('<p>hi</p>');
    expectApiHeaders(download.headers, 'an artifact');
  });

  it('the console: nosniff; its page and icon revalidated on every load, hashed assets kept for good', async () => {
    const assets = readdirSync(join(CONSOLE_DIRECTORY, 'assets'));
    const script = assets.find((name) => name.endsWith('.js'));
    if (script === undefined) throw new Error(`no console build in ${CONSOLE_DIRECTORY}: run npm run build`);
    const expected: [string, number, string][] = [
      ['/', 200, 'no-cache'],
      ['/favicon.svg', 200, 'no-cache'],
      [`/assets/${script}`, 200, 'public, max-age=31536000, immutable'],
      ['/assets/missing.js', 404, 'no-store'],
    ];
    for (const [path, status, cache] of expected) {
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      expect({ path, status: response.status, cache: response.headers.get('cache-control') }).toEqual({
        path,
        status,
        cache,
      });
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('/metrics on the API server and on a listener of its own: no-store and nosniff', async () => {
    const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    await scraped.text();
    expectApiHeaders(scraped.headers, 'GET /metrics');
    expectApiHeaders((await api('/metrics', { token: null })).headers, 'GET /metrics without its token');

    let own: RunningMetricsServer | undefined;
    try {
      own = await startMetricsServer({ source: enableMetrics(wardrik), port: 0 });
      const alone = await fetch(own.url);
      await alone.text();
      expect(alone.status).toBe(200);
      expectApiHeaders(alone.headers, 'the metrics listener');
      const elsewhere = await fetch(own.url.replace('/metrics', '/other'));
      await elsewhere.text();
      expectApiHeaders(elsewhere.headers, "the metrics listener's 404");
    } finally {
      await own?.close();
    }
  });

  it('refusals written outside Hono: a refused worker upgrade, a server at its connection limit', async () => {
    const refused = await upgrade('/v1/workers', 'wdk_not-a-token');
    expect(refused.status).toBe(401);
    expectApiHeaders(refused.headers, 'a refused worker upgrade');

    // A server of its own (closing a server closes its Wardrik's worker hub).
    const other = await createWardrik({ store: sqliteStore(tempDbPath()), agents: [chat] });
    const full = await startServer({ wardrik: other, auth: new AuthService(other.store), port: 0, maxConnections: 1 });
    const idle: Socket = await new Promise((resolve, reject) => {
      const socket = connect(full.port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });
    try {
      const response = await fetch(`${full.url}/v1/health`);
      await response.text();
      expect(response.status).toBe(503);
      expectApiHeaders(response.headers, 'a server at its connection limit');
    } finally {
      idle.destroy();
      await full.close();
      await other.close();
    }
  });
});
