// MCP at /mcp against its peers, in the same process and over the same transport (issue 27).
// Run with `npm run bench -- mcp`.
//
// 1. A read-only gateway tool (`support__lookup`) called over /mcp, next to the MCP SDK's own
//    McpServer doing the same work: its tool handler runs the same gateway agent
//    (`wardrik.run('support.gateway', …)`: the same durable run, journal and store) and answers
//    with the tool's result. Both are the SDK's Streamable HTTP transport
//    (WebStandardStreamableHTTPServerTransport, one session per client) on @hono/node-server,
//    listening on 127.0.0.1; the caller is the SDK's Client (StreamableHTTPClientTransport) in
//    this process. Target: ≤ 1.3×.
//    Shown beside, not targets: /mcp against the same McpServer whose handler starts the run
//    durably (`wardrik.start()`, whose start is on disk before it resolves, then `wait()`: as /mcp
//    starts a task's run; a call that is not a task starts without that barrier, as `run()` does),
//    and the durable McpServer against one whose handler calls the tool directly (`call()` from
//    @wardrik/core, nothing journaled).
// 2. An agent (`short`: one read-only tool call, then the answer) called over /mcp, next to the
//    same run started over the HTTP API (`POST /v1/runs` with `wait: true`, the same server, fetch
//    as the client like the MCP SDK's). Target: ≤ 1.2×.
//
// Calls are made one at a time (a round trip is the figure), in pairs: each pair calls both sides
// once, in alternating order, so a slow spell of the shared machine hits both. Figures are medians;
// the ratio is the median of the pairs' ratios (and, beside it, the ratio of the medians).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type CallToolResult, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { call, tool } from '@wardrik/core';
import {
  AuthService,
  createWardrik,
  defineAgent,
  mcpGatewayAgent,
  type RunResult,
  type SqliteStore,
  sqliteStore,
  startServer,
  type Wardrik,
} from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { z } from 'zod';
import { median, percentile, table } from './stats.js';

/** Measured pairs per comparison (`MCP_PAIRS`). */
const PAIRS = Number(process.env.MCP_PAIRS ?? 600);
/** Calls of each side before measuring, so every path is compiled (`MCP_WARM`). */
const WARM = Number(process.env.MCP_WARM ?? 200);
/** `SYNC=normal` measures with SQLite's `synchronous = NORMAL` (default FULL, as shipped). */
const synchronous = process.env.SYNC === 'normal' ? 'normal' : 'full';

export const TARGET_GATEWAY = 1.3;
export const TARGET_AGENT = 1.2;

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 1 }),
});
const support = defineAgent({
  name: 'support',
  instructions: 'Answers from the records.',
  tools: [lookup],
  model: new ScriptedModel([{ text: 'unused: support is called through its gateway here' }]),
});
const short = defineAgent({
  name: 'short',
  instructions: '',
  tools: [lookup],
  model: new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] }, { text: 'done' }]),
});

/** A call of one side: resolves when it answered as expected, throws otherwise. */
export type Side = () => Promise<void>;

interface Comparison {
  readonly label: string;
  readonly a: number[];
  readonly b: number[];
  readonly ratios: number[];
}

/** `WARM` calls of each side, then `PAIRS` pairs, the order within a pair alternating. */
async function compare(label: string, a: Side, b: Side): Promise<Comparison> {
  for (let index = 0; index < WARM; index++) {
    await a();
    await b();
  }
  const times: [number[], number[]] = [[], []];
  const ratios: number[] = [];
  const timed = async (side: Side, into: number[]) => {
    const began = performance.now();
    await side();
    const took = performance.now() - began;
    into.push(took);
    return took;
  };
  for (let pair = 0; pair < PAIRS; pair++) {
    let ta: number;
    let tb: number;
    if (pair % 2 === 0) {
      ta = await timed(a, times[0]);
      tb = await timed(b, times[1]);
    } else {
      tb = await timed(b, times[1]);
      ta = await timed(a, times[0]);
    }
    ratios.push(ta / tb);
  }
  return { label, a: times[0], b: times[1], ratios };
}

/** The MCP SDK's Client, connected over Streamable HTTP. */
async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'wardrik-bench', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/**
 * The MCP SDK's own server, as its examples build one: an McpServer and a Streamable HTTP
 * transport per session (Web Standard transport, the one /mcp uses), on @hono/node-server.
 */
async function sdkServer(
  register: (server: McpServer) => void,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const handle = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request);
    const body: unknown = request.method === 'POST' ? await request.json() : undefined;
    if (sessionId || !isInitializeRequest(body)) {
      return new Response(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null }),
        {
          status: 400,
          headers: { 'content-type': 'application/json' },
        },
      );
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    const server = new McpServer({ name: 'sdk-peer', version: '1.0.0' });
    register(server);
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };
  return new Promise((resolve) => {
    const server = serve({ fetch: handle, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({
        url: `http://127.0.0.1:${info.port}/mcp`,
        close: async () => {
          for (const transport of sessions.values()) await transport.close();
          await new Promise<void>((done) => server.close(() => done()));
        },
      }),
    );
  });
}

function expectLookup(result: unknown): void {
  const structured = (result as CallToolResult).structuredContent as { value?: unknown } | undefined;
  if ((result as CallToolResult).isError || structured?.value !== 1) {
    throw new Error(`unexpected result: ${JSON.stringify(result)}`);
  }
}

/** Every side this benchmark measures, on one runtime, and how to close them all. */
export interface McpBench {
  readonly wardrik: Wardrik;
  /** The runtime's store (its counters: commits, fsyncs). */
  readonly store: SqliteStore;
  readonly auth: AuthService;
  /** `support__lookup` over Wardrik's /mcp (a run of `support.gateway`). */
  readonly gatewayOverMcp: Side;
  /** `support__lookup` on the SDK's McpServer whose handler is `wardrik.run('support.gateway', …)`. */
  readonly sdkRun: Side;
  /** The same, its handler `wardrik.start()` then `wardrik.wait()`: a durable start (as /mcp starts a task's run). */
  readonly sdkStartWait: Side;
  /** `support__lookup` on the SDK's McpServer whose handler calls the tool directly (nothing journaled). */
  readonly sdkDirect: Side;
  /** Agent `short` over Wardrik's /mcp. */
  readonly agentOverMcp: Side;
  /** Agent `short` over the HTTP API, `POST /v1/runs` with `wait: true`. */
  readonly agentOverHttp: Side;
  close(): Promise<void>;
}

/** A runtime on a fresh SQLite file, `startServer` with /mcp, and the SDK's servers beside it, each with its client connected. */
export async function setUp(): Promise<McpBench> {
  const store = sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-mcp-bench-')), 'b.db'), { synchronous });
  const wardrik = await createWardrik({ store, agents: [support, mcpGatewayAgent(support), short] });
  const auth = new AuthService(wardrik.store);
  const admin = await auth.ensureAdmin();
  if (!admin) throw new Error('no admin token');
  const token = admin.token;
  const principal = admin.principal.id;
  const server = await startServer({ wardrik, auth, port: 0, mcp: { agents: ['short'], gateway: ['support'] } });

  const gatewayInput = (args: Record<string, unknown>) => JSON.stringify({ tool: 'lookup', arguments: args });
  const asResult = (result: RunResult): CallToolResult =>
    result.status !== 'completed' || result.output === undefined
      ? { content: [{ type: 'text', text: result.error ?? result.status }], isError: true }
      : { content: [{ type: 'text', text: result.output }], structuredContent: JSON.parse(result.output) };
  const lookupTool = (handler: (args: { key: string }) => Promise<CallToolResult>) => (peer: McpServer) =>
    peer.registerTool(
      'support__lookup',
      { description: 'Looks a key up.', inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } },
      handler,
    );
  // The SDK's server doing the same work: the gateway agent's durable run of the tool.
  const runPeer = await sdkServer(
    lookupTool(async (args) => asResult(await wardrik.run('support.gateway', gatewayInput(args), { principal }))),
  );
  // The same with a durable start, as /mcp starts a task's run (the start on disk before the run goes on).
  const startWaitPeer = await sdkServer(
    lookupTool(async (args) => {
      const { runId } = await wardrik.start('support.gateway', gatewayInput(args), { principal });
      return asResult(await wardrik.wait(runId));
    }),
  );
  // The SDK's server calling the tool directly: nothing journaled (shown, not a target).
  let direct = 0;
  const directPeer = await sdkServer(
    lookupTool(async (args) => {
      direct += 1;
      const identity = {
        runId: 'bench',
        agent: 'support',
        principal,
        callId: `c${direct}`,
        idempotencyKey: `bench:c${direct}`,
      };
      const answer = await call([lookup], { id: identity.callId, name: 'lookup', arguments: args }, identity);
      if (answer.type !== 'ok') return { content: [{ type: 'text', text: answer.type }], isError: true };
      const value = answer.value as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    }),
  );

  const wardrikClient = await connect(`${server.url}/mcp`, token);
  const runClient = await connect(runPeer.url);
  const startWaitClient = await connect(startWaitPeer.url);
  const directClient = await connect(directPeer.url);
  const lookupCall = { name: 'support__lookup', arguments: { key: 'a' } };
  const runsUrl = `${server.url}/v1/runs`;
  const runBody = JSON.stringify({ agent: 'short', input: 'go', wait: true });

  return {
    wardrik,
    store,
    auth,
    gatewayOverMcp: async () => expectLookup(await wardrikClient.callTool(lookupCall)),
    sdkRun: async () => expectLookup(await runClient.callTool(lookupCall)),
    sdkStartWait: async () => expectLookup(await startWaitClient.callTool(lookupCall)),
    sdkDirect: async () => expectLookup(await directClient.callTool(lookupCall)),
    agentOverMcp: async () => {
      const result = (await wardrikClient.callTool({ name: 'short', arguments: { input: 'go' } })) as CallToolResult;
      const text = result.content[0]?.type === 'text' ? result.content[0].text : undefined;
      if (result.isError || text !== 'done') throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    },
    agentOverHttp: async () => {
      const response = await fetch(runsUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: runBody,
      });
      const result = (await response.json()) as { status?: string; output?: string };
      if (result.status !== 'completed' || result.output !== 'done') throw new Error(`run: ${JSON.stringify(result)}`);
    },
    async close() {
      for (const client of [wardrikClient, runClient, startWaitClient, directClient]) await client.close();
      for (const peer of [runPeer, startWaitPeer, directPeer]) await peer.close();
      await server.close();
      await wardrik.close();
    },
  };
}

export async function main(): Promise<void> {
  const bench = await setUp();
  const gateway = await compare('gateway tool', bench.gatewayOverMcp, bench.sdkRun);
  const durableStart = await compare('gateway tool, durable start', bench.gatewayOverMcp, bench.sdkStartWait);
  const bare = await compare('bare tool', bench.sdkRun, bench.sdkDirect);
  const agent = await compare('agent call', bench.agentOverMcp, bench.agentOverHttp);
  await bench.close();

  const setting = `one call at a time, ${PAIRS} alternating pairs after ${WARM} warm-up calls each, SQLite ${synchronous.toUpperCase()}, the MCP SDK's Client over Streamable HTTP on 127.0.0.1, all in one process`;
  table(`MCP round trips, each against its peer in the same pairs (${setting})`, [
    pairRow(
      'gateway tool support__lookup: Wardrik /mcp ÷ SDK McpServer, same work (wardrik.run)',
      gateway,
      TARGET_GATEWAY,
    ),
    pairRow('  the same ÷ SDK McpServer with a durable start (wardrik.start + wait, as a task starts)', durableStart),
    pairRow('  SDK McpServer: durable run ÷ the tool called directly (nothing journaled)', bare),
    pairRow('agent call short: Wardrik /mcp ÷ HTTP API POST /v1/runs (wait: true)', agent, TARGET_AGENT),
  ]);
}

/** One comparison: each side's median and p99, and the ratio (median of the pairs' ratios, and of the medians). */
function pairRow(label: string, comparison: Comparison, target?: number) {
  const pairs = median(comparison.ratios);
  const verdict = target === undefined ? '' : ` (target ≤ ${target}×: ${pairs <= target ? 'met' : 'MISSED'})`;
  return {
    comparison: label,
    'p50 (p99)': `${median(comparison.a).toFixed(2)} (${percentile(comparison.a, 99).toFixed(1)}) ms`,
    'peer p50 (p99)': `${median(comparison.b).toFixed(2)} (${percentile(comparison.b, 99).toFixed(1)}) ms`,
    ratio: `${pairs.toFixed(2)}×${verdict}`,
    'of medians': `${(median(comparison.a) / median(comparison.b)).toFixed(2)}×`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
