/*
 * Worker tools that need MCP tasks, run as toolsets run theirs: the worker (an official MCP SDK
 * server with a task-required tool, connected through @wardrik/worker) creates a task, the run
 * parks `external` with the handle `workers/PRINCIPAL_ID/TASK_ID`, and the hub follows the task
 * (tasks/get, tasks/result) until its result resumes the run — also when the worker reconnects,
 * when another worker of its principal is asked first, after a restart of the Wardrik node
 * (same SQLite file and port; the worker reconnects by itself), and when the worker is gone for
 * good. Every task is created once: nothing runs twice.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { OUTSIDE } from '@wardrik/core';
import { connectWorker, type WorkerConnection } from '@wardrik/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ParkRow } from '../src/index.js';
import {
  answersOf,
  type Credentials,
  type WorkersEnv as Env,
  plan,
  ROOT,
  SLOW,
  until,
  WorkersEnv,
  workerCall,
} from './workers-env.js';
import { NodesEnv, storeKinds } from './workers-nodes-env.js';

/** A worker's MCP server with a tool that needs tasks (`research`) and its own task store. */
interface TaskWorker {
  readonly server: McpServer;
  readonly store: InMemoryTaskStore;
  /** Tasks created, in order, with the arguments and `_meta` of the call that created each. */
  readonly created: Array<{ task: Task; args: Record<string, unknown>; meta: Record<string, unknown> | undefined }>;
  complete(taskId: string, result: CallToolResult): Promise<void>;
  fail(taskId: string, result: CallToolResult): Promise<void>;
}

function taskWorker(options: { ttl?: number } = {}): TaskWorker {
  const store = new InMemoryTaskStore();
  const server = new McpServer(
    { name: 'researcher', version: '1.0.0' },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
    },
  );
  const worker: TaskWorker = {
    server,
    store,
    created: [],
    complete: (taskId, result) => store.storeTaskResult(taskId, 'completed', result),
    fail: (taskId, result) => store.storeTaskResult(taskId, 'failed', result),
  };
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
        const task = await extra.taskStore.createTask({ ttl: options.ttl ?? 600_000, pollInterval: 50 });
        worker.created.push({ task, args, meta: extra._meta as Record<string, unknown> | undefined });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId)) as never,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );
  return worker;
}

const report = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

let env: Env;
const connections: WorkerConnection[] = [];

beforeAll(async () => {
  env = await WorkersEnv.start({ workers: { unavailableWaitMs: 5_000 } });
});
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  await until(
    () => env.wardrik.workers.list().length === 0,
    SLOW,
    () => 'the workers to be gone',
  );
});
afterAll(async () => {
  await env?.close();
});

/** Connects `worker` as `principal` and waits until Wardrik has its tools. */
async function connect(worker: TaskWorker, principal: Credentials): Promise<WorkerConnection> {
  const connection = connectWorker({
    url: env.url,
    token: principal.token,
    server: worker.server,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
  });
  connections.push(connection);
  await connection.ready;
  return connection;
}

/** Closes a worker's connection (its server and tasks stay, to be connected again). */
async function disconnect(connection: WorkerConnection): Promise<void> {
  const before = env.wardrik.workers.list().length;
  connections.splice(connections.indexOf(connection), 1);
  await connection.close();
  await until(
    () => env.wardrik.workers.list().length === before - 1,
    SLOW,
    () => 'the worker to be gone',
  );
}

/** Connects `worker` as `principal`, starts a run that calls its `research`, and waits for the run to park on the task. */
async function waitingRun(worker: TaskWorker, principal: Credentials) {
  const connection = await connect(worker, principal);
  const { runId } = await env.wardrik.start('support', plan([research]));
  const park = await externalPark(runId);
  const taskId = worker.created.at(-1)?.task.taskId ?? '';
  return { connection, runId, park, taskId };
}

/** Waits for the run to park on its external wait, and gives that park. */
async function externalPark(runId: string): Promise<ParkRow> {
  let park: ParkRow | undefined;
  await until(
    async () => {
      park = (await env.wardrik.listParks({ runId, status: 'open' })).find((each) => each.kind === 'external');
      return park !== undefined;
    },
    SLOW,
    () => `run ${runId} to park external`,
  );
  return park as ParkRow;
}

/** The run once it has ended. */
async function ended(runId: string) {
  await until(
    async () => ['completed', 'failed', 'cancelled'].includes((await env.wardrik.getRunSummary(runId)).status),
    SLOW,
    () => `run ${runId} to end`,
  );
  return env.wardrik.wait(runId);
}

const research = workerCall('research', { topic: 'tides' });

const BRIDGE = join(ROOT, 'packages/worker/src/bridge-cli.ts');
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

describe('worker tools that need MCP tasks', () => {
  it('are offered; a call creates a task on the worker, the run parks external, and ends with the task result (outside)', async () => {
    const principal = await env.principal(['*']);
    const worker = taskWorker();
    await connect(worker, principal);
    const [listed] = env.wardrik.workers.list();
    expect(listed?.tools).toEqual(['research']);
    expect(listed?.rejected).toEqual([]);

    const input = plan([research]);
    const { runId } = await env.wardrik.start('support', input);
    const park = await externalPark(runId);
    expect(worker.created).toHaveLength(1);
    const [created] = worker.created;
    const taskId = created?.task.taskId ?? '';
    expect(park.handle).toBe(`workers/${principal.id}/${taskId}`);
    expect(park.reason).toContain(`worker ${principal.name}, tool research is running as MCP task ${taskId}`);
    expect(park.deadline).toBeGreaterThan(Date.now() + 500_000); // the task's ttl
    expect(created?.args).toEqual({ topic: 'tides' });
    expect(created?.meta).toMatchObject({ agent: 'support', run: runId, idempotencyKey: expect.any(String) });

    await worker.complete(taskId, report('tides follow the moon'));
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)).toEqual([
      { name: 'workers__research', content: 'tides follow the moon', isError: false, labels: [OUTSIDE] },
    ]);
    expect(worker.created).toHaveLength(1);
  });

  it('a task that fails: the model is told why', async () => {
    const principal = await env.principal(['*']);
    const worker = taskWorker();
    const { runId, taskId } = await waitingRun(worker, principal);
    await worker.fail(taskId, { content: [{ type: 'text', text: 'the archive is offline' }], isError: true });
    const [answer] = answersOf((await ended(runId)).output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toContain(
      `worker, tool research: task ${taskId} failed: the archive is offline`,
    );
  });

  it('the worker reconnects mid-task (a new connection, the same tasks): the task is followed on it', async () => {
    const principal = await env.principal(['*']);
    const worker = taskWorker();
    const { runId, taskId, connection: first } = await waitingRun(worker, principal);
    await disconnect(first);
    await worker.complete(taskId, report('found while away'));
    await connect(worker, principal);
    const result = await ended(runId);
    expect(answersOf(result.output)[0]).toMatchObject({ content: 'found while away', isError: false });
    expect(worker.created).toHaveLength(1);
  });

  it("another worker of the principal that does not know the task is asked too; the task's own worker answers", async () => {
    const principal = await env.principal(['*']);
    const holder = taskWorker();
    const other = taskWorker();
    const { runId, taskId, connection: holding } = await waitingRun(holder, principal);
    // The holder reconnects after the other worker: the other is now the oldest, and asked first.
    await disconnect(holding);
    await connect(other, principal);
    await connect(holder, principal);
    await holder.complete(taskId, report('from its own worker'));
    expect(answersOf((await ended(runId)).output)[0]).toMatchObject({ content: 'from its own worker' });
    expect(other.created).toHaveLength(0);
  });

  it('the worker is gone for good: the run waits (a person can answer); a worker of its principal that does not know the task ends the wait with why', async () => {
    const principal = await env.principal(['*']);
    const worker = taskWorker();
    const { runId, park, taskId, connection } = await waitingRun(worker, principal);
    env.logs.length = 0;
    await disconnect(connection);
    await until(
      () => env.logs.some((line) => line.includes(`worker task ${taskId}: no worker of its principal is connected`)),
      SLOW,
      () => `the hub to log that no worker can be asked; logs: ${env.logs.join('\n')}`,
    );
    expect((await env.wardrik.getRunSummary(runId)).status).toBe('parked');
    expect(await env.wardrik.listParks({ runId, status: 'open' })).toEqual([expect.objectContaining({ id: park.id })]);

    // A new worker of the principal (a restarted process: its task store is empty).
    await connect(taskWorker(), principal);
    const [answer] = answersOf((await ended(runId)).output);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer?.content)).toContain(`the worker that ran it no longer knows task ${taskId}`);
  });

  it('a worker of another principal is never asked about the task', async () => {
    const principal = await env.principal(['*']);
    const stranger = await env.principal(['*']);
    const worker = taskWorker();
    const { runId, taskId, connection } = await waitingRun(worker, principal);
    // The stranger's server holds the very same tasks: asked, it would answer.
    const asked: string[] = [];
    await connect({ ...worker, server: serverOver(worker.store, asked) }, stranger);
    env.logs.length = 0;
    await disconnect(connection);
    await worker.complete(taskId, report('not for the stranger'));
    await until(
      () => env.logs.some((line) => line.includes(`worker task ${taskId}: no worker of its principal`)),
      SLOW,
      () => `the hub to log that no worker of the principal is connected; logs: ${env.logs.join('\n')}`,
    );
    expect((await env.wardrik.getRunSummary(runId)).status).toBe('parked');
    await connect(worker, principal);
    expect(answersOf((await ended(runId)).output)[0]).toMatchObject({ content: 'not for the stranger' });
    expect(asked).toEqual([]);
  });
});

describe('a stdio MCP server through the bridge, as a separate process', () => {
  it("server-everything's simulate-research-query (tasks required): approved by a person, it runs as a task and the run ends with its report", async () => {
    const principal = await env.principal(['*']);
    env.spawn('everything', [
      BRIDGE,
      '--url',
      env.url,
      '--token',
      principal.token,
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ]);
    await env.connected(principal, 1, 'simulate-research-query');
    const { runId } = await env.wardrik.start(
      'support',
      plan([workerCall('simulate-research-query', { topic: 'tides' })]),
    );
    // Not marked read-only by the server: held for a person first, as any such worker tool.
    await until(
      async () => (await env.approve(runId)) === 1,
      SLOW,
      () => 'the approval park',
    );
    const park = await externalPark(runId);
    expect(park.handle).toMatch(new RegExp(`^workers/${principal.id}/.+`));
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    const [answer] = answersOf(result.output);
    expect(answer).toMatchObject({ isError: false, labels: [OUTSIDE] });
    expect(JSON.stringify(answer?.content)).toContain('Research Report: tides');
    await env.killWorkers();
  });
});

describe('across nodes (one MemoryStore)', () => {
  it('a task tool runs on workers connected to the node driving the run; from another node the call is Unavailable, saying why', async () => {
    const memory = storeKinds.find((kind) => kind.name === 'one MemoryStore');
    const nodes = await NodesEnv.start(memory!.make(), ['node-a', 'node-b'], { workers: { unavailableWaitMs: 200 } });
    const worker = taskWorker();
    try {
      const principal = await nodes.principal(['*']);
      const connection = connectWorker({
        url: nodes.node('node-a').url,
        token: principal.token,
        server: worker.server,
      });
      connections.push(connection);
      await connection.ready;
      await nodes.listed('node-b', principal, 'node-a', 'research');

      const there = await nodes.node('node-b').wardrik.run('support', plan([research]));
      const [refused] = answersOf(there.output);
      expect(refused?.isError).toBe(true);
      expect(JSON.stringify(refused?.content)).toContain(
        'Unavailable: no worker connected to this node (it needs MCP tasks, which run on workers connected to the node driving the run) offers research',
      );
      expect(worker.created).toHaveLength(0);

      const here = nodes.node('node-a').wardrik;
      const { runId } = await here.start('support', plan([research]));
      await until(async () => worker.created.length === 1);
      await worker.complete(worker.created[0]?.task.taskId ?? '', report('from node A'));
      await until(async () => (await here.getRunSummary(runId)).status === 'completed');
      expect(answersOf((await here.wait(runId)).output)[0]).toMatchObject({ content: 'from node A' });
    } finally {
      await Promise.all(connections.splice(0).map((connection) => connection.close()));
      await nodes.close();
    }
  });
});

describe('a restart of the Wardrik node mid-task', () => {
  it('the run still waits; the new node follows the task again once the worker reconnects, and the run ends with its result — created once', async () => {
    const principal = await env.principal(['*']);
    const worker = taskWorker();
    const { runId, park, taskId } = await waitingRun(worker, principal);
    const port = Number(new URL(env.url).port);

    await env.stop();
    await worker.complete(taskId, report('done while Wardrik was down'));
    // createWardrik hands the hub the worker tasks runs still wait for (watchExternalWork): nothing to do here.
    await env.open(port);
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)[0]).toMatchObject({ content: 'done while Wardrik was down', isError: false });
    expect(park.handle).toBe(`workers/${principal.id}/${taskId}`);
    // Nothing ran twice: one task, and one call answer in the journal.
    expect(worker.created).toHaveLength(1);
    const journal = (await env.wardrik.getRun(runId)).journal.map((each) => each.record.type);
    expect(journal.filter((type) => type === 'call-started')).toHaveLength(1);
  });
});

/** Another MCP server over `store` (the same tasks), noting each task it is asked about in `asked`. */
function serverOver(store: InMemoryTaskStore, asked: string[]): McpServer {
  const noting: TaskStore = {
    createTask: (...args) => store.createTask(...args),
    getTask: (taskId, sessionId) => {
      asked.push(taskId);
      return store.getTask(taskId, sessionId);
    },
    storeTaskResult: (...args) => store.storeTaskResult(...args),
    getTaskResult: (taskId, sessionId) => {
      asked.push(taskId);
      return store.getTaskResult(taskId, sessionId);
    },
    updateTaskStatus: (...args) => store.updateTaskStatus(...args),
    listTasks: (...args) => store.listTasks(...args),
  };
  const server = new McpServer(
    { name: 'stranger', version: '1.0.0' },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: noting,
    },
  );
  server.registerTool('unrelated', { description: 'Unrelated.' }, async () => report('unrelated'));
  return server;
}
