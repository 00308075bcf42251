/*
 * A worker's MCP task that needs input asks a person, as toolsets' tasks do: the worker's server
 * (an official MCP SDK server through @wardrik/worker, or a stdio server through the bridge) turns
 * its task `input_required` and sends `elicitation/create` with `relatedTask`; the SDK delivers it
 * on the hub's `tasks/result`, the hub finds the run waiting for the task and opens an `input` park
 * of the call that started it; the person's answer goes back to the server, and the task's result
 * ends the run with what was chosen. Questions for a task nobody here waits on (still working, or
 * of another principal's worker) and sampling for a task are refused at once, saying why.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  RELATED_TASK_META_KEY,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
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

const SEAT_FORM = {
  type: 'object',
  properties: { seat: { type: 'string', enum: ['aisle', 'window'] } },
  required: ['seat'],
} as const;

/** A worker's server with a task tool (`book`, not read-only) whose tasks ask a person when told to. */
interface AskingWorker {
  readonly server: McpServer;
  readonly store: InMemoryTaskStore;
  readonly created: Task[];
  /**
   * Turns the task `input_required` and asks which seat, for the task (`relatedTask`: the SDK
   * queues it for the hub's `tasks/result`); the reply completes the task with the seat chosen.
   */
  askForSeat(taskId: string): Promise<void>;
}

function askingWorker(): AskingWorker {
  const store = new InMemoryTaskStore();
  const server = new McpServer(
    { name: 'booking', version: '1.0.0' },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  const worker: AskingWorker = {
    server,
    store,
    created: [],
    askForSeat: async (taskId) => {
      await store.updateTaskStatus(taskId, 'input_required', 'which seat?');
      const reply = await server.server.request(
        {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Aisle or window?', requestedSchema: SEAT_FORM },
        },
        ElicitResultSchema,
        { relatedTask: { taskId }, timeout: 600_000 },
      );
      const seat = reply.action === 'accept' ? String(reply.content?.['seat']) : `none (${reply.action})`;
      await store.storeTaskResult(taskId, 'completed', report(`booked seat: ${seat}`));
    },
  };
  server.experimental.tasks.registerToolTask(
    'book',
    {
      description: 'Books a flight (asks which seat).',
      inputSchema: { to: z.string() },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async (_args, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 600_000, pollInterval: 50 });
        worker.created.push(task);
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
  env = await WorkersEnv.start({ workers: { unavailableWaitMs: 5_000, sampling: true } });
});
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  await env.killWorkers();
});
afterAll(async () => {
  await env?.close();
});

async function connect(server: McpServer, principal: Credentials): Promise<WorkerConnection> {
  const connection = connectWorker({
    url: env.url,
    token: principal.token,
    server,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
  });
  connections.push(connection);
  await connection.ready;
  return connection;
}

async function openPark(runId: string, kind: ParkRow['kind']): Promise<ParkRow> {
  let park: ParkRow | undefined;
  await until(
    async () => {
      park = (await env.wardrik.listParks({ runId, status: 'open', kind }))[0];
      return park !== undefined;
    },
    SLOW,
    () => `run ${runId} to open a park of kind ${kind}`,
  );
  return park as ParkRow;
}

/** Approves the run's call (the tool is not read-only), then waits for it to park on the task. */
async function approvedAndWaiting(runId: string): Promise<ParkRow> {
  const approval = await openPark(runId, 'approval');
  await env.wardrik.answerPark(approval.id, { type: 'approve' }, { callHash: approval.callHash, by: 'tester' });
  return openPark(runId, 'external');
}

async function ended(runId: string) {
  await until(
    async () => ['completed', 'failed', 'cancelled'].includes((await env.wardrik.getRunSummary(runId)).status),
    SLOW,
    () => `run ${runId} to end`,
  );
  return env.wardrik.wait(runId);
}

/** An `elicitation/create` the server sends naming task `taskId` in `_meta` itself, outside any request. */
function askAbout(server: McpServer, taskId: string) {
  return server.server.request(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Aisle or window?',
        requestedSchema: SEAT_FORM,
        _meta: { [RELATED_TASK_META_KEY]: { taskId } },
      },
    },
    ElicitResultSchema,
    { timeout: SLOW },
  );
}

const book = workerCall('book', { to: 'Lisbon' });

describe("a worker's MCP task that needs input", () => {
  it('asks a person: an input park of the call that started the task; the answer reaches the task, whose result ends the run', async () => {
    const principal = await env.principal(['*']);
    const worker = askingWorker();
    await connect(worker.server, principal);
    const { runId } = await env.wardrik.start('support', plan([book]));
    const work = await approvedAndWaiting(runId);
    const taskId = worker.created[0]?.taskId ?? '';
    expect(work.handle).toBe(`workers/${principal.id}/${taskId}`);

    const asked = worker.askForSeat(taskId);
    const question = await openPark(runId, 'input');
    expect(question.call?.callId).toBe(work.call?.callId);
    expect(question.reason).toContain('Aisle or window?');
    expect(question.details).toMatchObject({ mode: 'form', schema: SEAT_FORM });
    expect((await env.wardrik.getRunSummary(runId)).status).toBe('parked');

    // While the question is open, a worker of another principal can't ask for this task.
    const stranger = new McpServer({ name: 'stranger', version: '1.0.0' }, { capabilities: { tools: {} } });
    stranger.registerTool('unrelated', { description: 'Unrelated.' }, async () => report('unrelated'));
    await connect(stranger, await env.principal(['*']));
    await expect(askAbout(stranger, taskId)).rejects.toThrow(
      `nothing on this node waits for input for task "${taskId}" of this worker's principal`,
    );

    // An answer that does not fit the form is refused; one that does reaches the task.
    await expect(
      env.wardrik.answerPark(question.id, { type: 'answer', value: { seat: 'wing' } }, { callHash: question.callHash }),
    ).rejects.toThrow(/seat/);
    await env.wardrik.answerPark(
      question.id,
      { type: 'answer', value: { seat: 'window' } },
      { callHash: question.callHash, by: 'pia' },
    );
    await asked;
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    expect(answersOf(result.output)).toEqual([
      { name: 'workers__book', content: 'booked seat: window', isError: false, labels: [OUTSIDE] },
    ]);
    expect(await env.wardrik.getPark(question.id)).toMatchObject({ status: 'answered', answeredBy: 'pia' });
    expect(worker.created).toHaveLength(1);
  });

  it('a question for a task nobody here waits on for input (still working), and sampling for a task, are refused at once', async () => {
    const principal = await env.principal(['*']);
    const worker = askingWorker();
    await connect(worker.server, principal);
    const { runId } = await env.wardrik.start('support', plan([book]));
    await approvedAndWaiting(runId);
    const taskId = worker.created[0]?.taskId ?? '';

    await expect(askAbout(worker.server, taskId)).rejects.toThrow(
      `params._meta['${RELATED_TASK_META_KEY}']: nothing on this node waits for input for task "${taskId}"`,
    );
    await expect(
      worker.server.server.request(
        {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: 'Summarize.' } }],
            maxTokens: 50,
            _meta: { [RELATED_TASK_META_KEY]: { taskId } },
          },
        },
        CreateMessageResultSchema,
        { timeout: SLOW },
      ),
    ).rejects.toThrow('Wardrik answers sampling/createMessage only during a tools/call, not for an MCP task');
    expect(await env.wardrik.listParks({ runId, status: 'open', kind: 'input' })).toEqual([]);

    await worker.store.storeTaskResult(taskId, 'completed', report('booked without asking'));
    const result = await ended(runId);
    expect(answersOf(result.output)[0]).toMatchObject({ content: 'booked without asking', isError: false });
  });

  it('after a restart of the node the task is followed again, and its question still reaches a person', async () => {
    const principal = await env.principal(['*']);
    const worker = askingWorker();
    await connect(worker.server, principal);
    const { runId } = await env.wardrik.start('support', plan([book]));
    const work = await approvedAndWaiting(runId);
    const taskId = worker.created[0]?.taskId ?? '';
    const port = Number(new URL(env.url).port);

    await env.stop();
    await env.open(port); // the worker reconnects by itself; the hub follows the task again (resume)
    await env.connected(principal, 1, 'book');
    const asked = worker.askForSeat(taskId);
    const question = await openPark(runId, 'input');
    expect(question.call?.callId).toBe(work.call?.callId);
    await env.wardrik.answerPark(
      question.id,
      { type: 'answer', value: { seat: 'aisle' } },
      { callHash: question.callHash },
    );
    await asked;
    const result = await ended(runId);
    expect(answersOf(result.output)[0]).toMatchObject({ content: 'booked seat: aisle', isError: false });
    expect(worker.created).toHaveLength(1);
  });
});

const BRIDGE = join(ROOT, 'packages/worker/src/bridge-cli.ts');
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

describe('a stdio MCP server through the bridge', () => {
  it("server-everything's research task, asked an ambiguous question, asks a person for a clarification; the report says what was chosen", async () => {
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
      plan([workerCall('simulate-research-query', { topic: 'python', ambiguous: true })]),
    );
    const work = await approvedAndWaiting(runId);
    const question = await openPark(runId, 'input');
    expect(question.call?.callId).toBe(work.call?.callId);
    expect(question.reason).toContain('could have multiple interpretations');
    expect(question.details).toMatchObject({ mode: 'form', schema: { type: 'object', required: ['interpretation'] } });
    await env.wardrik.answerPark(
      question.id,
      { type: 'answer', value: { interpretation: 'snake' } },
      { callHash: question.callHash },
    );
    const result = await ended(runId);
    expect(result.status).toBe('completed');
    const [answer] = answersOf(result.output);
    expect(answer).toMatchObject({ isError: false, labels: [OUTSIDE] });
    expect(JSON.stringify(answer?.content)).toContain('Research Report: python (snake)');
  });
});
