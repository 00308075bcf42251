// Short runs started over HTTP by 32 concurrent clients, next to the same runs started in-process,
// in the same process run (issue 4). Run with `npm run bench -- http`.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tool } from '@wardrik/core';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { AuthService } from '../packages/wardrik/src/auth/auth-service.js';
import { startServer } from '../packages/wardrik/src/server/start-server.js';
import { median, percentile, table } from './stats.js';

const clients = 32;
const runsPerClient = Number(process.env.HTTP_RUNS_PER_CLIENT ?? 60);

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key, value: 1 }),
});
const short = () =>
  defineAgent({
    name: 'short',
    instructions: '',
    tools: [lookup],
    model: new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] }, { text: 'done' }]),
  });

async function load(startOne: () => Promise<void>): Promise<{ perSecond: number; latencies: number[] }> {
  for (let warm = 0; warm < 50; warm++) await startOne();
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let index = 0; index < runsPerClient; index++) {
        const began = performance.now();
        await startOne();
        latencies.push(performance.now() - began);
      }
    }),
  );
  return { perSecond: (clients * runsPerClient) / ((performance.now() - start) / 1000), latencies };
}

/** Starts `clients` clients in their own process, as real clients would be: the server gets this one. */
function loadOverHttp(url: string, token: string): Promise<{ perSecond: number; latencies: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./http-clients.ts', import.meta.url)),
        url,
        token,
        String(clients),
        String(runsPerClient),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`clients exited ${code}`)),
    );
  });
}

function fresh(): Promise<Wardrik> {
  return createWardrik({
    store: sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-http-')), 'b.db'), {
      synchronous: process.env.SYNC === 'normal' ? 'normal' : 'full',
    }),
    agents: [short()],
  });
}

export async function main(): Promise<void> {
  const inProcessRuntime = await fresh();
  const inProcess = await load(async () => {
    const result = await inProcessRuntime.run('short', 'go', { principal: 'bench' });
    if (result.status !== 'completed') throw new Error(`run ${result.status}`);
  });
  await inProcessRuntime.close();

  const wardrik = await fresh();
  const auth = new AuthService(wardrik.store);
  const admin = await auth.ensureAdmin();
  const server = await startServer({ wardrik, auth, port: 0 });
  const overHttp = await loadOverHttp(server.url, admin?.token ?? '');
  await server.close();
  await wardrik.close();

  // The floor for any HTTP API on Node: a bare node:http server that parses the body and calls
  // wardrik.run(), with no routing, auth or validation, driven by the same clients.
  const bare = await fresh();
  const floorServer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const { agent, input } = JSON.parse(body) as { agent: string; input: string };
      const result = await bare.run(agent, input, { principal: 'bench' });
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => floorServer.listen(0, '127.0.0.1', resolve));
  const floorUrl = `http://127.0.0.1:${(floorServer.address() as AddressInfo).port}`;
  const bareHttp = await loadOverHttp(floorUrl, 'none');
  floorServer.closeAllConnections();
  await new Promise((resolve) => floorServer.close(resolve));
  await bare.close();

  const row = (label: string, figures: { perSecond: number; latencies: number[] }) => ({
    'started by': label,
    'runs/s': Math.round(figures.perSecond).toLocaleString('en'),
    p50: `${median(figures.latencies).toFixed(2)} ms`,
    p99: `${percentile(figures.latencies, 99).toFixed(2)} ms`,
  });
  table(
    `Short runs (one read-only call), ${clients} concurrent clients × ${runsPerClient} runs, SQLite FULL (HTTP clients in a second process)`,
    [
      row('in-process wardrik.run()', inProcess),
      row('HTTP POST /v1/runs (wait: true)', overHttp),
      row('floor: bare node:http + wardrik.run()', bareHttp),
      {
        'started by': 'HTTP ÷ in-process (target ≤ 2×)',
        'runs/s': `${(inProcess.perSecond / overHttp.perSecond).toFixed(2)}× slower`,
        p50: `${(median(overHttp.latencies) / median(inProcess.latencies)).toFixed(2)}×`,
        p99: `${(percentile(overHttp.latencies, 99) / percentile(inProcess.latencies, 99)).toFixed(2)}×`,
      },
      {
        'started by': 'HTTP API ÷ bare node:http floor',
        'runs/s': `${(bareHttp.perSecond / overHttp.perSecond).toFixed(2)}× slower`,
        p50: `${(median(overHttp.latencies) / median(bareHttp.latencies)).toFixed(2)}×`,
        p99: `${(percentile(overHttp.latencies, 99) / percentile(bareHttp.latencies, 99)).toFixed(2)}×`,
      },
    ],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
