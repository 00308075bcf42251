// The worker process of bench/workers.ts:
//   node --conditions=@wardrik/source --import tsx bench/workers-child.ts URL TOKEN ECHO_URL CONNECTIONS
// Connects CONNECTIONS MCP SDK servers (McpServer, one `echo` tool each) to Wardrik through
// connectWorker, and opens as many raw `ws` connections to ECHO_URL that answer each JSON-RPC
// request with the result the echo tool would give. Prints `ready` once all are connected.
// With WORKERS_CHILD_SERVER=minimal the workers are not McpServers but a minimal JSON-RPC responder
// on the same transport (no MCP SDK): it shows what the SDK's own per-request work costs.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { connectWorker, type WorkerServer } from '@wardrik/worker';
import { WebSocket } from 'ws';
import { z } from 'zod';

const [url, token, echoUrl, count = '1'] = process.argv.slice(2);
if (!url || !token || !echoUrl) process.exit(2);
const connections = Number(count);

function server(): McpServer {
  const mcp = new McpServer({ name: 'bench', version: '1.0.0' });
  mcp.registerTool(
    'echo',
    { description: 'Echoes its text.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return mcp;
}

const echoListing = {
  name: 'echo',
  description: 'Echoes its text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
};

/** Answers initialize, tools/list and tools/call by hand, with no MCP SDK in between. */
function minimalServer(): WorkerServer {
  return {
    async connect(transport: Transport) {
      transport.onmessage = (message: JSONRPCMessage) => {
        if (!('method' in message) || !('id' in message)) return;
        const params = message.params as { protocolVersion?: string; arguments?: { text?: string } } | undefined;
        const result =
          message.method === 'initialize'
            ? {
                protocolVersion: params?.protocolVersion,
                capabilities: { tools: {} },
                serverInfo: { name: 'bench', version: '1.0.0' },
              }
            : message.method === 'tools/list'
              ? { tools: [echoListing] }
              : message.method === 'tools/call'
                ? { content: [{ type: 'text', text: params?.arguments?.text }] }
                : {};
        void transport.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
      };
      await transport.start();
    },
    async close() {},
  };
}

function rawEcho(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(echoUrl as string);
    socket.on('message', (data) => {
      const request = JSON.parse(String(data)) as { id: number; params: { arguments: { text: string } } };
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { content: [{ type: 'text', text: request.params.arguments.text }] },
        }),
      );
    });
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
}

const workers = Array.from({ length: connections }, () =>
  connectWorker({
    url,
    token,
    server: process.env.WORKERS_CHILD_SERVER === 'minimal' ? minimalServer() : server(),
    heartbeatIntervalMs: 0,
  }),
);
await Promise.all([...workers.map((worker) => worker.ready), ...Array.from({ length: connections }, rawEcho)]);
process.stdout.write('ready\n');
process.on('SIGTERM', () => process.exit(0));
