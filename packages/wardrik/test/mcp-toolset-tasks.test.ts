/*
 * MCP tasks through mcpToolset, end to end with a real runtime on SQLite: a tool that needs tasks
 * answers `started`, the run parks `external` with the handle NAME:taskId, and the toolset follows
 * the task and delivers its result (or why it failed) — also after a restart (`resume`), after the
 * server went away and came back, and for a task the server forgot. Against server-everything over
 * stdio (simulate-research-query) and an official-SDK server over Streamable HTTP, run here so that
 * it outlives the runtimes that talk to it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { OUTSIDE, type Toolset } from '@wardrik/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, mcpToolset, type ParkRow, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import type { McpHttpToolsetOptions } from '../src/toolsets/mcp-toolset-options.js';
import { modelSteps, openWardrik, tempDbPath, until } from './helpers.js';

/*
 * The server: an MCP server (official SDK) over Streamable HTTP in this process, so that it
 * outlives the toolsets and runtimes that talk to it: a tool that needs tasks (`research`), one
 * whose tasks are optional (`lookup`, called as any tool), and a task store the test drives (it
 * finishes, fails, cancels or forgets tasks). Its tasks belong to the server, not to one HTTP
 * session, as a server scoping tasks by its callers' credentials has them: a client that connects
 * again sees them.
 */
interface TaskServer {
  readonly url: string;
  /** Tasks created, in order, with the arguments and `_meta` of the call that created each. */
  readonly created: Array<{ task: Task; args: Record<string, unknown>; meta: Record<string, unknown> | undefined }>;
  /** Calls of the tool whose tasks are optional. */
  readonly lookups: Array<Record<string, unknown>>;
  /** Creating a task waits for this, if set (to cancel a call before its task exists). */
  holdCreation: Promise<void> | undefined;
  /** Creations the server received while held. */
  readonly held: number[];
  complete(taskId: string, result: CallToolResult): Promise<void>;
  fail(taskId: string, reason: string, result?: CallToolResult): Promise<void>;
  cancel(taskId: string, reason: string): Promise<void>;
  /** Forgets every task (a server restarted without its tasks). */
  forget(): void;
  status(taskId: string): Promise<Task | null>;
  /** Stops answering: every connection is cut and the port closed (the tasks stay). */
  stop(): Promise<void>;
  /** Answers again, on the same port, with the same tasks. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Every operation of a store, with the session left out: tasks belong to the server. */
class ServerTaskStore implements TaskStore {
  inner = new InMemoryTaskStore();
  createTask(...args: Parameters<TaskStore['createTask']>) {
    return this.inner.createTask(args[0], args[1], args[2]);
  }
  getTask(taskId: string) {
    return this.inner.getTask(taskId);
  }
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: CallToolResult) {
    return this.inner.storeTaskResult(taskId, status, result);
  }
  getTaskResult(taskId: string) {
    return this.inner.getTaskResult(taskId);
  }
  updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string) {
    return this.inner.updateTaskStatus(taskId, status, statusMessage);
  }
  listTasks(cursor?: string) {
    return this.inner.listTasks(cursor);
  }
}

/** Starts the server on a free port of 127.0.0.1. */
async function startTaskServer(options: { ttl?: number | null; pollInterval?: number } = {}): Promise<TaskServer> {
  const store = new ServerTaskStore();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  let port = 0;
  let http: Server | undefined;

  function mcpServer(): McpServer {
    const server = new McpServer(
      { name: 'task-server', version: '1.0.0' },
      {
        capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
        taskStore: store,
      },
    );
    server.experimental.tasks.registerToolTask(
      'research',
      {
        description: 'Researches a topic (takes a while).',
        inputSchema: { topic: z.string() },
        annotations: { readOnlyHint: true },
        execution: { taskSupport: 'required' },
      },
      {
        createTask: async (args, extra) => {
          if (served.holdCreation !== undefined) {
            served.held.push(Date.now());
            await served.holdCreation;
          }
          const task = await extra.taskStore.createTask({
            ttl: options.ttl === undefined ? 600_000 : options.ttl,
            pollInterval: options.pollInterval ?? 50,
          });
          served.created.push({ task, args, meta: extra._meta as Record<string, unknown> | undefined });
          return { task };
        },
        getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId)) as never,
        getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
      },
    );
    server.registerTool(
      'lookup',
      {
        description: 'Looks a word up.',
        inputSchema: { word: z.string() },
        annotations: { readOnlyHint: true },
        execution: { taskSupport: 'optional' },
      } as never,
      async (args: { word: string }) => {
        served.lookups.push(args);
        return { content: [{ type: 'text' as const, text: `${args.word}: a word` }] };
      },
    );
    return server;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing !== undefined) return existing.handleRequest(request, response);
    if (typeof sessionId === 'string') {
      response
        .writeHead(404)
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    await mcpServer().connect(transport);
    await transport.handleRequest(request, response);
  }

  async function listen(): Promise<void> {
    const server = createServer((request, response) => {
      handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    http = server;
  }

  async function stop(): Promise<void> {
    const server = http;
    http = undefined;
    if (server === undefined) return;
    const closing = [...transports.values()];
    transports.clear();
    await Promise.all(closing.map((transport) => transport.close().catch(() => {})));
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  await listen();
  const served: TaskServer = {
    url: `http://127.0.0.1:${port}/mcp`,
    created: [],
    lookups: [],
    holdCreation: undefined,
    held: [],
    complete: (taskId, result) => store.storeTaskResult(taskId, 'completed', result),
    fail: async (taskId, reason, result) => {
      if (result !== undefined) await store.storeTaskResult(taskId, 'failed', result);
      else await store.updateTaskStatus(taskId, 'failed', reason);
    },
    cancel: (taskId, reason) => store.updateTaskStatus(taskId, 'cancelled', reason),
    forget: () => {
      store.inner.cleanup();
      store.inner = new InMemoryTaskStore();
    },
    status: (taskId) => store.getTask(taskId),
    stop,
    restart: listen,
    close: async () => {
      await stop();
      store.inner.cleanup();
    },
  };
  return served;
}

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let server: TaskServer;
let wardrik: Wardrik | undefined;
const logged: string[] = [];

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  server = await startTaskServer();
});
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
  server.holdCreation = undefined;
});
afterAll(async () => {
  await server?.close();
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

function remote(extra: Partial<McpHttpToolsetOptions> = {}) {
  return mcpToolset({
    name: 'remote',
    url: server.url,
    reconnect: { baseDelayMs: 20, maxDelayMs: 200 },
    log: (message) => logged.push(message),
    ...extra,
  });
}

/** An agent that calls `calls` in its first step, then answers with what the last call gave. */
function researcher(toolset: Toolset, calls: Array<{ name: string; arguments?: Record<string, unknown> }>) {
  return defineAgent({
    name: 'researcher',
    instructions: 'Research.',
    toolsets: [toolset],
    model: new ScriptedModel([
      { toolCalls: calls },
      (request) => ({ text: `got ${JSON.stringify(lastToolResults(request).map((each) => each.content))}` }),
    ]),
  });
}

const research = { name: 'remote__research', arguments: { topic: 'tides' } };

/** Waits for the run to park on its external wait, and gives that park. */
async function externalPark(runId: string) {
  let park: ParkRow | undefined;
  await until(async () => {
    const result = await wardrik!.wait(runId);
    park = result.parks.find((each) => each.kind === 'external');
    return park !== undefined;
  }, 20_000);
  return park!;
}

/** The run once it has ended. */
async function ended(runId: string, timeoutMs = 20_000) {
  await until(
    async () => ['completed', 'failed', 'cancelled'].includes((await wardrik!.getRunSummary(runId)).status),
    timeoutMs,
  );
  return wardrik!.wait(runId);
}

function lastTask() {
  const created = server.created.at(-1);
  if (created === undefined) throw new Error('no task was created');
  return created.task;
}

const report = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

describe('MCP tasks in mcpToolset', () => {
  it('server-everything: its research tool (tasks required) is offered; the run waits for the task and ends with its report, labelled outside', async () => {
    const everything = mcpToolset({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const agent = researcher(everything, [
      { name: 'everything__simulate-research-query', arguments: { topic: 'tides' } },
    ]);
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const first = await wardrik.run('researcher', 'research tides');
    const journal = (await wardrik.getRun(first.runId)).journal;
    expect(modelSteps(journal)[0]?.tools).toContain('everything__simulate-research-query');
    // The server does not mark it read-only: held for a person first, as any such tool.
    const approval = first.parks[0]!;
    expect(approval).toMatchObject({ kind: 'approval', rule: 'mcp-not-read-only' });
    await wardrik.answerPark(approval.id, { type: 'approve' }, { callHash: approval.callHash, by: 'olga' });
    const park = await externalPark(first.runId);
    expect(park.handle).toMatch(/^everything:[0-9a-f]{32}$/);
    expect(park.reason).toMatch(
      /^MCP server everything, tool simulate-research-query is running as MCP task [0-9a-f]{32}/,
    );
    // The task's ttl (5 minutes) is the wait's deadline.
    expect(park.deadline).toBeGreaterThan(Date.now() + 240_000);
    const result = await ended(first.runId);
    expect(result.status).toBe('completed');
    expect(result.output).toContain('# Research Report: tides');
    expect(result.labels).toEqual([OUTSIDE]);
  }, 30_000);

  it('a run parks external with handle NAME:taskId, the task completes on the server, and the run ends with its result; optional-task tools are called as any other', async () => {
    const agent = researcher(remote(), [{ name: 'remote__lookup', arguments: { word: 'tide' } }, research]);
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    const park = await externalPark(runId);
    const task = lastTask();
    expect(park).toMatchObject({ kind: 'external', handle: `remote:${task.taskId}` });
    expect(park.deadline).toBeGreaterThan(Date.now() + 500_000);
    expect(server.created.at(-1)?.args).toEqual({ topic: 'tides' });
    expect(server.created.at(-1)?.meta).toMatchObject({
      agent: 'researcher',
      run: runId,
      principal: expect.any(String),
    });
    expect(server.lookups).toEqual([{ word: 'tide' }]);
    // The task ends on the server; the toolset notices and delivers it.
    await server.complete(task.taskId, report('tides follow the moon'));
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('got ["tide: a word","tides follow the moon"]');
    expect(result.labels).toEqual([OUTSIDE]);
    const answered = (await wardrik.getRun(runId)).journal.filter((each) => each.record.type === 'call-answered');
    expect(answered.at(-1)?.record).toMatchObject({ answer: { type: 'ok', labels: [OUTSIDE] } });
  });

  it('a trusted toolset: the result carries no label', async () => {
    const agent = researcher(remote({ trusted: true }), [research]);
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    await externalPark(runId);
    await server.complete(lastTask().taskId, { content: [], structuredContent: { height: 3 } });
    const result = await ended(runId);
    expect(result.output).toBe('got [{"height":3}]');
    expect(result.labels).toEqual([]);
  });

  it.each([
    [
      'failed, with an error result',
      (taskId: string) =>
        server.fail(taskId, 'ignored', { content: [{ type: 'text', text: 'the archive is offline' }], isError: true }),
      /^got \[\{"error":"the work it started did not finish: MCP server remote, tool research: task [0-9a-f]+ failed: the archive is offline/,
    ],
    [
      'failed, with only a status message',
      (taskId: string) => server.fail(taskId, 'disk full'),
      /^got \[\{"error":"the work it started did not finish: MCP server remote, tool research: task [0-9a-f]+ failed: disk full/,
    ],
    [
      'cancelled on the server',
      (taskId: string) => server.cancel(taskId, 'an operator stopped it'),
      /^got \[\{"error":"the work it started did not finish: MCP server remote, tool research: task [0-9a-f]+ was cancelled: an operator stopped it/,
    ],
    [
      'completed with an isError result',
      (taskId: string) =>
        server.complete(taskId, { content: [{ type: 'text', text: 'no such topic' }], isError: true }),
      /^got \[\{"error":"the work it started did not finish: no such topic"/,
    ],
  ])('a task that %s: the model is told it failed', async (_what, end, told) => {
    const agent = researcher(remote(), [research]);
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    await externalPark(runId);
    await end(lastTask().taskId);
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(told);
  });

  it('after a restart: the run still waits, a new runtime with the same toolset follows the task again (resume), and the run ends with its result', async () => {
    const path = tempDbPath();
    const agent = () => researcher(remote(), [research]);
    wardrik = await openWardrik(path, [agent()]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    const park = await externalPark(runId);
    const task = lastTask();
    await wardrik.close();
    // The task ends while nobody follows it.
    await server.complete(task.taskId, report('tides follow the moon'));
    logged.length = 0;
    wardrik = await openWardrik(path, [agent()]);
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('got ["tides follow the moon"]');
    expect(result.labels).toEqual([OUTSIDE]);
    expect(logged.join('\n')).toContain('following 1 MCP tasks again');
    expect((await wardrik.getRun(runId)).journal.map((each) => each.record.type)).toContain('park-answered');
    expect(park.handle).toBe(`remote:${task.taskId}`);
  });

  it('after a restart, a task still working is followed until it ends', async () => {
    const path = tempDbPath();
    const agent = () => researcher(remote(), [research]);
    wardrik = await openWardrik(path, [agent()]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    await externalPark(runId);
    const task = lastTask();
    await wardrik.close();
    wardrik = await openWardrik(path, [agent()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await wardrik.getRunSummary(runId)).status).toBe('parked');
    await server.complete(task.taskId, report('later'));
    expect((await ended(runId)).output).toBe('got ["later"]');
  });

  it('after a restart, a task the server no longer knows: the model is told so', async () => {
    const path = tempDbPath();
    const agent = () => researcher(remote(), [research]);
    wardrik = await openWardrik(path, [agent()]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    await externalPark(runId);
    const task = lastTask();
    await wardrik.close();
    server.forget();
    wardrik = await openWardrik(path, [agent()]);
    const result = await ended(runId);
    expect(result.output).toContain(`the MCP server of toolset remote no longer knows task ${task.taskId}`);
  });

  it.each([
    ['is down for a while', 300],
    ['restarts at once (its sessions lost)', 0],
  ])(
    'the server %s while a task is followed: the toolset connects again and delivers the result',
    async (_what, downMs) => {
      logged.length = 0;
      const agent = researcher(remote(), [research]);
      wardrik = await openWardrik(tempDbPath(), [agent]);
      const { runId } = await wardrik.start('researcher', 'research tides');
      await externalPark(runId);
      const task = lastTask();
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.complete(task.taskId, report('found while you were away'));
      await server.restart();
      const result = await ended(runId);
      expect(result.output).toBe('got ["found while you were away"]');
      expect(logged.join('\n')).toMatch(/MCP server remote \(http:\/\/127\.0\.0\.1:\d+\/mcp\): connection lost/);
    },
    30_000,
  );

  it('cancelling the run before the task exists cancels the call; the server is told', async () => {
    let release!: () => void;
    server.holdCreation = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = server.held.length;
    const agent = researcher(remote(), [research]);
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    await until(() => server.held.length > before, 10_000);
    const cancelled = await wardrik.cancel(runId, 'changed my mind');
    expect(cancelled.status).toBe('cancelled');
    const created = server.created.length;
    release();
    // The server created it anyway (it was told too late to stop); nobody follows it.
    await until(() => server.created.length > created);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await server.status(lastTask().taskId)).toMatchObject({ status: 'working' });
  });

  it('a person answering the park ends the wait; the task finishing later is logged, not delivered', async () => {
    logged.length = 0;
    const agent = researcher(remote(), [research]);
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { runId } = await wardrik.start('researcher', 'research tides');
    const park = await externalPark(runId);
    await wardrik.answerPark(
      park.id,
      { type: 'answer', value: 'answered by hand' },
      { callHash: park.callHash, by: 'olga' },
    );
    expect((await ended(runId)).output).toBe('got ["answered by hand"]');
    await server.complete(lastTask().taskId, report('too late'));
    await until(() => logged.some((line) => line.includes('its result was not delivered')), 20_000);
  }, 30_000);
});
