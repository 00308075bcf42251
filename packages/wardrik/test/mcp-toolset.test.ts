/*
 * mcpToolset against the reference server `@modelcontextprotocol/server-everything`, over stdio
 * (a child process) and over Streamable HTTP (the server in a process of its own): listing, names,
 * schemas, annotations, calls, labels, progress, cancellation and timeouts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  call,
  createContext,
  getPrivate,
  type Progress,
  StateView,
  type Tool,
  type ToolsetContext,
} from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import type { McpToolsetOptions } from '../src/toolsets/mcp-toolset-options.js';
import { MCP_TOOLSET_TOOL, type McpToolsetToolInfo } from '../src/toolsets/mcp-toolset-tool.js';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

function toolsetContext(signal = new AbortController().signal): ToolsetContext {
  return { runId: 'r1', agentName: 'helper', principal: 'carol', step: 1, labels: [], state: new StateView(), signal };
}

function callContext(options: { signal?: AbortSignal; onProgress?: (progress: Progress) => void } = {}) {
  return createContext({
    runId: 'r1',
    agent: 'helper',
    principal: 'carol',
    callId: 'c1.0',
    idempotencyKey: 'r1:c1.0',
    ...options,
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** server-everything serving Streamable HTTP on a free port, in a process of its own. */
async function startHttpServer(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${stderr}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: child };
}

let http: { url: string; process: ChildProcess };
beforeAll(async () => {
  http = await startHttpServer();
});
afterAll(() => {
  http?.process.kill('SIGKILL');
});

const transports: Array<[string, (extra: Partial<McpToolsetOptions>) => McpToolsetOptions]> = [
  ['stdio', (extra) => ({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra })],
  ['Streamable HTTP', (extra) => ({ name: 'everything', url: http.url, ...extra }) as McpToolsetOptions],
];

describe.each(transports)('server-everything over %s', (_transport, options) => {
  let toolset: McpToolset;
  const logged: string[] = [];
  beforeAll(() => {
    toolset = mcpToolset(options({ log: (message) => logged.push(message) }));
  });
  afterAll(async () => {
    await toolset?.close();
  });

  function find(tools: readonly Tool<never>[], name: string): Tool<never> {
    const found = tools.find((each) => each.name === name);
    if (!found) throw new Error(`no tool ${name} among ${tools.map((each) => each.name).join(', ')}`);
    return found;
  }

  it('lists the tools under TOOLSET__NAME with their schemas, annotations and mark; the same array while nothing changed', async () => {
    const tools = await toolset.tools(toolsetContext());
    const names = tools.map((each) => each.name);
    expect(names).toEqual(
      expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__trigger-long-running-operation']),
    );
    for (const name of names) expect(name).toMatch(/^everything__[A-Za-z0-9_-]{1,52}$/);
    const sum = find(tools, 'everything__get-sum');
    expect(sum.description).toBe('Returns the sum of two numbers');
    expect(sum.title).toBe('Get Sum Tool');
    expect(sum.schema.jsonSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(sum.annotations).toMatchObject({ readOnly: true, idempotent: true, labels: ['outside'], timeout: 60_000 });
    expect(getPrivate(sum, MCP_TOOLSET_TOOL, undefined)).toEqual({
      toolset: 'everything',
      server: expect.any(String),
      mcpName: 'get-sum',
      readOnly: true,
    } satisfies McpToolsetToolInfo);
    const toggle = find(tools, 'everything__toggle-simulated-logging');
    expect(toggle.annotations.readOnly).toBe(false);
    expect(getPrivate<McpToolsetToolInfo | undefined>(toggle, MCP_TOOLSET_TOOL, undefined)?.readOnly).toBe(false);
    // A tool that needs MCP tasks is offered: calling it starts a task the run waits for (mcp-toolset-tasks.test.ts).
    expect(names).toContain('everything__simulate-research-query');

    expect(await toolset.tools(toolsetContext())).toBe(tools);
    // server-everything registers more tools once initialized and says so (list_changed): the
    // listing is taken again, and the array stays the same while the usable tools do.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await toolset.tools(toolsetContext())).toBe(tools);
  });

  it('calls a tool: checked arguments, the answer labelled outside; bad arguments never reach the server', async () => {
    const tools = await toolset.tools(toolsetContext());
    const answer = await call(
      tools,
      { id: 'c1.0', name: 'everything__get-sum', arguments: { a: 2, b: 40 } },
      callContext(),
    );
    expect(answer).toMatchObject({ type: 'ok', value: 'The sum of 2 and 40 is 42.', labels: ['outside'] });

    const structured = await call(
      tools,
      { id: 'c1.0', name: 'everything__get-structured-content', arguments: { location: 'New York' } },
      callContext(),
    );
    expect(structured).toMatchObject({ type: 'ok', value: { temperature: expect.any(Number) } });

    const bad = await call(tools, { id: 'c1.0', name: 'everything__get-sum', arguments: { a: 'two' } }, callContext());
    expect(bad).toMatchObject({ type: 'error', code: 'invalid_arguments', labels: [] });
    if (bad.type !== 'error') throw new Error('expected an error');
    expect(bad.reason).toMatch(/a: expected number/);
    expect(bad.reason).toMatch(/b: is required/);
  });

  it('forwards progress to the call', async () => {
    const tools = await toolset.tools(toolsetContext());
    const reports: Progress[] = [];
    const answer = await call(
      tools,
      { id: 'c1.0', name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      callContext({ onProgress: (progress) => reports.push(progress) }),
    );
    expect(answer).toMatchObject({ type: 'ok', value: expect.stringMatching(/completed/) });
    // The server sends its last report just before its answer; the SDK may take the answer first.
    expect(reports.slice(0, 2)).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
    ]);
    expect(reports.length).toBeLessThanOrEqual(3);
  });

  it('cancels a call when its signal aborts', async () => {
    const tools = await toolset.tools(toolsetContext());
    const controller = new AbortController();
    const answer = await call(
      tools,
      { id: 'c1.0', name: 'everything__trigger-long-running-operation', arguments: { duration: 10, steps: 20 } },
      callContext({
        signal: controller.signal,
        onProgress: () => controller.abort(new Error('the run was cancelled')),
      }),
    );
    expect(answer).toMatchObject({ type: 'error', code: 'cancelled' });
    // The connection is still good.
    const after = await call(
      tools,
      { id: 'c1.0', name: 'everything__echo', arguments: { message: 'hi' } },
      callContext(),
    );
    expect(after).toMatchObject({ type: 'ok', value: 'Echo: hi' });
  });

  it('a call past its timeout is lost (it may have run)', async () => {
    const quick = mcpToolset(options({ callTimeoutMs: 300 }));
    try {
      const tools = await quick.tools(toolsetContext());
      const long = find(tools, 'everything__trigger-long-running-operation');
      expect(long.annotations.timeout).toBe(300);
      const answer = await call(
        tools,
        { id: 'c1.0', name: long.name, arguments: { duration: 5, steps: 5 } },
        callContext(),
      );
      expect(answer).toMatchObject({ type: 'error', code: 'lost' });
      if (answer.type !== 'error') throw new Error('expected an error');
      expect(answer.reason).toMatch(
        /^Lost: MCP server everything, tool trigger-long-running-operation: no answer within 300 ms; the call may have run$/,
      );
    } finally {
      await quick.close();
    }
  });

  it('trusted: answers and tools carry no outside label', async () => {
    const trusted = mcpToolset(options({ name: 'mine', trusted: true }));
    try {
      const tools = await trusted.tools(toolsetContext());
      const echo = find(tools, 'mine__echo');
      expect(echo.annotations.labels).toBeUndefined();
      const answer = await call(tools, { id: 'c1.0', name: 'mine__echo', arguments: { message: 'x' } }, callContext());
      expect(answer).toMatchObject({ type: 'ok', value: 'Echo: x', labels: [] });
    } finally {
      await trusted.close();
    }
  });
});

describe('server-everything over Streamable HTTP, going away', () => {
  it('a server that stops: tools() names it and why; once it is back, the next try connects again', async () => {
    const server = await startHttpServer();
    const logged: string[] = [];
    const toolset = mcpToolset({
      name: 'remote',
      url: server.url,
      reconnect: { baseDelayMs: 50, maxDelayMs: 100 },
      connectTimeoutMs: 2_000,
      log: (message) => logged.push(message),
    });
    try {
      const tools = await toolset.tools(toolsetContext());
      expect(tools.length).toBeGreaterThan(5);
      // Killed mid-call: its streams break, it answers no ping, and the call is lost.
      let killed = false;
      const answer = await call(
        tools,
        { id: 'c1.0', name: 'remote__trigger-long-running-operation', arguments: { duration: 30, steps: 60 } },
        callContext({
          onProgress: () => {
            if (!killed) server.process.kill('SIGKILL');
            killed = true;
          },
        }),
      );
      expect(answer).toMatchObject({ type: 'error', code: 'lost' });
      expect(logged.join('\n')).toMatch(/MCP server remote \(.*\): connection lost: it stopped answering/);

      // A call now is not sent: the server can't be reached.
      const unsent = await call(
        tools,
        { id: 'c1.0', name: 'remote__echo', arguments: { message: 'x' } },
        callContext(),
      );
      expect(unsent).toMatchObject({ type: 'error', code: 'unavailable' });

      let failure: unknown;
      for (let tries = 0; tries < 50 && failure === undefined; tries++) {
        try {
          await toolset.tools(toolsetContext());
          await new Promise((resolve) => setTimeout(resolve, 100));
        } catch (thrown) {
          failure = thrown;
        }
      }
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(/^MCP server remote \(http:\/\/127\.0\.0\.1:\d+\/mcp\): /);
      expect((failure as Error).message).toMatch(/ECONNREFUSED|fetch failed/);

      // Back on the same port: the toolset connects again by itself.
      const port = new URL(server.url).port;
      const again = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
        env: { ...process.env, PORT: port },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      try {
        let back: readonly Tool<never>[] | undefined;
        for (let tries = 0; tries < 100 && back === undefined; tries++) {
          back = await Promise.resolve(toolset.tools(toolsetContext())).catch(() => undefined);
          if (back === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(back).toBe(tools);
        const answered = await call(
          tools,
          { id: 'c1.0', name: 'remote__echo', arguments: { message: 'y' } },
          callContext(),
        );
        expect(answered).toMatchObject({ type: 'ok', value: 'Echo: y' });
      } finally {
        again.kill('SIGKILL');
      }
    } finally {
      await toolset.close();
      server.process.kill('SIGKILL');
    }
  });
});
