import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Bridge, startBridge } from '../src/bridge.js';
import type { WorkerStatusEvent } from '../src/connection-loop.js';
import { eventually, pidOf, WardrikDouble } from './wardrik-double.js';

const TOKEN = 'secret-token';
const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
let wardrik: WardrikDouble;
const bridges: Bridge[] = [];

beforeEach(async () => {
  wardrik = await WardrikDouble.start(TOKEN);
});

afterEach(async () => {
  await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
  await wardrik.close();
});

function bridge(options: Partial<Parameters<typeof startBridge>[0]> = {}): Bridge {
  const started = startBridge({
    url: wardrik.url,
    token: TOKEN,
    command: process.execPath,
    args: [FIXTURE],
    reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
  bridges.push(started);
  return started;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the bridge', () => {
  it('offers the stdio server tools and answers a call, passing _meta through', async () => {
    const running = bridge();
    const session = await wardrik.nextSession();
    const initialized = await session.initialize();
    expect(initialized['serverInfo']).toEqual({ name: 'fixture-stdio', version: '1.0.0' });
    const tools = await session.listTools();
    session.listed(tools.length);
    await running.ready;
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'exit', 'env']);
    expect(tools[0]?.annotations).toEqual({ readOnlyHint: true });
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] });

    const response = await session.callTool('add', { a: 2, b: 40 }, { idempotencyKey: 'run_1:7' });
    expect(response.result?.['content']).toEqual([{ type: 'text', text: '42' }]);
    expect(response.result?.['structuredContent']).toMatchObject({
      sum: 42,
      pid: running.childPid,
      meta: { agent: 'support', run: 'run_1', principal: 'acme', idempotencyKey: 'run_1:7' },
    });
    expect(await session.request('ping')).toEqual({});
  });

  it('does not pass WARDRIK_TOKEN on to the child', async () => {
    const previous = process.env['WARDRIK_TOKEN'];
    process.env['WARDRIK_TOKEN'] = TOKEN;
    try {
      bridge();
      const session = await wardrik.nextSession();
      await session.initialize();
      const response = await session.callTool('env', {});
      expect(response.result?.['content']).toEqual([{ type: 'text', text: 'no token' }]);
    } finally {
      if (previous === undefined) delete process.env['WARDRIK_TOKEN'];
      else process.env['WARDRIK_TOKEN'] = previous;
    }
  });

  it('starts a fresh child for each connection after a reconnect', async () => {
    const statuses: string[] = [];
    const running = bridge({ onStatus: (event) => statuses.push(event.status) });
    const first = await wardrik.nextSession();
    await first.initialize();
    const firstPid = running.childPid;
    expect(firstPid).toBeTypeOf('number');
    first.socket.terminate();

    const second = await wardrik.nextSession();
    await second.initialize(); // a new initialize, answered by a new child
    const response = await second.callTool('add', { a: 1, b: 1 });
    const secondPid = pidOf(response);
    expect(secondPid).not.toBe(firstPid);
    expect(running.childPid).toBe(secondPid);
    expect(isAlive(firstPid!)).toBe(false);
    expect(statuses).toEqual(['connecting', 'connected', 'reconnecting', 'connected']);
  });

  it('closes the connection and ends with the exit code when the child exits', async () => {
    const running = bridge();
    const session = await wardrik.nextSession();
    await session.initialize();
    const response = await session.callTool('exit', { code: 7 });
    expect(response.result?.['content']).toEqual([{ type: 'text', text: 'exiting with 7' }]);
    expect(await running.exitCode).toBe(7);
    expect(running.status).toBe('closed');
    await session.closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(wardrik.upgrades).toBe(1);
  });

  it('close() stops the child and ends with 0', async () => {
    const running = bridge();
    const session = await wardrik.nextSession();
    await session.initialize();
    const pid = running.childPid!;
    await running.close();
    expect(await running.exitCode).toBe(0);
    expect(isAlive(pid)).toBe(false);
    expect((await session.closed).code).toBe(1000);
  });

  it('ends with 127 when the command does not exist', async () => {
    const events: WorkerStatusEvent[] = [];
    const running = bridge({ command: 'wardrik-no-such-command', args: [], onStatus: (event) => events.push(event) });
    expect(await running.exitCode).toBe(127);
    await expect(running.ready).rejects.toThrow(/could not start "wardrik-no-such-command"/);
    expect(events.at(-1)?.error?.message).toContain('ENOENT');
  });

  it('ends with 1 on a bad token, without starting the child', async () => {
    const running = bridge({ token: 'wrong' });
    await expect(running.ready).rejects.toMatchObject({ code: 'worker_unauthorized' });
    expect(await running.exitCode).toBe(1);
    expect(running.childPid).toBeUndefined();
  });

  it('reports lines on stdout that are not JSON-RPC and keeps forwarding', async () => {
    const errors: Error[] = [];
    const script =
      "process.stdout.write('hello from a noisy server\\n');" +
      'process.stdin.on(\'data\', (d) => { for (const line of String(d).split(\'\\n\').filter(Boolean)) { const m = JSON.parse(line); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { echoed: m.method } }) + "\\n"); } });';
    bridge({ args: ['-e', script], onError: (error) => errors.push(error) });
    const session = await wardrik.nextSession();
    const result = await session.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'wardrik', version: '0' },
    });
    expect(result).toEqual({ echoed: 'initialize' });
    await eventually(() => errors.length > 0, 5_000, 'an error');
    expect(errors[0]?.message).toContain('not a JSON-RPC message');
    expect(errors[0]?.message).toContain('hello from a noisy server');
  });
});
