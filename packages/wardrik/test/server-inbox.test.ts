/*
 * The routes the console needs, over real HTTP on a temp SQLite file: who am I (/v1/me), the inbox
 * of open parks newest first and paged (/v1/inbox), its live stream (/v1/inbox/events), each
 * narrowed to what the principal may read, and across nodes on PostgreSQL; and the console page
 * itself at / with its CSP.
 */
import { tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { CONSOLE_CSP } from '../src/server/console-assets.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath } from './helpers.js';
import { SseReader } from './sse-client.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';

const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  annotations: { destructive: true },
  run: ({ amount }) => ({ refunded: amount }),
});
const support = defineAgent({
  name: 'support',
  instructions: '',
  tools: [refund],
  model: new ScriptedModel((request) =>
    request.messages.some((message) => message.role === 'tool')
      ? { text: 'done' }
      : { toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 5 } }], measures: { usd: 0.5 } },
  ),
});

let wardrik: Wardrik;
let server: RunningServer;
const tokens: Record<string, string> = {};

async function api(path: string, token: string | undefined, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Starts a run as `who` and returns it once parked. */
async function parked(who: string): Promise<{ runId: string; parkId: string; callHash: string }> {
  const { json } = await api('/v1/runs', tokens[who], { agent: 'support', input: 'refund A1', wait: true });
  expect(json.status).toBe('parked');
  return { runId: json.runId, parkId: json.parks[0].id, callHash: json.parks[0].callHash };
}

beforeAll(async () => {
  wardrik = await createWardrik({ store: sqliteStore(tempDbPath()), agents: [support] });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0, heartbeatMs: 60_000 });
  tokens['admin'] = (await auth.ensureAdmin())?.token ?? '';
  for (const [name, role] of [
    ['olivia', 'operator'],
    ['alice', 'user'],
    ['bob', 'user'],
    ['wes', 'worker'],
  ] as const) {
    const principal = await auth.createPrincipal({ name, role, kind: 'user', agents: ['*'] });
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

describe('/v1/me', () => {
  it('says who the token is and which actions it may take', async () => {
    const admin = await api('/v1/me', tokens['admin']);
    expect(admin.status).toBe(200);
    expect(admin.json.principal.role).toBe('admin');
    expect(Object.values(admin.json.may).every(Boolean)).toBe(true);
    const user = await api('/v1/me', tokens['alice']);
    expect(user.json.principal).toMatchObject({ name: 'alice', role: 'user', agents: ['*'] });
    expect(user.json.may).toMatchObject({
      'run.start': true,
      'park.read': true,
      'park.answer': false,
      'tokens.manage': false,
    });
    expect((await api('/v1/me', 'wdk_nope')).status).toBe(401);
  });
});

describe('/v1/inbox', () => {
  it('lists open parks newest first, a page at a time, each with its run and the held tool’s schema', async () => {
    const made = [];
    for (let index = 0; index < 5; index += 1) made.push(await parked(index % 2 === 0 ? 'alice' : 'bob'));
    const seen: string[] = [];
    let page = await api('/v1/inbox?limit=2', tokens['olivia']);
    for (;;) {
      expect(page.status).toBe(200);
      seen.push(...page.json.items.map((item: { park: { id: string } }) => item.park.id));
      if (page.json.next === undefined) break;
      page = await api(`/v1/inbox?limit=2&after=${encodeURIComponent(page.json.next)}`, tokens['olivia']);
    }
    expect(seen).toEqual(made.map((each) => each.parkId).reverse());

    const first = (await api('/v1/inbox?limit=1', tokens['olivia'])).json.items[0];
    expect(first.park).toMatchObject({ status: 'open', kind: 'approval', call: { name: 'refund' } });
    expect(first.run).toMatchObject({ id: made.at(-1)?.runId, agent: 'support', status: 'parked' });
    expect(first.run.measures.usd).toBe(0.5);
    expect(first.schema.required).toEqual(['order_id', 'amount']);

    // A user sees the parks of its own runs only; a worker none.
    const own = (await api('/v1/inbox', tokens['bob'])).json.items.map((item: { run: { id: string } }) => item.run.id);
    expect(own).toEqual([made[3]?.runId, made[1]?.runId]);
    expect((await api('/v1/inbox', tokens['wes'])).status).toBe(403);
    expect((await api('/v1/inbox?after=nonsense', tokens['olivia'])).status).toBe(400);
    for (const each of made) await wardrik.cancel(each.runId);
  });

  it('streams parks as they open, are answered and close, to those who may read them', async () => {
    const open = async (who: string) => {
      const response = await fetch(`${server.url}/v1/inbox/events`, {
        headers: { authorization: `Bearer ${tokens[who]}` },
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = new SseReader(response);
      await reader.until((event) => event.event === 'ready');
      return reader;
    };
    const operator = await open('olivia');
    const bob = await open('bob');

    const mine = await parked('alice');
    const opened = await operator.until((event) => event.event === 'park-opened');
    const item = JSON.parse(opened.at(-1)?.data ?? '{}');
    expect(item.park.id).toBe(mine.parkId);
    expect(item.run).toMatchObject({ id: mine.runId, agent: 'support' });
    expect(item.schema.properties.amount).toBeDefined();

    await api(`/v1/parks/${mine.parkId}/answer`, tokens['olivia'], {
      decision: { type: 'deny', reason: 'no' },
      callHash: mine.callHash,
    });
    const answered = await operator.until((event) => event.event === 'park-answered');
    expect(JSON.parse(answered.at(-1)?.data ?? '{}')).toMatchObject({
      parkId: mine.parkId,
      runId: mine.runId,
      by: 'olivia',
      decision: { type: 'deny' },
    });
    const ended = await operator.until((event) => event.event === 'run-ended');
    expect(JSON.parse(ended.at(-1)?.data ?? '{}')).toEqual({ runId: mine.runId, status: 'completed' });

    // Bob saw none of alice's run; his own park reaches him.
    const his = await parked('bob');
    const bobs = await bob.until((event) => event.event === 'park-opened');
    expect(bobs.map((event) => event.event)).toEqual(['park-opened']);
    expect(JSON.parse(bobs[0]?.data ?? '{}').park.id).toBe(his.parkId);
    await operator.cancel();
    await bob.cancel();
    await wardrik.cancel(his.runId);
    expect((await api('/v1/inbox/events', tokens['wes'])).status).toBe(403);
  });

  it('is in the OpenAPI document', async () => {
    const { json } = await api('/v1/openapi.json', undefined);
    expect(Object.keys(json.paths)).toEqual(expect.arrayContaining(['/v1/me', '/v1/inbox', '/v1/inbox/events']));
    const parameters = json.paths['/v1/inbox'].get.parameters.map((each: { name: string }) => each.name);
    expect(parameters).toEqual(expect.arrayContaining(['limit', 'after']));
  });
});

describe('the console page', () => {
  it('is served at / with its Content-Security-Policy; unknown assets are 404', async () => {
    const page = await fetch(`${server.url}/`);
    expect([200, 404]).toContain(page.status); // 404 (saying so) when the console was not built
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${server.url}/assets/nothing.js`)).status).toBe(404);
  });
});

describe('/v1/inbox/events across nodes (PostgreSQL)', () => {
  it('hears parks of runs another node drives: opened, answered, ended', async () => {
    const schema = testSchemaName();
    const nodeA = await createWardrik({
      store: openPostgresTestStore({ schema, keepSchema: true }),
      agents: [support],
      node: 'node-a',
    });
    const nodeB = await createWardrik({
      store: openPostgresTestStore({ schema, keepSchema: true }),
      agents: [support],
      node: 'node-b',
    });
    const auth = new AuthService(nodeA.store);
    const serverA = await startServer({ wardrik: nodeA, auth, port: 0 });
    try {
      const admin = (await auth.ensureAdmin())?.token ?? '';
      const response = await fetch(`${serverA.url}/v1/inbox/events`, { headers: { authorization: `Bearer ${admin}` } });
      const reader = new SseReader(response);
      await reader.until((event) => event.event === 'ready');

      const { runId } = await nodeB.start('support', 'refund A1'); // node B drives it
      const opened = await reader.until((event) => event.event === 'park-opened');
      const item = JSON.parse(opened.at(-1)?.data ?? '{}');
      expect(item.run).toMatchObject({ id: runId, agent: 'support' });
      const park = await nodeB.getPark(item.park.id);
      await nodeB.answerPark(park.id, { type: 'approve' }, { callHash: park.callHash, by: 'bea' });
      const rest = await reader.until((event) => event.event === 'run-ended');
      expect(rest.map((event) => event.event)).toEqual(['park-answered', 'run-ended']);
      expect(JSON.parse(rest[0]?.data ?? '{}')).toMatchObject({
        parkId: park.id,
        by: 'bea',
        decision: { type: 'approve' },
      });
      expect(JSON.parse(rest[1]?.data ?? '{}')).toEqual({ runId, status: 'completed' });
      await reader.cancel();
    } finally {
      await serverA.close();
      await nodeA.close();
      await nodeB.close();
      await dropTestSchema(schema);
    }
  });
});
