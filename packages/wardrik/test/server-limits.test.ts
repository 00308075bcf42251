/*
 * The server's limits and timeouts, over real connections: a connection over maxConnections gets
 * 503, an event stream over maxStreamsPerPrincipal gets 429 (both a problem body naming the
 * setting, with Retry-After); clients that send headers or a body too slowly are cut off; event
 * streams and long answers are not. Small limits and timeouts, outcomes asserted, never durations.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, park, tool } from '@wardrik/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { checkConfig } from '../src/config/config.js';
import { loadConfig } from '../src/config/load-config.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, type ServerOptions, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { SseReader } from './sse-client.js';
import { SLOW, until } from './workers-env.js';

const hold = tool({
  name: 'hold',
  description: 'Waits for a person.',
  run: (_args, context) => (context.approval ? ok('released') : park('waiting for a person')),
});
const holding = defineAgent({
  name: 'holding',
  instructions: '',
  tools: [hold],
  model: new ScriptedModel((request) =>
    request.step === 1 ? { toolCalls: [{ name: 'hold', arguments: {} }] } : { text: 'done' },
  ),
});
/** Answers after `delayMs`, longer than the request timeout of the tests that use it. */
const slow = defineAgent({
  name: 'slow',
  instructions: '',
  model: new ScriptedModel(() => ({ text: 'finally', delayMs: 1_000 })),
});

let wardrik: Wardrik;
let auth: AuthService;
let server: RunningServer | undefined;
const tokens: Record<string, string> = {};
const sockets: Socket[] = [];

beforeAll(async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'wardrik-limits-')), 'wardrik.db');
  wardrik = await createWardrik({ store: sqliteStore(path), agents: [holding, slow] });
  auth = new AuthService(wardrik.store);
  tokens.admin = (await auth.ensureAdmin())?.token ?? '';
  for (const name of ['alice', 'bob']) {
    tokens[name] = (await auth.createPrincipalWithToken({ name, kind: 'user', role: 'user', agents: ['*'] })).token;
  }
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await wardrik?.close();
});

async function serve(options: Partial<ServerOptions>): Promise<RunningServer> {
  server = await startServer({ wardrik, auth, port: 0, ...options });
  return server;
}

/** A raw TCP connection to the server, connected. */
function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server?.port ?? 0, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** What a raw connection received until the server closed it. */
interface Received {
  readonly status: number | undefined;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function receivedUntilClosed(socket: Socket): Promise<Received> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    socket.once('close', () => resolve(parseResponse(text)));
  });
}

function parseResponse(text: string): Received {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: status === undefined ? undefined : Number(status), headers, body: rest.join('\r\n\r\n') };
}

/** Sends one request on a new raw connection and reads until the server closes it. */
async function exchange(request: string): Promise<Received> {
  const socket = await open();
  const received = receivedUntilClosed(socket);
  socket.write(request);
  return received;
}

const healthRequest = 'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

async function parkedRun(token: string): Promise<string> {
  const response = await fetch(`${server?.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'holding', input: 'hold on', wait: true }),
  });
  return ((await response.json()) as { runId: string }).runId;
}

function events(runId: string, token: string): Promise<Response> {
  return fetch(`${server?.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${token}` } });
}

async function answerPark(runId: string): Promise<void> {
  const [open] = await wardrik.listParks({ runId, status: 'open' });
  await wardrik.answerPark(open?.id ?? '', { type: 'retry' }, { callHash: open?.callHash ?? '', by: 'test' });
}

describe('connection limit (maxConnections)', () => {
  it('answers a connection over the limit 503 with a problem naming the setting and Retry-After', {
    timeout: SLOW,
  }, async () => {
    await serve({ maxConnections: 3 });
    const idle = [await open(), await open(), await open()];

    const refused = await exchange(healthRequest);
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.headers['retry-after']).toBe('5');
    const problem = JSON.parse(refused.body) as { status: number; detail: string };
    expect(problem.status).toBe(503);
    expect(problem.detail).toMatch(/3 connections open.*maxConnections, server\.maxConnections/);

    // A worker's WebSocket upgrade over the limit is refused the same way.
    const upgrade = await exchange(
      'GET /v1/workers HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${tokens.admin}\r\n\r\n`,
    );
    expect(upgrade.status).toBe(503);
    expect(upgrade.headers['retry-after']).toBe('5');

    // Once connections close, new ones are served again.
    for (const socket of idle) socket.destroy();
    await until(
      async () => (await exchange(healthRequest)).status === 200,
      SLOW,
      () => 'health to answer 200',
    );
  });
});

describe('event streams per principal (maxStreamsPerPrincipal)', () => {
  it("answers one stream too many 429 with a problem naming the setting; others' streams and freed slots are served", {
    timeout: SLOW,
  }, async () => {
    await serve({ maxStreamsPerPrincipal: 2 });
    // Streams refused for another reason give their slot back.
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await events('run_missing', tokens.admin ?? '')).status).toBe(404);
    }
    const runId = await parkedRun(tokens.admin ?? '');
    const first = await events(runId, tokens.admin ?? '');
    const second = await events(runId, tokens.admin ?? '');
    expect([first.status, second.status]).toEqual([200, 200]);

    const third = await events(runId, tokens.admin ?? '');
    expect(third.status).toBe(429);
    expect(third.headers.get('content-type')).toBe('application/problem+json');
    expect(third.headers.get('retry-after')).toBe('5');
    const problem = (await third.json()) as { detail: string };
    expect(problem.detail).toMatch(
      /admin has 2 event streams open.*maxStreamsPerPrincipal, server\.maxStreamsPerPrincipal/,
    );

    const aliceRun = await parkedRun(tokens.alice ?? '');
    const alices = await events(aliceRun, tokens.alice ?? '');
    expect(alices.status).toBe(200);

    await first.body?.cancel();
    await until(
      async () => {
        const again = await events(runId, tokens.admin ?? '');
        await again.body?.cancel();
        return again.status === 200;
      },
      SLOW,
      () => 'a stream to be served once one closed',
    );
    await Promise.all([second.body?.cancel(), alices.body?.cancel()]);
    await answerPark(runId);
    await answerPark(aliceRun);
  });
});

describe('timeouts', () => {
  const quick = { headersTimeoutMs: 300, requestTimeoutMs: 600 };

  it('closes a connection that sends no request, or its headers too slowly (headersTimeoutMs)', {
    timeout: SLOW,
  }, async () => {
    await serve(quick);
    const silent = await open();
    const silentOutcome = await receivedUntilClosed(silent);
    expect([undefined, 408]).toContain(silentOutcome.status);

    const trickling = await open();
    const trickled = receivedUntilClosed(trickling);
    trickling.write('GET /v1/health HTTP/1.1\r\nHost: localhost\r\n');
    const timer = setInterval(() => trickling.write('X-Slow: 1\r\n', () => {}), 50);
    const outcome = await trickled;
    clearInterval(timer);
    expect([undefined, 408]).toContain(outcome.status);
    expect((await exchange(healthRequest)).status).toBe(200);
  });

  it('cuts off a body that trickles in too slowly (requestTimeoutMs) with 408 or a closed connection', {
    timeout: SLOW,
  }, async () => {
    await serve(quick);
    const body = JSON.stringify({ agent: 'holding', input: 'x'.repeat(400) });
    const socket = await open();
    const received = receivedUntilClosed(socket);
    socket.write(
      `POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${tokens.alice}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    let sent = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && sent < body.length) socket.write(body[sent++] ?? '', () => {});
    }, 50);
    const outcome = await received;
    clearInterval(timer);
    expect(sent).toBeLessThan(body.length);
    expect([undefined, 408]).toContain(outcome.status);
    expect((await exchange(healthRequest)).status).toBe(200);
  });

  it('keeps event streams and long answers open past the request timeout', { timeout: SLOW }, async () => {
    await serve({ headersTimeoutMs: 100, requestTimeoutMs: 200, heartbeatMs: 20 });
    const runId = await parkedRun(tokens.bob ?? '');
    const response = await events(runId, tokens.bob ?? '');
    const stream = new SseReader(response);
    await stream.until((event) => event.event === 'run-parked');
    // 30 heartbeats 20 ms apart span three times the request timeout, however slow the machine.
    await stream.until(() => false, { comments: 30 });
    expect(stream.ended).toBe(false);
    expect(stream.comments).toBeGreaterThanOrEqual(30);
    await answerPark(runId);
    expect((await stream.until((event) => event.event === 'run-ended')).at(-1)?.event).toBe('run-ended');
    await stream.cancel();

    const started = await fetch(`${server?.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'slow', input: 'take your time', wait: true }),
    });
    expect(started.status).toBe(201);
    expect(((await started.json()) as { output: string }).output).toBe('finally');
  });

  it('closes an idle keep-alive connection after keepAliveTimeoutMs', { timeout: SLOW }, async () => {
    await serve({ keepAliveTimeoutMs: 1_000 });
    const socket = await open();
    const received = receivedUntilClosed(socket);
    socket.write('GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const outcome = await received;
    expect(outcome.status).toBe(200);
    expect(outcome.headers['keep-alive']).toBe('timeout=1');
  });
});

describe('settings', () => {
  it('startServer refuses a wrong limit, naming it', async () => {
    await expect(startServer({ wardrik, auth, port: 0, maxConnections: 0 })).rejects.toThrow(
      'server settings: maxConnections: expected a positive whole number, got 0',
    );
    await expect(
      startServer({ wardrik, auth, port: 0, headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 }),
    ).rejects.toThrow('headersTimeoutMs: must be at most requestTimeoutMs (1000), got 5000');
  });

  it("the config's server section takes the limits, checks them, and loadConfig passes them on", async () => {
    const agent = {
      name: 'a',
      instructions: '',
      tools: new Map(),
      toolDefinitions: [],
      model: { id: 'm', generate: () => undefined },
    };
    expect(() => checkConfig({ agents: [agent], server: { maxStreamsPerPrincipal: -1 } }, 'config')).toThrow(
      'config.server.maxStreamsPerPrincipal: expected a positive whole number, got -1',
    );
    expect(() => checkConfig({ agents: [agent], server: { requestTimeoutMs: 2_000 } }, 'config')).toThrow(
      'config.server.headersTimeoutMs: must be at most requestTimeoutMs (2000), got 10000',
    );
    expect(() => checkConfig({ agents: [agent], server: { maxConections: 5 } }, 'config')).toThrow(
      /config\.server\.maxConections: unknown setting \(expected .*maxConnections, maxStreamsPerPrincipal/,
    );

    const directory = mkdtempSync(join(tmpdir(), 'wardrik-limits-config-'));
    const file = join(directory, 'wardrik.config.mjs');
    writeFileSync(
      file,
      `export default {
        agents: [{ name: 'a', instructions: '', tools: new Map(), toolDefinitions: [], model: { id: 'm', generate() {} } }],
        server: { port: 0, maxConnections: 50, maxStreamsPerPrincipal: 5, headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, revocationCheckMs: 500 },
      };\n`,
    );
    const config = await loadConfig(file);
    await config.store.close();
    expect(config.limits).toEqual({
      maxConnections: 50,
      maxStreamsPerPrincipal: 5,
      headersTimeoutMs: 2000,
      requestTimeoutMs: 4000,
      keepAliveTimeoutMs: 1000,
      revocationCheckMs: 500,
    });
  });
});
