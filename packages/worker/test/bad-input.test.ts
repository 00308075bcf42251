import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWorker } from '../src/connect-worker.js';
import type { WorkerConnection } from '../src/connection-loop.js';
import { eventually, WardrikDouble } from './wardrik-double.js';

const TOKEN = 'secret-token';
let wardrik: WardrikDouble;
let connection: WorkerConnection | undefined;

beforeEach(async () => {
  wardrik = await WardrikDouble.start(TOKEN);
});

afterEach(async () => {
  await connection?.close();
  connection = undefined;
  await wardrik.close();
});

function echoServer(): McpServer {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes.' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
  return server;
}

describe('bad input from the Wardrik side', () => {
  it('reports malformed frames, answers unreadable requests with Invalid Request, and keeps serving', async () => {
    const errors: Error[] = [];
    connection = connectWorker({
      url: wardrik.url,
      token: TOKEN,
      server: echoServer(),
      onError: (e) => errors.push(e),
    });
    const session = await wardrik.nextSession();
    await session.initialize();

    session.sendRaw('this is not json');
    session.sendRaw('{"jsonrpc":"2.0","id":'); // truncated
    session.sendRaw('{"hello":"world"}'); // JSON, not JSON-RPC
    session.sendRaw('[1,2,3]');
    session.sendRaw('{"jsonrpc":"1.0","id":41,"method":"ping"}'); // a request with a readable id
    session.sendRaw('{"jsonrpc":"2.0","id":42,"method":"tools/list","params":"oops"}');
    session.sendRaw(Buffer.from('{"jsonrpc":"2.0","id":43,"method":"ping"}'), true); // binary frame

    const invalid41 = await session.waitFor((message) => message.id === 41);
    expect(invalid41.error?.code).toBe(-32600);
    expect(invalid41.error?.message).toContain('Invalid request');
    const invalid42 = await session.waitFor((message) => message.id === 42);
    expect(invalid42.error?.code).toBe(-32600);

    // Still serving, on the same connection.
    expect(await session.request('ping')).toEqual({});
    expect((await session.callTool('echo', {})).result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(wardrik.upgrades).toBe(1);
    expect(connection.status).toBe('connected');

    await eventually(() => errors.length >= 7, 5_000, 'seven errors');
    const messages = errors.map((error) => error.message);
    expect(messages.filter((message) => message.includes('not JSON ('))).toHaveLength(2);
    expect(messages.filter((message) => message.includes('not a JSON-RPC 2.0'))).toHaveLength(4);
    expect(messages.filter((message) => message.includes('binary frames'))).toHaveLength(1);
    expect(messages.every((message) => message.startsWith('Malformed frame from Wardrik'))).toBe(true);
    expect(session.received.some((message) => message.id === 43)).toBe(false);
  });

  it('answers unknown methods and unknown tools with errors', async () => {
    connection = connectWorker({ url: wardrik.url, token: TOKEN, server: echoServer() });
    const session = await wardrik.nextSession();
    await session.initialize();
    const unknownMethod = await session.send('resources/teleport', {});
    expect(unknownMethod.error?.code).toBe(-32601);
    const unknownTool = await session.callTool('no_such_tool', {});
    expect(JSON.stringify(unknownTool)).toContain('no_such_tool');
    // Responses to requests the worker never made are ignored.
    session.sendRaw('{"jsonrpc":"2.0","id":999,"result":{}}');
    expect(await session.request('ping')).toEqual({});
  });

  it('closes with 1009 on a frame over maxPayloadBytes, then reconnects', async () => {
    const errors: Error[] = [];
    connection = connectWorker({
      url: wardrik.url,
      token: TOKEN,
      server: echoServer(),
      maxPayloadBytes: 2048,
      reconnect: { initialDelayMs: 10 },
      onError: (e) => errors.push(e),
    });
    const session = await wardrik.nextSession();
    await session.initialize();
    session.sendRaw(
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: { _meta: { pad: 'x'.repeat(4096) } } }),
    );
    expect((await session.closed).code).toBe(1009);
    const next = await wardrik.nextSession();
    await next.initialize();
    expect(await next.request('ping')).toEqual({});
  });

  it('answers a tools/call whose result is over the frame limit with an error', async () => {
    const server = new McpServer({ name: 'big', version: '1.0.0' });
    server.registerTool('big', { description: 'Too big.' }, async () => ({
      content: [{ type: 'text', text: 'y'.repeat(10_000) }],
    }));
    const errors: Error[] = [];
    connection = connectWorker({
      url: wardrik.url,
      token: TOKEN,
      server,
      maxPayloadBytes: 4096,
      onError: (e) => errors.push(e),
    });
    const session = await wardrik.nextSession();
    await session.initialize();
    const response = await session.callTool('big', {});
    expect(response.error?.code).toBe(-32603);
    expect(response.error?.message).toContain('exceeds the frame limit of 4096 bytes');
    expect(errors.some((error) => error.message.includes('its result message of'))).toBe(true);
  });
});
