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
import { concurrentRuns } from './concurrent-runs.js';
import { median, percentile, table } from './stats.js';

const clients = 32;
const runsPerClient = Number(process.env.HTTP_RUNS_PER_CLIENT ?? 250);
/** Not measured: enough concurrent runs for the JIT to compile each path, as on a server that has been up. */
const warmRunsPerClient = Number(process.env.HTTP_WARM_RUNS_PER_CLIENT ?? 30);
/** The three ways are measured in turn, this many times, so that a slow spell of the machine hits all of them. */
const rounds = Number(process.env.HTTP_ROUNDS ?? 3);

/** `SYNC=normal` measures with SQLite's `synchronous = NORMAL`. */
const synchronous = process.env.SYNC === 'normal' ? 'normal' : 'full';

interface Figures {
  readonly perSecond: number;
  readonly latencies: number[];
}

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

/** `clients` concurrent callers in this process, each starting runs one after another. */
async function load(startOne: () => Promise<void>): Promise<Figures> {
  await concurrentRuns(clients, warmRunsPerClient, startOne);
  const start = performance.now();
  const latencies = await concurrentRuns(clients, runsPerClient, startOne);
  return { perSecond: (clients * runsPerClient) / ((performance.now() - start) / 1000), latencies };
}

/** Starts `clients` clients in their own process, as real clients would be: the server gets this one. */
function loadOverHttp(url: string, token: string): Promise<Figures> {
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
        String(warmRunsPerClient),
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
      synchronous,
    }),
    agents: [short()],
  });
}

/** Several rounds' figures as one: the median round's runs/s, and every round's latencies. */
function combine(each: readonly Figures[]): Figures {
  return {
    perSecond: median(each.map((figures) => figures.perSecond)),
    latencies: each.flatMap((figures) => figures.latencies),
  };
}

export async function main(): Promise<void> {
  const inProcessRuntime = await fresh();

  const wardrik = await fresh();
  const auth = new AuthService(wardrik.store);
  const admin = await auth.ensureAdmin();
  const server = await startServer({ wardrik, auth, port: 0 });

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

  const inProcessRounds: Figures[] = [];
  const overHttpRounds: Figures[] = [];
  const bareHttpRounds: Figures[] = [];
  for (let round = 0; round < rounds; round++) {
    inProcessRounds.push(
      await load(async () => {
        const result = await inProcessRuntime.run('short', 'go', { principal: 'bench' });
        if (result.status !== 'completed') throw new Error(`run ${result.status}`);
      }),
    );
    overHttpRounds.push(await loadOverHttp(server.url, admin?.token ?? ''));
    bareHttpRounds.push(await loadOverHttp(floorUrl, 'none'));
  }
  const inProcess = combine(inProcessRounds);
  const overHttp = combine(overHttpRounds);
  const bareHttp = combine(bareHttpRounds);

  await inProcessRuntime.close();
  await server.close();
  await wardrik.close();
  floorServer.closeAllConnections();
  await new Promise((resolve) => floorServer.close(resolve));
  await bare.close();

  const row = (label: string, figures: Figures) => ({
    'started by': label,
    'runs/s': Math.round(figures.perSecond).toLocaleString('en'),
    p50: `${median(figures.latencies).toFixed(2)} ms`,
    p99: `${percentile(figures.latencies, 99).toFixed(2)} ms`,
  });
  table(
    `Short runs (one read-only call), ${clients} concurrent clients × ${runsPerClient} runs after ${warmRunsPerClient} warm-up runs each, median of ${rounds} interleaved rounds, SQLite ${synchronous.toUpperCase()} (HTTP clients in a second process)`,
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
