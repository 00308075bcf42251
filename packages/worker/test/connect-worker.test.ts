import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectWorker } from '../src/connect-worker.js';
import type { WorkerConnection, WorkerStatusEvent } from '../src/connection-loop.js';
import { WorkerError } from '../src/errors.js';
import type { WardrikListing } from '../src/wardrik-listed.js';
import { WardrikDouble } from './wardrik-double.js';

const TOKEN = 'secret-token';
let wardrik: WardrikDouble;
const connections: WorkerConnection[] = [];

beforeEach(async () => {
  wardrik = await WardrikDouble.start(TOKEN);
});

afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  await wardrik.close();
});

function connect(server: McpServer, options: Partial<Parameters<typeof connectWorker>[0]> = {}): WorkerConnection {
  const connection = connectWorker({
    url: wardrik.url,
    token: TOKEN,
    server,
    reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
  connections.push(connection);
  return connection;
}

function ordersServer(): { server: McpServer; seen: { args: unknown; meta: unknown }[] } {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  const seen: { args: unknown; meta: unknown }[] = [];
  server.registerTool(
    'lookup_order',
    {
      title: 'Look up an order',
      description: 'Finds an order by id.',
      inputSchema: { orderId: z.string().describe('the order id'), verbose: z.boolean().optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      seen.push({ args, meta: extra._meta });
      return { content: [{ type: 'text', text: `order ${args.orderId} is shipped` }] };
    },
  );
  return { server, seen };
}

describe('connectWorker', () => {
  it('sends the bearer token to /v1/workers and becomes ready', async () => {
    const { server } = ordersServer();
    const statuses: WorkerStatusEvent[] = [];
    const connection = connect(server, { onStatus: (event) => statuses.push(event) });
    expect(connection.status).toBe('connecting');
    await (await wardrik.nextSession()).handshake();
    await connection.ready;
    expect(connection.status).toBe('connected');
    expect(wardrik.authorizations).toEqual([`Bearer ${TOKEN}`]);
    expect(statuses.map((event) => event.status)).toEqual(['connecting', 'connected']);
  });

  it('answers initialize and lists the tools with their schema and hints', async () => {
    const { server } = ordersServer();
    connect(server);
    const session = await wardrik.nextSession();
    const initialized = await session.initialize();
    expect(initialized['serverInfo']).toEqual({ name: 'orders', version: '1.0.0' });
    expect(initialized['capabilities']).toMatchObject({ tools: { listChanged: true } });
    const tools = await session.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool?.name).toBe('lookup_order');
    expect(tool?.description).toBe('Finds an order by id.');
    expect(tool?.inputSchema).toMatchObject({
      type: 'object',
      properties: { orderId: { type: 'string', description: 'the order id' }, verbose: { type: 'boolean' } },
      required: ['orderId'],
    });
    expect(tool?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  it('runs tools/call with the arguments, shows _meta to the handler and returns the result', async () => {
    const { server, seen } = ordersServer();
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    const response = await session.callTool('lookup_order', { orderId: 'A-17' }, { idempotencyKey: 'run_1:3' });
    expect(response.result).toEqual({ content: [{ type: 'text', text: 'order A-17 is shipped' }] });
    expect(seen).toEqual([
      {
        args: { orderId: 'A-17' },
        meta: { agent: 'support', run: 'run_1', principal: 'acme', idempotencyKey: 'run_1:3' },
      },
    ]);
  });

  it('reports wrong arguments as a tool error the model can read', async () => {
    const { server, seen } = ordersServer();
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    const response = await session.callTool('lookup_order', { orderId: 17 });
    expect(response.result?.['isError']).toBe(true);
    expect(JSON.stringify(response.result)).toContain('orderId');
    expect(seen).toEqual([]);
  });

  it('aborts the handler signal on notifications/cancelled', async () => {
    const server = new McpServer({ name: 'slow', version: '1.0.0' });
    let aborted: (reason: unknown) => void = () => {};
    const abortedReason = new Promise((resolve) => {
      aborted = resolve;
    });
    let started: () => void = () => {};
    const startedPromise = new Promise<void>((resolve) => {
      started = resolve;
    });
    server.registerTool('wait', { description: 'Waits until cancelled.' }, async (extra) => {
      started();
      await new Promise<void>((resolve) => {
        extra.signal.addEventListener('abort', () => {
          aborted(extra.signal.reason);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'cancelled' }] };
    });
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    void session.send('tools/call', { name: 'wait', arguments: {}, _meta: { idempotencyKey: 'k' } }, 'call-1');
    await startedPromise;
    session.notify('notifications/cancelled', { requestId: 'call-1', reason: 'the run stopped waiting' });
    expect(String(await abortedReason)).toContain('the run stopped waiting');
    // A cancelled request is not answered.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(session.received.some((message) => message.id === 'call-1')).toBe(false);
  });

  it('sends notifications/progress for a call with a progressToken', async () => {
    const server = new McpServer({ name: 'progress', version: '1.0.0' });
    server.registerTool('work', { description: 'Reports progress.' }, async (extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: 1, total: 2, message: 'half way' },
        });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    });
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    const response = await session.callTool('work', {}, { progressToken: 'p-1' });
    expect(response.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    const progress = await session.waitFor((message) => message.method === 'notifications/progress');
    expect(progress.params).toEqual({ progressToken: 'p-1', progress: 1, total: 2, message: 'half way' });
  });

  it('answers ping', async () => {
    const { server } = ordersServer();
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    expect(await session.request('ping')).toEqual({});
  });

  it('sends tools/list_changed when a tool is added after connecting, and lists it', async () => {
    const { server } = ordersServer();
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    expect((await session.listTools()).map((tool) => tool.name)).toEqual(['lookup_order']);
    const mark = session.received.length;
    const refund = server.registerTool(
      'refund_order',
      {
        description: 'Refunds an order.',
        inputSchema: { orderId: z.string() },
        annotations: { destructiveHint: true },
      },
      async ({ orderId }) => ({ content: [{ type: 'text', text: `refunded ${orderId}` }] }),
    );
    await session.waitFor((message) => message.method === 'notifications/tools/list_changed', 5_000, mark);
    const tools = await session.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['lookup_order', 'refund_order']);
    expect(tools[1]?.annotations).toEqual({ destructiveHint: true });

    const second = session.received.length;
    refund.remove();
    await session.waitFor((message) => message.method === 'notifications/tools/list_changed', 5_000, second);
    expect((await session.listTools()).map((tool) => tool.name)).toEqual(['lookup_order']);
  });

  it('reconnects after the server drops the connection, and the tools work again', async () => {
    const { server, seen } = ordersServer();
    const statuses: string[] = [];
    const connection = connect(server, { onStatus: (event) => statuses.push(event.status) });
    const first = await wardrik.nextSession();
    await first.initialize();
    await first.callTool('lookup_order', { orderId: 'A-1' });
    first.socket.terminate(); // the connection is lost without a closing handshake

    const second = await wardrik.nextSession();
    await second.initialize();
    expect((await second.listTools()).map((tool) => tool.name)).toEqual(['lookup_order']);
    const response = await second.callTool('lookup_order', { orderId: 'A-2' });
    expect(response.result).toEqual({ content: [{ type: 'text', text: 'order A-2 is shipped' }] });
    expect(seen.map((call) => call.args)).toEqual([{ orderId: 'A-1' }, { orderId: 'A-2' }]);
    expect(connection.status).toBe('connected');
    expect(statuses).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);

    // And again, after a clean close from the server side.
    second.socket.close(1001, 'going away');
    const third = await wardrik.nextSession();
    await third.initialize();
    expect((await third.callTool('lookup_order', { orderId: 'A-3' })).result).toBeDefined();
    expect(wardrik.upgrades).toBe(3);
  });

  it('aborts calls in flight when the connection drops', async () => {
    const server = new McpServer({ name: 'slow', version: '1.0.0' });
    let resolveAborted: () => void = () => {};
    const aborted = new Promise<void>((resolve) => {
      resolveAborted = resolve;
    });
    let started: () => void = () => {};
    const startedPromise = new Promise<void>((resolve) => {
      started = resolve;
    });
    server.registerTool('wait', { description: 'Waits.' }, async (extra) => {
      extra.signal.addEventListener('abort', () => resolveAborted());
      started();
      await aborted;
      return { content: [] };
    });
    connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    void session.callTool('wait', {}).catch(() => {});
    await startedPromise;
    session.socket.terminate();
    await aborted;
    const next = await wardrik.nextSession();
    await next.initialize();
  });

  it('drops a connection whose pings go unanswered, and reconnects', async () => {
    const { server } = ordersServer();
    const errors: Error[] = [];
    connect(server, { heartbeatIntervalMs: 50, onError: (error) => errors.push(error) });
    const first = await wardrik.nextSession();
    await first.initialize();
    first.socket.pause(); // the server side stops reading: no pongs, as on a dead network path
    const second = await wardrik.nextSession();
    await second.initialize();
    expect(await second.request('ping')).toEqual({});
    expect(errors.some((error) => error.message.includes('did not answer a ping'))).toBe(true);
  });

  it('gives up on an unreachable Wardrik after maxAttempts, naming the network error', async () => {
    const { server } = ordersServer();
    await wardrik.close(); // nothing listens on its port now
    const connection = connect(server, { reconnect: { initialDelayMs: 5, maxAttempts: 2 } });
    await expect(connection.ready).rejects.toThrow(/gave up after 2 failed attempts.*ECONNREFUSED/);
    wardrik = await WardrikDouble.start(TOKEN); // for afterEach
  });

  it('keeps retrying while Wardrik answers 503, then connects', async () => {
    wardrik.refuse = (upgrade) =>
      upgrade <= 2 ? { status: 503, body: '{"title":"Unavailable","detail":"starting"}' } : undefined;
    const { server } = ordersServer();
    const events: WorkerStatusEvent[] = [];
    const connection = connect(server, { onStatus: (event) => events.push(event) });
    await (await wardrik.nextSession()).handshake();
    await connection.ready;
    expect(wardrik.upgrades).toBe(3);
    const retries = events.filter((event) => event.retryInMs !== undefined);
    expect(retries.map((event) => [event.status, event.attempt])).toEqual([
      ['connecting', 2],
      ['connecting', 3],
    ]);
    expect(retries[0]?.error?.message).toContain('503');
    expect(retries[0]?.error?.message).toContain('Unavailable: starting');
  });

  it('rejects ready with the reason on a bad token, and does not retry', async () => {
    const { server } = ordersServer();
    const events: WorkerStatusEvent[] = [];
    const connection = connect(server, { token: 'wrong', onStatus: (event) => events.push(event) });
    const error = await connection.ready.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(WorkerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'worker_unauthorized',
      status: 401,
      reason: 'Unauthorized: the bearer token is not known',
    });
    expect(String((error as Error).message)).toContain('the bearer token is not known');
    expect(connection.status).toBe('closed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(wardrik.upgrades).toBe(1);
    expect(events.at(-1)).toMatchObject({ status: 'closed', error });
  });

  it('rejects ready on 403 with the reason', async () => {
    wardrik.refuse = () => ({
      status: 403,
      body: '{"title":"Forbidden","detail":"this principal may not serve agents"}',
    });
    const { server } = ordersServer();
    const connection = connect(server);
    await expect(connection.ready).rejects.toMatchObject({
      code: 'worker_forbidden',
      status: 403,
      reason: 'Forbidden: this principal may not serve agents',
    });
    expect(wardrik.upgrades).toBe(1);
  });

  it('gives up after reconnect.maxAttempts failures', async () => {
    wardrik.refuse = () => ({ status: 502, body: 'Bad gateway' });
    const { server } = ordersServer();
    const connection = connect(server, { reconnect: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 3 } });
    await expect(connection.ready).rejects.toMatchObject({ code: 'worker_attempts_exhausted', status: 502 });
    expect(wardrik.upgrades).toBe(3);
    expect(connection.status).toBe('closed');
  });

  it('close() stops reconnecting and closes the connection', async () => {
    const { server } = ordersServer();
    const connection = connect(server);
    const session = await wardrik.nextSession();
    await session.initialize();
    await connection.close();
    expect(connection.status).toBe('closed');
    expect((await session.closed).code).toBe(1000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(wardrik.upgrades).toBe(1);
  });

  it('close() before connecting rejects ready with worker_closed', async () => {
    wardrik.refuse = () => ({ status: 503, body: '' });
    const { server } = ordersServer();
    const connection = connect(server);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await connection.close();
    await expect(connection.ready).rejects.toMatchObject({ code: 'worker_closed' });
  });

  it('rejects a server that is already connected elsewhere, without retrying', async () => {
    const { server } = ordersServer();
    const first = connect(server);
    await (await wardrik.nextSession()).handshake();
    await first.ready;
    const second = connect(server);
    await expect(second.ready).rejects.toMatchObject({ code: 'worker_server' });
    expect(second.status).toBe('closed');
  });
});

/*
 * `ready` means "Wardrik has your tools": it waits for Wardrik's `notifications/wardrik/listed`,
 * which the transport takes (the MCP server never sees it), and falls back to a timeout after
 * `tools/list` was answered for a Wardrik that never sends it.
 */

/** `ready` waits for Wardrik's word only (no fallback for an older Wardrik in these tests). */
const NO_FALLBACK = { listedTimeoutMs: 600_000 };

function lookupServer(): { server: McpServer; notifications: string[] } {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  server.registerTool('lookup', { description: 'Looks up.' }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  // Every notification the server gets that it has no handler of its own for.
  const notifications: string[] = [];
  server.server.fallbackNotificationHandler = async (notification) => {
    notifications.push(notification.method);
  };
  return { server, notifications };
}

/** Whether `promise` has settled by now (after the microtasks queued before this call). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('ready', () => {
  it('waits for Wardrik to say it listed the tools, which the MCP server never sees', async () => {
    const { server, notifications } = lookupServer();
    const listings: WardrikListing[] = [];
    const connection = connect(server, { ...NO_FALLBACK, onListed: (listing) => listings.push(listing) });
    const session = await wardrik.nextSession();
    await session.initialize();
    expect(await session.listTools()).toHaveLength(1);
    // The server answered tools/list and a ping after it: nothing but the notification makes it ready.
    expect(await session.request('ping')).toEqual({});
    expect(await settled(connection.ready)).toBe(false);
    expect(connection.status).toBe('connected');

    session.listed(1, [{ name: 'bad name!', reason: 'invalid name' }]);
    await connection.ready;
    expect(listings).toEqual([{ accepted: 1, rejected: [{ name: 'bad name!', reason: 'invalid name' }] }]);
    // The server got notifications/initialized, and nothing of Wardrik's own.
    session.notify('notifications/roots/list_changed');
    await expect.poll(() => notifications).toContain('notifications/roots/list_changed');
    expect(notifications).not.toContain('notifications/wardrik/listed');
  });

  it('falls back to listedTimeoutMs after tools/list was answered, for a Wardrik that never says so', async () => {
    const { server } = lookupServer();
    const listings: WardrikListing[] = [];
    const connection = connect(server, { listedTimeoutMs: 50, onListed: (listing) => listings.push(listing) });
    const session = await wardrik.nextSession();
    await session.initialize();
    expect(await session.request('ping')).toEqual({});
    // Not listed yet: the fallback does not start before tools/list is answered.
    expect(await settled(connection.ready)).toBe(false);
    await session.listTools();
    await connection.ready;
    expect(listings).toEqual([]);
  });

  it('a connection lost before the listing does not make it ready; the next one that is listed does', async () => {
    const { server } = lookupServer();
    const statuses: WorkerStatusEvent['status'][] = [];
    const connection = connect(server, { ...NO_FALLBACK, onStatus: (event) => statuses.push(event.status) });
    const first = await wardrik.nextSession();
    await first.initialize();
    await first.listTools();
    first.socket.terminate();
    await expect.poll(() => statuses).toContain('reconnecting');
    expect(await settled(connection.ready)).toBe(false);
    const second = await wardrik.nextSession();
    await second.handshake();
    await connection.ready;
    expect(wardrik.upgrades).toBe(2);
  });

  it('later listings and reconnections are reported to onListed and change nothing about ready', async () => {
    const { server } = lookupServer();
    const listings: WardrikListing[] = [];
    const connection = connect(server, { ...NO_FALLBACK, onListed: (listing) => listings.push(listing) });
    const first = await wardrik.nextSession();
    await first.handshake();
    const ready = connection.ready;
    await ready;
    server.registerTool('refund', { description: 'Refunds.' }, async () => ({ content: [] }));
    await first.waitFor((message) => message.method === 'notifications/tools/list_changed');
    first.listed((await first.listTools()).length);
    await expect.poll(() => listings.map((listing) => listing.accepted)).toEqual([1, 2]);
    first.socket.terminate();
    const second = await wardrik.nextSession();
    await second.handshake();
    await expect.poll(() => listings.map((listing) => listing.accepted)).toEqual([1, 2, 2]);
    expect(connection.ready).toBe(ready);
    await connection.ready;
  });
});

describe('a worker that predates notifications/wardrik/listed', () => {
  it('an official MCP SDK server ignores it, without an error, and keeps serving', async () => {
    const { server } = lookupServer();
    server.server.fallbackNotificationHandler = undefined; // as a server that handles nothing extra
    const errors: Error[] = [];
    server.server.onerror = (error) => errors.push(error);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'wardrik', version: '0.1.0' });
    await client.connect(clientSide);
    await client.listTools();
    const notification: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/wardrik/listed',
      params: { accepted: 1, rejected: [] },
    };
    await clientSide.send(notification);
    expect(await client.callTool({ name: 'lookup', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'ok' }],
    });
    expect(errors).toEqual([]);
    await client.close();
  });
});
