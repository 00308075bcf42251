// A worker: a program on another machine that connects to Wardrik and offers tools. It is an MCP
// server written with the official MCP SDK; `connectWorker` opens the connection from this side (a
// WebSocket to WARDRIK_URL/v1/workers with WARDRIK_TOKEN), so it needs no inbound port.
// examples/remote-worker.ts starts it as a child process; to run it against a `wardrik serve`:
//   WARDRIK_URL=http://127.0.0.1:4000 WARDRIK_TOKEN=wdk_… node --import tsx examples/worker.ts
// (the token from `wardrik tokens create --name warehouse-worker --role worker --agents stock`).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { connectWorker } from '@wardrik/worker';
import { z } from 'zod';

const url = process.env.WARDRIK_URL;
const token = process.env.WARDRIK_TOKEN;
if (!url || !token) {
  console.error('set WARDRIK_URL and WARDRIK_TOKEN');
  process.exit(2);
}

const stock: Record<string, number> = { 'tea-earl-grey': 12, 'tea-sencha': 0 };
const reserved = new Map<string, { sku: string; quantity: number }>(); // by idempotency key

const server = new McpServer({ name: 'warehouse', version: '1.0.0' });

server.registerTool(
  'stock_level',
  {
    description: 'How many of an item are in stock.',
    inputSchema: { sku: z.string() },
    // Every worker offering it marks it read-only: Wardrik lets it run on its own.
    annotations: { readOnlyHint: true },
  },
  async ({ sku }) => ({ content: [{ type: 'text', text: JSON.stringify({ sku, inStock: stock[sku] ?? 0 }) }] }),
);

server.registerTool(
  'reserve_stock',
  {
    description: 'Reserve items for an order.',
    inputSchema: { sku: z.string(), quantity: z.number().int().positive() },
    // Not read-only: Wardrik holds each call for a person's approval (rule worker-not-read-only).
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  async ({ sku, quantity }, extra) => {
    // What Wardrik sends with each call: the agent, the run, whom it acts for, and an
    // idempotency key that stays the same on every retry of this call.
    const meta = extra._meta ?? {};
    const key = String(meta.idempotencyKey);
    if (!reserved.has(key)) {
      if ((stock[sku] ?? 0) < quantity) {
        return { isError: true, content: [{ type: 'text', text: `only ${stock[sku] ?? 0} of ${sku} left` }] };
      }
      stock[sku] = (stock[sku] ?? 0) - quantity;
      reserved.set(key, { sku, quantity });
    }
    console.log(`reserved ${quantity} × ${sku} for agent ${meta.agent}, principal ${meta.principal} (key ${key})`);
    return { content: [{ type: 'text', text: JSON.stringify({ reserved: quantity, sku, left: stock[sku] }) }] };
  },
);

const worker = connectWorker({ url, token, server });
await worker.ready; // Wardrik has listed our tools; rejects at once if it refuses the token (401/403)
console.log('connected to Wardrik, offering stock_level and reserve_stock');

// Stop cleanly when asked: close the connection, then exit.
process.once('SIGTERM', () => {
  void worker.close().then(() => process.exit(0));
});
