/*
 * mcpToolset when things go wrong, against real processes: a stdio MCP server (official SDK) that
 * records what it sees, SIGKILLed mid-call; commands that do not exist or exit at once; servers
 * that speak nonsense; tools that change; close(). Also what reaches the server (_meta, cancels).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Answer,
  call,
  createContext,
  StateView,
  type Tool,
  ToolDefinitionError,
  type ToolsetContext,
} from '@wardrik/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpServerUnavailableError } from '../src/toolsets/mcp-server-unavailable.js';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import type { McpToolsetOptions } from '../src/toolsets/mcp-toolset-options.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RECORDING_SERVER = fileURLToPath(new URL('./fixtures/workers/stdio-server.ts', import.meta.url));
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let directory: string;
const open: McpToolset[] = [];
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
  directory = mkdtempSync(join(tmpdir(), 'wardrik-mcp-toolset-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolset) => toolset.close()));
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  rmSync(directory, { recursive: true, force: true });
  expect(unhandled).toEqual([]);
});

function start(options: McpToolsetOptions): McpToolset {
  const toolset = mcpToolset(options);
  open.push(toolset);
  return toolset;
}

function toolsetContext(signal = new AbortController().signal): ToolsetContext {
  return { runId: 'r1', agentName: 'helper', principal: 'carol', step: 1, labels: [], state: new StateView(), signal };
}

function callContext(signal?: AbortSignal) {
  return createContext({
    runId: 'r1',
    agent: 'helper',
    principal: 'carol',
    callId: 'c1.0',
    idempotencyKey: 'r1:c1.0',
    fencingToken: 7,
    ...(signal ? { signal } : {}),
  });
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** This process's children whose command line contains `marker`. */
function children(marker: string): number[] {
  let listing = '';
  try {
    listing = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when it finds none
  }
  return listing
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => Number.parseInt(line.trim(), 10));
}

/** An MCP server written inline: `node --input-type=module -e SCRIPT`, run from the repository (so it finds the SDK). */
function inline(script: string, extra: Partial<McpToolsetOptions> = {}): McpToolsetOptions {
  return { command: process.execPath, args: ['--input-type=module', '-e', script], cwd: ROOT, ...extra };
}

/** The recording server (official SDK): appends what it sees to `record`. */
function recording(record: string, extra: Partial<McpToolsetOptions> = {}): McpToolsetOptions {
  return {
    name: 'rec',
    command: process.execPath,
    args: ['--conditions=@wardrik/source', '--import', 'tsx', RECORDING_SERVER, record],
    cwd: ROOT,
    ...extra,
  };
}

function records(record: string): Array<{ event: string; tool: string; meta: Record<string, unknown>; pid: number }> {
  let text = '';
  try {
    text = readFileSync(record, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function reasonOf(answer: Answer): string {
  if (answer.type !== 'error') throw new Error(`expected an error answer, got ${JSON.stringify(answer)}`);
  return answer.reason;
}

async function rejection(promise: unknown): Promise<Error> {
  try {
    await promise;
  } catch (thrown) {
    return thrown as Error;
  }
  throw new Error('expected a rejection');
}

describe('what reaches the server', () => {
  it("a call's _meta carries agent, run, principal, idempotencyKey and fencingToken", async () => {
    const record = join(directory, 'meta.jsonl');
    const toolset = start(recording(record));
    const tools = await toolset.tools(toolsetContext());
    expect(tools.map((each) => each.name).sort()).toEqual(['rec__add', 'rec__wait_forever']);
    const answer = await call(tools, { id: 'c1.0', name: 'rec__add', arguments: { a: 2, b: 40 } }, callContext());
    expect(answer).toMatchObject({ type: 'ok', value: { sum: 42 }, labels: ['outside'] });
    expect(records(record)[0]?.meta).toEqual({
      agent: 'helper',
      run: 'r1',
      principal: 'carol',
      idempotencyKey: 'r1:c1.0',
      fencingToken: 7,
    });
  });

  it('cancelling a call sends notifications/cancelled', async () => {
    const record = join(directory, 'cancel.jsonl');
    const toolset = start(recording(record));
    const tools = await toolset.tools(toolsetContext());
    const controller = new AbortController();
    const answering = call(
      tools,
      { id: 'c1.0', name: 'rec__wait_forever', arguments: {} },
      callContext(controller.signal),
    );
    await until(() => records(record).some((each) => each.event === 'call'));
    controller.abort(new Error('the run was cancelled'));
    expect(await answering).toMatchObject({ type: 'error', code: 'cancelled' });
    await until(() => records(record).some((each) => each.event === 'cancelled'));
  });
});

describe('a server that goes away', () => {
  it('SIGKILLed mid-call: the call is lost; the next tools() starts it again', async () => {
    const record = join(directory, 'kill.jsonl');
    const logged: string[] = [];
    const toolset = start(recording(record, { log: (message) => logged.push(message) }));
    const tools = await toolset.tools(toolsetContext());
    const first = await call(tools, { id: 'c1.0', name: 'rec__add', arguments: { a: 1, b: 1 } }, callContext());
    const pid = (first as { value: { pid: number } }).value.pid;
    expect(children(RECORDING_SERVER)).toContain(pid);

    const answering = call(tools, { id: 'c1.0', name: 'rec__wait_forever', arguments: {} }, callContext());
    await until(() => records(record).some((each) => each.event === 'call' && each.tool === 'wait_forever'));
    process.kill(pid, 'SIGKILL');
    const answer = await answering;
    expect(answer).toMatchObject({ type: 'error', code: 'lost', labels: ['outside'] });
    expect(reasonOf(answer)).toMatch(
      /^Lost: MCP server rec, tool wait_forever: the server went away during the call \(its process exited\); the call may have run$/,
    );
    expect(logged.join('\n')).toMatch(/MCP server rec .*: connection lost: its process exited/);

    // The next step's tools() starts the server again; the tools are the same, so is the array.
    expect(await toolset.tools(toolsetContext())).toBe(tools);
    const again = await call(tools, { id: 'c1.0', name: 'rec__add', arguments: { a: 2, b: 2 } }, callContext());
    expect(again).toMatchObject({ type: 'ok', value: { sum: 4 } });
    expect((again as { value: { pid: number } }).value.pid).not.toBe(pid);
  });

  it('close() ends the child process; a call in flight is lost; the toolset offers nothing after', async () => {
    const toolset = start({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const tools = await toolset.tools(toolsetContext());
    expect(children(EVERYTHING)).toHaveLength(1);
    const answering = call(
      tools,
      { id: 'c1.0', name: 'everything__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      callContext(),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await toolset.close();
    expect(await answering).toMatchObject({ type: 'error', code: 'lost' });
    await until(() => children(EVERYTHING).length === 0, 5_000);
    const closed = await rejection(toolset.tools(toolsetContext()));
    expect(McpServerUnavailableError.isInstance(closed)).toBe(true);
    expect(closed.message).toMatch(/^MCP server everything \(.*\): the toolset was closed$/);
    const after = await call(
      tools,
      { id: 'c1.0', name: 'everything__echo', arguments: { message: 'x' } },
      callContext(),
    );
    expect(after).toMatchObject({ type: 'error', code: 'unavailable' });
    expect(reasonOf(after)).toBe('Unavailable: MCP server everything: the toolset was closed; the call was not sent');
  });
});

describe('a server that cannot be started or reached', () => {
  it('a command that does not exist: a clear error naming it, then a wait before the next try', async () => {
    const toolset = start({ name: 'ghost', command: 'wardrik-no-such-command', reconnect: { baseDelayMs: 60_000 } });
    const failure = await rejection(toolset.tools(toolsetContext()));
    expect(McpServerUnavailableError.isInstance(failure)).toBe(true);
    expect(failure.message).toBe(
      'MCP server ghost (wardrik-no-such-command): could not connect: command "wardrik-no-such-command" was not found (ENOENT)',
    );
    const soon = await rejection(toolset.tools(toolsetContext()));
    expect(soon.message).toMatch(/was not found \(ENOENT\); trying again in \d+ ms$/);
    const connected = await rejection(toolset.connect());
    expect(connected.message).toMatch(/trying again in/);
  });

  it('a server that exits at once: the error says so, with what it wrote to stderr', async () => {
    const toolset = start({
      name: 'broken',
      command: process.execPath,
      args: ['-e', "console.error('config error: MCP_TOKEN is not set'); process.exit(3)"],
    });
    const failure = await rejection(toolset.tools(toolsetContext()));
    expect(failure.message).toMatch(/^MCP server broken \(.*\): could not connect: the server process exited/);
    expect(failure.message).toMatch(/its stderr ended with: config error: MCP_TOKEN is not set/);
  });

  it('a server that writes nonsense: no answer in time, and the last transport error', async () => {
    const toolset = start({
      name: 'chatty',
      command: process.execPath,
      args: ['-e', "setInterval(() => console.log('hello, I am not JSON-RPC'), 20)"],
      connectTimeoutMs: 500,
    });
    const failure = await rejection(toolset.tools(toolsetContext()));
    expect(failure.message).toMatch(/^MCP server chatty \(.*\): could not connect: no answer within 500 ms/);
    expect(failure.message).toMatch(/the last transport error was: .*JSON/);
    await until(() => children('hello, I am not JSON-RPC').length === 0, 8_000);
  });

  it("tools() stops waiting when the step's signal aborts; the connection goes on", async () => {
    const toolset = start({
      name: 'slow',
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      connectTimeoutMs: 10_000,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const failure = await rejection(toolset.tools(toolsetContext(controller.signal)));
    expect(failure.message).toMatch(
      /^MCP server slow \(.* -e "setInterval\(\(\) => \{\}, 1000\)"\): still connecting$/,
    );
  });

  it('a nonsense listing: the usable tools stay, the rest are left out with why; nonsense answers are errors', async () => {
    const server = `
      import { createInterface } from 'node:readline';
      const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
      createInterface({ input: process.stdin }).on('line', (line) => {
        const message = JSON.parse(line);
        if (message.id === undefined) return;
        if (message.method === 'initialize') {
          send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '0' } } });
        } else if (message.method === 'tools/list') {
          send({ id: message.id, result: { tools: [
            { name: 'good', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
            { name: 'no_schema' },
            { name: 'bad name!', inputSchema: { type: 'object' } },
            { name: 'bad_schema', inputSchema: { type: 'object', properties: { n: { type: 'frobnicate' } } } },
            42,
          ] } });
        } else if (message.method === 'tools/call') {
          const n = message.params.arguments.n;
          if (n === 1) send({ id: message.id, result: { content: 'not an array' } });
          else if (n === 2) send({ id: message.id, error: { code: -32602, message: 'n is too big' } });
          else send({ id: message.id, result: { content: [{ type: 'text', text: 'fine' }] } });
        } else send({ id: message.id, result: {} });
      });`;
    const logged: string[] = [];
    const toolset = start(inline(server, { name: 'odd', log: (message) => logged.push(message) }));
    const tools = await toolset.tools(toolsetContext());
    expect(tools.map((each) => each.name)).toEqual(['odd__good']);
    const log = logged.join('\n');
    expect(log).toMatch(/tool no_schema is left out: inputSchema is required/);
    expect(log).toMatch(/tool bad name! is left out: invalid name/);
    expect(log).toMatch(/tool bad_schema is left out: /);
    expect(log).toMatch(/tool \(no name\) is left out: not an object/);

    const fine = await call(tools, { id: 'c1.0', name: 'odd__good', arguments: { n: 0 } }, callContext());
    expect(fine).toMatchObject({ type: 'ok', value: 'fine' });
    const malformed = await call(tools, { id: 'c1.0', name: 'odd__good', arguments: { n: 1 } }, callContext());
    expect(reasonOf(malformed)).toMatch(
      /^MCP server odd, tool good: the server's answer is not a tools\/call result: malformed answer: content/,
    );
    const refused = await call(tools, { id: 'c1.0', name: 'odd__good', arguments: { n: 2 } }, callContext());
    expect(reasonOf(refused)).toMatch(/tool good: the server answered with an error: .*n is too big/);
    expect(refused).not.toMatchObject({ code: 'lost' });
  });

  it('a listing that is not a listing: tools() says what is wrong', async () => {
    const server = `
      import { createInterface } from 'node:readline';
      const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
      createInterface({ input: process.stdin }).on('line', (line) => {
        const message = JSON.parse(line);
        if (message.id === undefined) return;
        if (message.method === 'initialize') {
          send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '0' } } });
        } else send({ id: message.id, result: { tools: 'none today' } });
      });`;
    const toolset = start(inline(server, { name: 'odd' }));
    const failure = await rejection(toolset.tools(toolsetContext()));
    expect(failure.message).toMatch(/^MCP server odd \(.*\): could not list its tools: malformed answer: tools: /);
  });
});

describe('tools that change', () => {
  it('notifications/tools/list_changed: listed again, a new array then (and only then)', async () => {
    const server = `
      import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
      import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
      import { z } from 'zod';
      const server = new McpServer({ name: 'changing', version: '1.0.0' });
      server.registerTool('add_tool', { description: 'Adds a tool.', inputSchema: { name: z.string() } }, async ({ name }) => {
        server.registerTool(name, { description: 'Added.', inputSchema: {}, annotations: { readOnlyHint: true } },
          async () => ({ content: [{ type: 'text', text: 'I am ' + name }] }));
        return { content: [{ type: 'text', text: 'added ' + name }] };
      });
      await server.connect(new StdioServerTransport());`;
    const toolset = start(inline(server, { name: 'changing' }));
    await toolset.connect();
    const before = await toolset.tools(toolsetContext());
    expect(before.map((each) => each.name)).toEqual(['changing__add_tool']);
    expect(await toolset.tools(toolsetContext())).toBe(before);

    const added = await call(
      before,
      { id: 'c1.0', name: 'changing__add_tool', arguments: { name: 'hello' } },
      callContext(),
    );
    expect(added).toMatchObject({ type: 'ok', value: 'added hello' });
    let after: readonly Tool<never>[] = before;
    await until(() => {
      const now = toolset.tools(toolsetContext());
      if (!(now instanceof Promise)) after = now;
      return after !== before;
    });
    expect(after.map((each) => each.name)).toEqual(['changing__add_tool', 'changing__hello']);
    expect(await toolset.tools(toolsetContext())).toBe(after);
    const hello = await call(after, { id: 'c1.0', name: 'changing__hello', arguments: {} }, callContext());
    expect(hello).toMatchObject({ type: 'ok', value: 'I am hello' });
  });
});

describe('options', () => {
  it.each([
    [{ command: 'x', name: 'has space' }, /name "has space" is invalid/],
    [{ command: 'x', name: 'a'.repeat(33) }, /name "a{33}" is invalid: use 1–32 characters/],
    [{ name: 'x' }, /mcpToolset x: give url \(Streamable HTTP\) or command \(stdio\)/],
    [{ url: 'http://a/mcp', command: 'x' }, /give either url .* or command .*, not both/],
    [{ url: 'not a url' }, /url must be an absolute http\(s\) URL/],
    [{ url: 'ftp://a/mcp' }, /url must be an http: or https: URL, got ftp:/],
    [{ url: 'http://a/mcp', args: ['x'] }, /args is for a command \(stdio\)/],
    [{ url: 'http://a/mcp', headers: { authorization: 1 } }, /headers\.authorization must be a string/],
    [{ command: '' }, /command must be a non-empty string/],
    [{ command: 'x', args: 'y' }, /args must be an array of strings/],
    [{ command: 'x', headers: {} }, /headers are for a url/],
    [{ command: 'x', env: { A: 1 } }, /env\.A must be a string/],
    [{ command: 'x', callTimeoutMs: 0 }, /callTimeoutMs must be a positive number of milliseconds/],
    [{ command: 'x', reconnect: { baseDelay: 1 } }, /reconnect\.baseDelay is not an option/],
    [{ command: 'x', timeout: 1 }, /timeout is not an option/],
    [{ command: 'x', trusted: 'yes' }, /trusted must be a boolean/],
  ])('%j is refused, naming the field', (options, message) => {
    expect(() => mcpToolset(options as unknown as McpToolsetOptions)).toThrow(message);
    try {
      mcpToolset(options as unknown as McpToolsetOptions);
    } catch (thrown) {
      expect(ToolDefinitionError.isInstance(thrown)).toBe(true);
    }
  });

  it('building a toolset starts nothing', () => {
    mcpToolset({ name: 'idle', command: process.execPath, args: [EVERYTHING, 'stdio', 'idle-marker'] });
    expect(children('idle-marker')).toEqual([]);
  });
});
