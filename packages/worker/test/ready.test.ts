/*
 * `ready` means "Wardrik has your tools": it waits for Wardrik's `notifications/wardrik/listed`,
 * which the transport takes (the MCP server never sees it), and falls back to a timeout after
 * `tools/list` was answered for a Wardrik that never sends it. Against the WebSocket double, with
 * official MCP SDK servers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWorker } from '../src/connect-worker.js';
import type { WorkerConnection, WorkerStatusEvent } from '../src/connection-loop.js';
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

function connect(server: McpServer, options: Partial<Parameters<typeof connectWorker>[0]> = {}): WorkerConnection {
  const connection = connectWorker({
    url: wardrik.url,
    token: TOKEN,
    server,
    reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
    listedTimeoutMs: 600_000, // never, in these tests, unless a test says otherwise
    ...options,
  });
  connections.push(connection);
  return connection;
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
    const connection = connect(server, { onListed: (listing) => listings.push(listing) });
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
    const connection = connect(server, { onStatus: (event) => statuses.push(event.status) });
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
    const connection = connect(server, { onListed: (listing) => listings.push(listing) });
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
