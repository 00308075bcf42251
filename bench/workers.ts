// Worker tool calls (issue 5). Wardrik in this process; the worker in a second process: an MCP SDK
// McpServer connected through @wardrik/worker, and raw `ws` JSON-RPC echo connections from the
// same process. Measured in the same run:
//   1. the round trip of one call: the hub's tool (route → tools/call over the worker's WebSocket →
//      the McpServer's handler → result → answer) next to a raw ws JSON-RPC echo of the same
//      request, one call at a time, in alternating blocks (target: worker p50 ≤ 1.3× echo p50);
//   2. pipelined calls through the hub over 4 worker connections (target ≥ 30,000 calls/s).
// Run: node --conditions=@wardrik/source --import tsx bench/workers.ts   (or: npm run bench -- workers)
// Env: WORKERS_CALLS (pipelined calls per round, default 200000), WORKERS_WINDOW (calls in flight,
// default 1024), WORKERS_PROCESSES (processes sharing the 4 connections, default 1), WORKERS_CHILD_FLAGS
// (extra node flags for the worker processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
// WORKERS_CHILD_SERVER=minimal (a minimal JSON-RPC responder instead of McpServers: no MCP SDK).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Arguments, createContext, type Tool } from '@wardrik/core';
import { createWardrik, defineAgent, type Wardrik } from 'wardrik';
import { memoryStore, ScriptedModel } from 'wardrik/testing';
import { type WebSocket, WebSocketServer } from 'ws';
import { AuthService } from '../packages/wardrik/src/auth/auth-service.js';
import { type RunningServer, startServer } from '../packages/wardrik/src/server/start-server.js';
import { median, percentile, table } from './stats.js';

const ROUND_TRIP_TARGET = 1.3;
const THROUGHPUT_TARGET = 30_000;
const CONNECTIONS = 4;
const pipelinedCalls = Number(process.env.WORKERS_CALLS ?? 200_000);
const window = Number(process.env.WORKERS_WINDOW ?? 1_024);
const processes = Number(process.env.WORKERS_PROCESSES ?? 1);

interface Setup {
  readonly wardrik: Wardrik;
  readonly server: RunningServer;
  readonly echoServer: WebSocketServer;
  readonly echoUrl: string;
  readonly token: string;
}

async function setUp(): Promise<Setup> {
  const agent = defineAgent({
    name: 'bench',
    instructions: '',
    workers: ['workers/*'],
    model: new ScriptedModel(() => ({ text: 'done' })),
  });
  const wardrik = await createWardrik({ store: memoryStore(), agents: [agent], workers: { log: () => {} } });
  const auth = new AuthService(wardrik.store);
  const { token } = await auth.createPrincipalWithToken({
    name: 'bench-worker',
    kind: 'worker',
    role: 'worker',
    agents: ['*'],
  });
  const server = await startServer({ wardrik, auth, port: 0 });
  const echoServer = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(echoServer, 'listening');
  const echoUrl = `ws://127.0.0.1:${(echoServer.address() as AddressInfo).port}`;
  return { wardrik, server, echoServer, echoUrl, token };
}

/** Starts worker processes holding `connections` worker and echo connections between them. */
async function startWorkers(setup: Setup, connections: number, count: number): Promise<ChildProcess[]> {
  const children: ChildProcess[] = [];
  const before = setup.wardrik.workers.list().length;
  const echoes = new Promise<void>((resolve) => {
    let seen = 0;
    const onConnection = () => {
      seen += 1;
      if (seen === connections) {
        setup.echoServer.off('connection', onConnection);
        resolve();
      }
    };
    setup.echoServer.on('connection', onConnection);
  });
  for (let index = 0; index < count; index++) {
    const share = Math.floor(connections / count) + (index < connections % count ? 1 : 0);
    const child = spawn(
      process.execPath,
      [
        ...(process.env.WORKERS_CHILD_FLAGS?.split(' ').filter(Boolean) ?? []),
        '--conditions=@wardrik/source',
        '--import',
        'tsx',
        fileURLToPath(new URL('./workers-child.ts', import.meta.url)),
        setup.server.url,
        setup.token,
        setup.echoUrl,
        String(share),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk) => {
        output += chunk;
        if (output.includes('ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the worker process exited (${code})`)));
    });
  }
  await echoes;
  while (setup.wardrik.workers.list().filter((worker) => worker.tools.includes('echo')).length < before + connections) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return children;
}

async function stopWorkers(setup: Setup, children: ChildProcess[]): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
  for (const client of setup.echoServer.clients) client.terminate();
  while (setup.wardrik.workers.list().length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A raw JSON-RPC client over the echo connections: sends a tools/call request, resolves with the parsed response. */
class RawClient {
  readonly #sockets: WebSocket[];
  readonly #pending = new Map<number, (value: unknown) => void>();
  #nextId = 1;
  #turn = 0;

  constructor(sockets: WebSocket[]) {
    this.#sockets = sockets;
    for (const socket of sockets) {
      socket.on('message', (data) => {
        const response = JSON.parse(String(data)) as { id: number; result: unknown };
        const resolve = this.#pending.get(response.id);
        this.#pending.delete(response.id);
        resolve?.(response.result);
      });
    }
  }

  call(text: string, meta: Record<string, string>): Promise<unknown> {
    const id = this.#nextId++;
    const socket = this.#sockets[this.#turn++ % this.#sockets.length] as WebSocket;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text }, _meta: meta },
        }),
      );
    });
  }
}

function echoTool(wardrik: Wardrik): Tool<Arguments> {
  const found = wardrik.workers.toolsFor('bench', ['workers/*']).get('workers__echo');
  if (!found) throw new Error('no worker offers echo');
  return found;
}

const meta = { agent: 'bench', run: 'run-1', principal: 'bench', idempotencyKey: 'run-1:c1.0' };
const context = createContext({
  runId: meta.run,
  agent: meta.agent,
  principal: meta.principal,
  callId: 'c1.0',
  idempotencyKey: meta.idempotencyKey,
});

async function callWorker(tool: Tool<Arguments>): Promise<void> {
  const answer = await tool.run({ text: 'hello' }, context);
  if ((answer as { type?: string }).type !== 'ok') throw new Error(`the call failed: ${JSON.stringify(answer)}`);
}

async function roundTrips(setup: Setup): Promise<{ worker: number[]; echo: number[] }> {
  const children = await startWorkers(setup, 1, 1);
  const raw = new RawClient([...setup.echoServer.clients]);
  const tool = echoTool(setup.wardrik);
  const worker: number[] = [];
  const echo: number[] = [];
  const block = 500;
  for (let index = 0; index < 4_000; index++) {
    await callWorker(tool);
    await raw.call('hello', meta);
  }
  for (let round = 0; round < 20; round++) {
    for (let index = 0; index < block; index++) {
      const began = performance.now();
      await callWorker(tool);
      worker.push((performance.now() - began) * 1_000);
    }
    for (let index = 0; index < block; index++) {
      const began = performance.now();
      await raw.call('hello', meta);
      echo.push((performance.now() - began) * 1_000);
    }
  }
  await stopWorkers(setup, children);
  return { worker, echo };
}

async function pipelined(send: () => Promise<unknown>, calls: number): Promise<{ perSecond: number; ms: number }> {
  let started = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (started < calls) {
        started += 1;
        await send();
      }
    }),
  );
  const ms = performance.now() - began;
  return { perSecond: calls / (ms / 1_000), ms };
}

async function throughput(setup: Setup): Promise<{ worker: number[]; echo: number[] }> {
  const children = await startWorkers(setup, CONNECTIONS, processes);
  const raw = new RawClient([...setup.echoServer.clients]);
  const tool = echoTool(setup.wardrik);
  const worker: number[] = [];
  const echo: number[] = [];
  await pipelined(() => callWorker(tool), 20_000);
  await pipelined(() => raw.call('hello', meta), 20_000);
  for (let round = 0; round < 3; round++) {
    worker.push((await pipelined(() => callWorker(tool), pipelinedCalls)).perSecond);
    echo.push((await pipelined(() => raw.call('hello', meta), pipelinedCalls)).perSecond);
  }
  await stopWorkers(setup, children);
  return { worker, echo };
}

export async function main(): Promise<{ ratioP50: number; ratioP99: number; callsPerSecond: number }> {
  console.log(`workers: node ${process.version}, ${process.platform}-${process.arch}`);
  const setup = await setUp();
  try {
    const trips = await roundTrips(setup);
    const us = (value: number) => `${value.toFixed(1)} µs`;
    const ratioP50 = median(trips.worker) / median(trips.echo);
    const ratioP99 = percentile(trips.worker, 99) / percentile(trips.echo, 99);
    table(`Round trip of one call, one at a time (${trips.worker.length} each, alternating blocks of 500)`, [
      { path: 'raw ws JSON-RPC echo', p50: us(median(trips.echo)), p99: us(percentile(trips.echo, 99)) },
      { path: 'worker tool call via the hub', p50: us(median(trips.worker)), p99: us(percentile(trips.worker, 99)) },
      {
        path: `worker ÷ echo (target ≤ ${ROUND_TRIP_TARGET}×)`,
        p50: `${ratioP50.toFixed(2)}×`,
        p99: `${ratioP99.toFixed(2)}×`,
      },
    ]);

    const rates = await throughput(setup);
    const best = Math.max(...rates.worker);
    const perSecond = (value: number) => Math.round(value).toLocaleString('en');
    table(
      `Pipelined calls over ${CONNECTIONS} worker connections (${processes} worker process${processes > 1 ? 'es' : ''}), ${window} in flight, ${pipelinedCalls.toLocaleString('en')} calls per round`,
      [
        {
          path: 'raw ws JSON-RPC echo',
          'calls/s (median)': perSecond(median(rates.echo)),
          'calls/s (best)': perSecond(Math.max(...rates.echo)),
        },
        {
          path: 'worker tool calls via the hub',
          'calls/s (median)': perSecond(median(rates.worker)),
          'calls/s (best)': perSecond(best),
        },
      ],
    );
    console.log(
      `targets: round trip p50 ≤ ${ROUND_TRIP_TARGET}× echo: ${ratioP50 <= ROUND_TRIP_TARGET ? 'met' : 'NOT met'} (${ratioP50.toFixed(2)}×); ` +
        `≥ ${THROUGHPUT_TARGET.toLocaleString('en')} calls/s: ${median(rates.worker) >= THROUGHPUT_TARGET ? 'met' : 'NOT met'} (median ${perSecond(median(rates.worker))})`,
    );
    return { ratioP50, ratioP99, callsPerSecond: median(rates.worker) };
  } finally {
    setup.echoServer.close();
    await setup.server.close();
    await setup.wardrik.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
