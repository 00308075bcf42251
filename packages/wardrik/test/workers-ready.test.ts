/*
 * `connectWorker(...).ready` means "Wardrik has your tools": a run started right after it is
 * offered the worker's tools at its first model step, with no polling of `workers.list()`. A real
 * Wardrik (SQLite, HTTP server), workers built with the official MCP SDK, in this process and as
 * separate processes, many connecting at once, several rounds.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { connectWorker, type WorkerConnection } from '@wardrik/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type WorkersEnv as Env, plan, plannedAgent, WorkersEnv } from './workers-env.js';

/** Agents `agent_0` … each served by its own principal, so that each run sees one worker's tools only. */
const AGENTS = 8;
const ROUNDS = 4;

let env: Env;
const connections: WorkerConnection[] = [];

beforeAll(async () => {
  env = await WorkersEnv.start({
    agents: (seen) => Array.from({ length: AGENTS }, (_, index) => plannedAgent(`agent_${index}`, ['workers/*'], seen)),
    workers: { unavailableWaitMs: 0 },
  });
});
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  await env.killWorkers();
});
afterAll(async () => {
  await env?.close();
});

/** The tools the first model step of the run with this input was offered. */
function firstStepTools(input: string): string[] {
  const step = env.seen.find((seen) => seen.input === input && seen.step === 1);
  return (step?.tools ?? []).map((tool) => tool.name);
}

describe('ready', () => {
  it('a run started right after `await ready` is offered the worker tools at its first step (in process)', async () => {
    const principals = await Promise.all(
      Array.from({ length: AGENTS }, (_, index) => env.principal([`agent_${index}`])),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const offered = await Promise.all(
        principals.map(async (principal, index) => {
          const tool = `tool_${round}_${index}`;
          const server = new McpServer({ name: tool, version: '1.0.0' });
          server.registerTool(tool, { description: 'Does nothing.' }, async () => ({ content: [] }));
          const worker = connectWorker({ url: env.url, token: principal.token, server, listedTimeoutMs: 600_000 });
          connections.push(worker);
          await worker.ready;
          const input = plan();
          const result = await env.wardrik.run(`agent_${index}`, input);
          expect(result.status).toBe('completed');
          return { tool, tools: firstStepTools(input) };
        }),
      );
      for (const { tool, tools } of offered) expect(tools).toEqual([`workers__${tool}`]);
      await Promise.all(connections.splice(0).map((connection) => connection.close()));
    }
  });

  it('a worker process that says it is ready has its tools offered at the first step of the next run', async () => {
    const principals = await Promise.all(
      Array.from({ length: AGENTS }, (_, index) => env.principal([`agent_${index}`])),
    );
    for (let round = 0; round < 2; round++) {
      const offered = await Promise.all(
        principals.map(async (principal, index) => {
          const worker = env.startWorker(`w${round}_${index}`, principal.token);
          await worker.ready; // its stdout says so right after `await connectWorker(...).ready`
          const input = plan();
          await env.wardrik.run(`agent_${index}`, input);
          return firstStepTools(input);
        }),
      );
      for (const tools of offered) expect(tools).toContain('workers__lookup');
      await env.killWorkers();
    }
  });

  it('each listing is reported to the worker: what was accepted, and what was left out with why', async () => {
    const principal = await env.principal(['agent_0']);
    const server = new McpServer({ name: 'mixed', version: '1.0.0' });
    server.registerTool('good', { description: 'Fine.' }, async () => ({ content: [] }));
    server.registerTool('bad name!', { description: 'Invalid name.' }, async () => ({ content: [] }));
    const listings: { accepted: number; rejected: readonly { name: string; reason: string }[] }[] = [];
    const worker = connectWorker({
      url: env.url,
      token: principal.token,
      server,
      onListed: (listing) => listings.push(listing),
    });
    connections.push(worker);
    await worker.ready;
    expect(listings).toHaveLength(1);
    expect(listings[0]?.accepted).toBe(1);
    expect(listings[0]?.rejected.map((each) => each.name)).toEqual(['bad name!']);
    expect(listings[0]?.rejected[0]?.reason).toContain('invalid name');

    // A later listing (list_changed) is reported too; `ready` stays as it was.
    const ready = worker.ready;
    server.registerTool('another', { description: 'Added later.' }, async () => ({ content: [] }));
    await expect.poll(() => listings.length, { timeout: 45_000 }).toBe(2);
    expect(listings[1]?.accepted).toBe(2);
    expect(worker.ready).toBe(ready);
    const input = plan();
    await env.wardrik.run('agent_0', input);
    expect(firstStepTools(input).sort()).toEqual(['workers__another', 'workers__good']);
  });
});
