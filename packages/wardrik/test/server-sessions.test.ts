import { tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, type Message, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath } from './helpers.js';

const remember = tool({
  name: 'remember',
  description: 'Keeps a note.',
  schema: { note: { type: 'string', required: true } },
  annotations: { idempotent: true },
  run: ({ note }, context) => {
    context.state.set('note', note);
    return 'kept';
  },
});
const chat = defineAgent({
  name: 'chat',
  instructions: 'Chat.',
  tools: [remember],
  model: new ScriptedModel((request) => {
    const last = request.messages.at(-1) as Message;
    if (last.role === 'user' && last.content.startsWith('note ')) {
      return { toolCalls: [{ name: 'remember', arguments: { note: last.content.slice(5) } }] };
    }
    return { text: `seen ${request.messages.length} messages` };
  }),
});
const other = defineAgent({ name: 'other', instructions: '', model: new ScriptedModel(() => ({ text: 'hello' })) });
/** Its runs take a while: a second run of its session comes while the first is going. */
const slow = defineAgent({
  name: 'slow',
  instructions: '',
  model: new ScriptedModel(() => ({ text: 'hello', delayMs: 300 })),
});

let wardrik: Wardrik;
let server: RunningServer;
const tokens: Record<string, string> = {};

async function api(path: string, options: { token?: string; method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  wardrik = await createWardrik({ store: sqliteStore(tempDbPath()), agents: [chat, other, slow] });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0 });
  tokens.admin = (await auth.ensureAdmin())?.token ?? '';
  for (const [name, role, agents] of [
    ['operator', 'operator', ['*']],
    ['alice', 'user', ['*']],
    ['bob', 'user', ['*']],
    ['carol', 'user', ['other']],
  ] as const) {
    const principal = await auth.createPrincipal({ name, role, kind: 'user', agents: [...agents] });
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

describe('/v1/sessions', () => {
  it('a conversation over HTTP: create, run twice, read it back with its messages, state and runs', async () => {
    const created = await api('/v1/sessions', { token: tokens.alice, body: { agent: 'chat' } });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const first = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'chat', input: 'note buy milk', session: id, wait: true },
    });
    expect(first.json.status).toBe('completed');
    const second = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'chat', input: 'hi', session: id, wait: true },
    });
    expect(second.json.output).toBe('seen 5 messages');
    const read = await api(`/v1/sessions/${id}`, { token: tokens.alice });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      id,
      agent: 'chat',
      runs: 2,
      state: [{ key: 'note', value: 'buy milk', labels: [] }],
    });
    expect(read.json.runList.map((run: { id: string }) => run.id)).toEqual([first.json.runId, second.json.runId]);
    expect(read.json.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    const latest = await api(`/v1/sessions/${id}?messages=2`, { token: tokens.alice });
    expect(latest.json.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    expect(latest.json.earlierMessages).toBe(true);
    expect((await api(`/v1/sessions/${id}?messages=lots`, { token: tokens.alice })).status).toBe(400);
    const listed = await api('/v1/sessions', { token: tokens.alice });
    expect(listed.json.sessions.map((session: { id: string }) => session.id)).toContain(id);
  });

  it("another user's session: not listed, 403 to read or delete, 404 to run in; unknown ids 404", async () => {
    const { json } = await api('/v1/sessions', { token: tokens.alice, body: { agent: 'chat' } });
    const id = json.id as string;
    expect(
      (await api('/v1/sessions', { token: tokens.bob })).json.sessions.map((each: { id: string }) => each.id),
    ).not.toContain(id);
    const read = await api(`/v1/sessions/${id}`, { token: tokens.bob });
    expect(read.status).toBe(403);
    expect(read.json.detail).toBe('runs of another principal are not visible to role user');
    expect((await api(`/v1/sessions/${id}`, { token: tokens.bob, method: 'DELETE' })).status).toBe(403);
    const run = await api('/v1/runs', { token: tokens.bob, body: { agent: 'chat', input: 'hi', session: id } });
    expect(run.status).toBe(404);
    expect(run.json.type).toBe('https://wardrik.dev/problems/session_not_found');
    expect((await api('/v1/sessions/ses_nope', { token: tokens.alice })).status).toBe(404);
    // Outside the principal's scope of agents:
    const scoped = await api('/v1/sessions', { token: tokens.carol, body: { agent: 'chat' } });
    expect(scoped.status).toBe(403);
    expect((await api(`/v1/sessions/${id}`, { token: tokens.operator })).status).toBe(200);
  });

  it('state edits: operators change session and user keys, only admins app: keys; users none; bad input named', async () => {
    const { json } = await api('/v1/sessions', { token: tokens.alice, body: { agent: 'chat' } });
    const id = json.id as string;
    const byUser = await api(`/v1/sessions/${id}/state`, {
      token: tokens.alice,
      body: { set: { tier: 'gold' }, reason: 'me' },
    });
    expect(byUser.status).toBe(403);
    expect(byUser.json.detail).toBe("role user may not edit sessions' state");
    const byOperator = await api(`/v1/sessions/${id}/state`, {
      token: tokens.operator,
      body: { set: { tier: 'gold', 'user:vip': true }, reason: 'ticket 12' },
    });
    expect(byOperator.status).toBe(200);
    expect(byOperator.json.state.map((each: { key: string }) => each.key)).toEqual(['tier', 'user:vip']);
    expect(byOperator.json.edits).toMatchObject([{ by: 'operator', reason: 'ticket 12' }]);
    const appByOperator = await api(`/v1/sessions/${id}/state`, {
      token: tokens.operator,
      body: { set: { 'app:flag': 1 }, reason: 'x' },
    });
    expect(appByOperator.status).toBe(403);
    expect(
      (await api(`/v1/sessions/${id}/state`, { token: tokens.admin, body: { set: { 'app:flag': 1 }, reason: 'x' } }))
        .status,
    ).toBe(200);
    const bad = await api(`/v1/sessions/${id}/state`, {
      token: tokens.admin,
      body: { set: { 'temp:x': 1 }, reason: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toContain('set.temp:x: temp: keys live in one run only');
    const noReason = await api(`/v1/sessions/${id}/state`, { token: tokens.admin, body: { set: { a: 1 } } });
    expect(noReason.status).toBe(400);
    expect(JSON.stringify(noReason.json)).toContain('reason');
  });

  it('a second run while the first is going is refused 409 naming it; delete refuses a busy session, then deletes', async () => {
    const { json } = await api('/v1/sessions', { token: tokens.alice, body: { agent: 'slow', id: 'my-chat' } });
    expect(json.id).toBe('my-chat');
    const again = await api('/v1/sessions', { token: tokens.alice, body: { agent: 'slow', id: 'my-chat' } });
    expect(again.status).toBe(400);
    expect((await api('/v1/sessions', { token: tokens.alice, body: { agent: 'slow', id: 'bad id' } })).status).toBe(
      400,
    );
    const first = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'slow', input: 'hi', session: 'my-chat' },
    });
    const second = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'slow', input: 'hi', session: 'my-chat' },
    });
    expect(second.status).toBe(409);
    expect(second.json.type).toBe('https://wardrik.dev/problems/session_busy');
    expect(second.json.detail).toContain(`its run ${first.json.runId} is running`);
    const busyDelete = await api('/v1/sessions/my-chat', { token: tokens.alice, method: 'DELETE' });
    expect(busyDelete.status).toBe(409);
    await wardrik.wait(first.json.runId);
    expect((await api('/v1/sessions/my-chat', { token: tokens.alice, method: 'DELETE' })).status).toBe(204);
    expect((await api('/v1/sessions/my-chat', { token: tokens.alice })).status).toBe(404);
  });

  it('is in the OpenAPI document', async () => {
    const { json } = await api('/v1/openapi.json');
    expect(Object.keys(json.paths)).toEqual(
      expect.arrayContaining(['/v1/sessions', '/v1/sessions/{id}', '/v1/sessions/{id}/state']),
    );
  });
});
