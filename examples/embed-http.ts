// An app that embeds Wardrik in the HTTP server it already has (node:http), behind its own
// sign-in. Wardrik's API is a Hono app (`createApp`) mounted under /v1 of the app's server, and
// its `auth` option — an `AuthService`, the same `startServer` takes — is built from the app's
// users:
// - `new AuthService(store)` keeps principals and tokens in Wardrik's store;
// - when someone signs in to the app, the app gets a Wardrik token for them (`auth.tokenFor`),
//   with the role its own roles map to (customers: `user`, managers: `operator`), and keeps it in
//   its session, server-side: the browser only ever holds the app's cookie;
// - requests to /v1 with that cookie reach Wardrik with `Authorization: Bearer <their token>`,
//   so Wardrik's own checks (who may start runs, read them, answer parks) apply to the app's users;
// - signing out revokes the token.
// `startServer({ wardrik, auth, port })` takes the same `auth` when Wardrik gets a port of its own.
//
// Mounting uses `getRequestListener` from `@hono/node-server` (npm install @hono/node-server),
// which turns Node's request into a web `Request` for the Hono app and writes its `Response` back.
// Workers could connect on the same port too: `attachWorkerEndpoint(server, { auth, hub: wardrik.workers })`.
//
// Offline: a scripted model, a SQLite file in a temp folder, the server on 127.0.0.1. Run:
//   node --conditions=@wardrik/source --import tsx examples/embed-http.ts
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { getRequestListener } from '@hono/node-server';
import { park, tool } from '@wardrik/core';
import { AuthService, createApp, createWardrik, defineAgent, type Role, sqliteStore } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

// ── Wardrik: an agent whose refunds over 100 wait for a manager ───────────────────────────────

const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  run: ({ order_id, amount }, context) =>
    amount > 100 && !context.approval ? park(`refund of ${amount} needs a manager`) : { refunded: amount, order_id },
});
const support = defineAgent({
  name: 'support',
  instructions: 'Help customers with their orders.',
  tools: [refund],
  model: new ScriptedModel([
    { toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 250 } }] },
    (request) => ({ text: `Refunded: ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
  ]),
});

const folder = mkdtempSync(join(tmpdir(), 'wardrik-embed-http-'));
const store = sqliteStore(join(folder, 'wardrik.db'));
const wardrik = await createWardrik({ store, agents: [support] });
const auth = new AuthService(store);
const api = createApp({ wardrik, auth });

// ── The app: its own users, sign-in and sessions ──────────────────────────────────────────────

/** The app's users (a real app checks a password hash, or signs in with OAuth). */
const users: Record<string, { password: string; role: 'customer' | 'manager' }> = {
  'ada@shop.example': { password: 'tea', role: 'customer' },
  'ana@shop.example': { password: 'scones', role: 'manager' },
};
/** What an app role may do in Wardrik. */
const wardrikRole: Record<'customer' | 'manager', Role> = { customer: 'user', manager: 'operator' };
/** Signed-in sessions by cookie: who, and their Wardrik token (never sent to the browser). */
const sessions = new Map<string, { user: string; token: string; tokenId: string }>();

function sessionOf(cookieHeader: string | null | undefined) {
  const id = /(?:^|;\s*)sid=([^;]+)/.exec(cookieHeader ?? '')?.[1];
  return id === undefined ? undefined : sessions.get(id);
}

// Wardrik's API, with the signed-in user's token put in for them.
const wardrikRoutes = getRequestListener((request) => {
  const signedIn = sessionOf(request.headers.get('cookie'));
  if (!signedIn || request.headers.has('authorization')) return api.fetch(request);
  const headers = new Headers(request.headers);
  headers.set('authorization', `Bearer ${signedIn.token}`);
  return api.fetch(new Request(request, { headers }));
});

const server = createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://app').pathname;
  if (path.startsWith('/v1/')) return wardrikRoutes(request, response);

  if (request.method === 'POST' && path === '/login') {
    const { user, password } = JSON.parse(await text(request)) as { user: string; password: string };
    const account = users[user];
    if (!account || account.password !== password) return reply(response, 401, { error: 'wrong user or password' });
    // The app's user becomes a Wardrik principal of the same name (created the first time),
    // and gets a token of its own for this session.
    const issued = await auth.tokenFor({ name: user, role: wardrikRole[account.role], agents: ['support'] });
    const sid = randomBytes(24).toString('base64url');
    sessions.set(sid, { user, token: issued.token, tokenId: issued.info.id });
    response.setHeader('set-cookie', `sid=${sid}; HttpOnly; SameSite=Strict; Path=/`);
    return reply(response, 200, { user, role: account.role });
  }
  if (request.method === 'POST' && path === '/logout') {
    const cookie = request.headers.cookie;
    const signedIn = sessionOf(cookie);
    if (signedIn) {
      await auth.revokeToken(signedIn.tokenId); // the token stops working at once
      sessions.delete(/sid=([^;]+)/.exec(cookie ?? '')?.[1] ?? '');
    }
    return reply(response, 200, { signedOut: true });
  }
  if (path === '/')
    return reply(response, 200, { shop: 'Tea & Co', signedIn: sessionOf(request.headers.cookie)?.user });
  return reply(response, 404, { error: 'not found' });
});

function reply(response: import('node:http').ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
async function text(request: import('node:http').IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
console.log(`the app listens on ${base}, with Wardrik's API under ${base}/v1`);

// ── A client: a browser would do the same with its cookie ─────────────────────────────────────

async function signIn(user: string, password: string): Promise<string> {
  const response = await fetch(`${base}/login`, { method: 'POST', body: JSON.stringify({ user, password }) });
  assert.equal(response.status, 200);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}
async function call(cookie: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

try {
  const nobody = await call('', 'GET', '/v1/runs');
  console.log(`not signed in: GET /v1/runs → ${nobody.status} ${nobody.body.detail}`);
  assert.equal(nobody.status, 401);

  const ada = await signIn('ada@shop.example', 'tea');
  const started = await call(ada, 'POST', '/v1/runs', { agent: 'support', input: 'Refund order A1', wait: true });
  const runId = String(started.body.runId);
  console.log(`ada (customer → user) starts a run: ${started.status}, ${runId} is ${started.body.status}`);
  assert.equal(started.body.status, 'parked');
  const [held] = started.body.parks as Array<{ id: string; callHash: string; reason: string }>;
  assert.ok(held);
  console.log(`  it waits: ${held.reason}`);

  const approval = { decision: { type: 'approve' }, callHash: held.callHash };
  const refused = await call(ada, 'POST', `/v1/parks/${held.id}/answer`, approval);
  console.log(`ada answers it herself: ${refused.status} ${refused.body.detail}`);
  assert.equal(refused.status, 403);

  const ana = await signIn('ana@shop.example', 'scones');
  const answered = await call(ana, 'POST', `/v1/parks/${held.id}/answer`, approval);
  console.log(`ana (manager → operator) approves it: ${answered.status}`);
  assert.equal(answered.status, 200);

  let run = await call(ada, 'GET', `/v1/runs/${runId}`);
  for (let tries = 0; run.body.status !== 'completed'; tries++) {
    assert.ok(tries < 200 && run.body.status !== 'failed', `the run is ${run.body.status}`);
    await sleep(50);
    run = await call(ada, 'GET', `/v1/runs/${runId}`);
  }
  console.log(`ada reads her run: ${run.body.status}: ${run.body.output}`);
  assert.match(String(run.body.output), /"refunded":250/);

  const principals = await auth.listPrincipals();
  console.log(
    `Wardrik principals: ${principals.map((principal) => `${principal.name} (${principal.role})`).join(', ')}`,
  );

  // Signing out ends the app's session and revokes the Wardrik token it held.
  const adaToken = sessionOf(ada)?.token;
  await call(ada, 'POST', '/logout');
  const gone = await call(ada, 'GET', `/v1/runs/${runId}`);
  const revoked = await fetch(`${base}/v1/runs`, { headers: { authorization: `Bearer ${adaToken}` } });
  console.log(
    `ada signed out: her cookie gets ${gone.status}; her old token gets ${revoked.status} ${((await revoked.json()) as { detail: string }).detail}`,
  );
  assert.equal(gone.status, 401);
  assert.equal(revoked.status, 401);
  assert.equal((await call(ana, 'GET', '/v1/runs')).status, 200); // ana is still signed in
  console.log('the app signed its users in to Wardrik');
} finally {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
  await wardrik.close();
  rmSync(folder, { recursive: true, force: true });
}
