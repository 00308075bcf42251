import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectWorker } from '../src/connect-worker.js';
import type { WorkerConnection } from '../src/connection-loop.js';
import { WardrikDouble } from './wardrik-double.js';

let wardrik: WardrikDouble;
let connection: WorkerConnection | undefined;

beforeEach(async () => {
  wardrik = await WardrikDouble.start('t');
});

afterEach(async () => {
  await connection?.close();
  await wardrik.close();
});

it('serves a low-level Server, with tools/list pagination', async () => {
  const server = new Server({ name: 'low', version: '1.0.0' }, { capabilities: { tools: {} } });
  const pages: Record<string, { names: string[]; next?: string }> = {
    first: { names: ['a', 'b'], next: 'page-2' },
    'page-2': { names: ['c'] },
  };
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const page = pages[request.params?.cursor ?? 'first'];
    if (!page) throw new Error('bad cursor');
    return {
      tools: page.names.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
      ...(page.next ? { nextCursor: page.next } : {}),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => ({
    content: [{ type: 'text', text: `${request.params.name} for ${String(extra._meta?.['run'])}` }],
  }));
  connection = connectWorker({ url: wardrik.url, token: 't', server });
  const session = await wardrik.nextSession();
  await session.initialize();
  expect((await session.listTools()).map((tool) => tool.name)).toEqual(['a', 'b', 'c']);
  const response = await session.callTool('c', {}, { run: 'run_9' });
  expect(response.result).toEqual({ content: [{ type: 'text', text: 'c for run_9' }] });
});
