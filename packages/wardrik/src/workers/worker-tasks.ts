import type { CallToolResult, GetTaskResult, Task } from '@modelcontextprotocol/sdk/types.js';
import {
  type Answer,
  type CompleteExternal,
  error,
  mcpResultToAnswer,
  type RequestInputFor,
  type ToolContext,
} from '@wardrik/core';
import { isJsonObject } from '@wardrik/core/wire';
import { CONNECTION_CLOSED } from '../toolsets/describe-failure.js';
import type { TaskRequestOptions } from '../toolsets/mcp-server-connection.js';
import { taskStarted } from '../toolsets/mcp-task-call.js';
import { McpTaskWatcher, type TaskHolder } from '../toolsets/mcp-task-watcher.js';
import type { Reply } from './pending-call.js';
import type { CallMeta, WorkerConnection } from './worker-connection.js';
import type { TaskAsker } from './worker-questions.js';

/** Handles of runs waiting for a worker's MCP task: `workers/PRINCIPAL_ID/TASK_ID`. */
export const WORKER_TASK_PREFIX = 'workers/';

/** The JSON-RPC code of an answer about a task the worker does not know. */
const INVALID_PARAMS = -32602;
/** The code of an answer that is not what MCP says it must be. */
const INTERNAL_ERROR = -32603;

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** What the worker tasks need of the hub. */
export interface WorkerTasksDeps {
  /** The workers connected to this node. */
  readonly localWorkers: () => Iterable<WorkerConnection>;
  /** Whether a worker of this principal is connected to another node (a task may live there). */
  readonly elsewhere: (principalId: string) => boolean;
  /** How long each request about a task may take (ms). */
  readonly timeoutMs: number;
  readonly log: (message: string) => void;
}

/** One call of a worker tool that needs MCP tasks. */
export interface WorkerTaskCall {
  /** The worker (connected to this node) the call goes to; its task lives there. */
  readonly worker: WorkerConnection;
  /** The tool's name as the worker lists it. */
  readonly name: string;
  readonly arguments: unknown;
  readonly meta: CallMeta;
  readonly context: ToolContext;
  readonly idleTimeoutMs: number;
  readonly maxTimeMs: number;
  readonly trusted: boolean;
}

/**
 * Worker tools that need MCP tasks (`execution.taskSupport: 'required'`), run as toolsets run
 * theirs (`taskStarted`, `McpTaskWatcher`): the `tools/call` goes out task-augmented, the run
 * waits (a park of kind `external`) for the handle `workers/PRINCIPAL_ID/TASK_ID`, and the task
 * is followed (`tasks/get`, at once on `notifications/tasks/status`, then `tasks/result`) until its
 * result resumes the run.
 *
 * A task lives on the worker that created it, and belongs to the worker's principal: requests
 * about it go to that worker while it is connected, else to every worker of the principal
 * connected to this node in turn (a worker that reconnected is a new connection with the same
 * tasks; one that does not know the task says so, -32602) — never to another principal's. While
 * none is connected here, the run keeps waiting (logged; a person can answer the park, and its
 * deadline is the task's ttl). Once every worker of the principal says it does not know the task,
 * and none is connected to another node, the model is told the task is gone.
 *
 * A task that turns `input_required` asks a person: while Wardrik waits on its `tasks/result`,
 * the `elicitation/create` the worker sends for it (`_meta['io.modelcontextprotocol/related-task']`)
 * is asked through `requestInputFor` (an `input` park of the call that started the task, in the
 * run waiting for it; see `askerFor`), and the reply goes back to the worker.
 *
 * @example
 * ```ts
 * const tasks = new WorkerTasks({ localWorkers: () => connections.values(), elsewhere: () => false, timeoutMs: 60_000, log })
 * const answer = await tasks.start({ worker, name: 'research', arguments: args, meta, context, idleTimeoutMs, maxTimeMs, trusted: false })
 * ```
 */
export class WorkerTasks {
  readonly #deps: WorkerTasksDeps;
  readonly #watcher: McpTaskWatcher;
  /** Whose workers hold each task followed, by task id. */
  readonly #principals = new Map<string, string>();
  /** The worker connection that last answered about each task, by task id. */
  readonly #where = new Map<string, string>();
  /** Tasks whose principal has no worker here, logged once until one answers again. */
  readonly #absent = new Set<string>();
  /** Who answers what the workers ask for each task waiting for input, by `PRINCIPAL_ID/TASK_ID`. */
  readonly #askers = new Map<string, TaskAsker>();

  constructor(deps: WorkerTasksDeps) {
    this.#deps = deps;
    this.#watcher = new McpTaskWatcher({
      toolset: 'workers',
      server: 'worker',
      holder: 'the worker that ran it',
      ready: (taskId) => this.#holder(taskId),
      timeoutMs: deps.timeoutMs,
      backoff: { baseDelayMs: 500, maxDelayMs: 30_000 },
      log: deps.log,
    });
  }

  /**
   * Sends the task-augmented `tools/call` and answers `started` once the worker created the task
   * (the run parks `external`). Before that, the call fails as any worker call does: `lost`,
   * `cancelled`, or the worker's refusal.
   */
  async start(call: WorkerTaskCall): Promise<Answer> {
    const { worker, context } = call;
    const what = `worker ${worker.principal.name}, tool ${call.name}`;
    const outcome = await worker.callTool({
      name: call.name,
      arguments: call.arguments,
      meta: call.meta,
      signal: context.signal,
      idleTimeoutMs: call.idleTimeoutMs,
      maxTimeMs: call.maxTimeMs,
      task: {},
    });
    if (outcome.type === 'lost') return error(`Lost: ${outcome.reason}`, { code: 'lost' });
    if (outcome.type === 'cancelled') return error('the call was cancelled', { code: 'cancelled' });
    if (outcome.type === 'refused') return error(`Lost: ${outcome.reason}`, { code: 'lost' });
    const created = isJsonObject(outcome.result) ? readTask(outcome.result['task']) : undefined;
    if (created === undefined) {
      // Not a task: the worker refused the call with a tool error, or answered as no task-augmented call may.
      const answer = mcpResultToAnswer(outcome.result);
      if (answer.type === 'error') return answer;
      return error(`${what}: the worker answered a task-augmented call without creating a task`);
    }
    const principalId = worker.principal.id;
    return taskStarted({
      task: created,
      what,
      handle: `${WORKER_TASK_PREFIX}${principalId}/${created.taskId}`,
      trusted: call.trusted,
      details: { worker: worker.id, principal: worker.principal.name, tool: call.name },
      cancel: () => void worker.askAboutTask('tasks/cancel', created.taskId, this.#deps.timeoutMs),
      watch: (handle) => {
        this.#principals.set(created.taskId, principalId);
        this.#where.set(created.taskId, worker.id);
        this.#watcher.watch({
          taskId: created.taskId,
          handle,
          completeExternal: this.#delivering(created.taskId, context.completeExternal),
          requestInputFor: context.requestInputFor,
          mcpName: call.name,
          ...(created.pollInterval === undefined ? {} : { pollIntervalMs: created.pollInterval }),
        });
      },
    });
  }

  /**
   * Follows again, after a restart, the worker tasks runs still wait for (handles
   * `workers/PRINCIPAL_ID/TASK_ID`; others are ignored). Returns at once. Without
   * `requestInputFor`, a task that asks for input is cancelled (nobody can be asked).
   */
  resume(waiting: {
    readonly handles: readonly string[];
    readonly completeExternal: CompleteExternal;
    readonly requestInputFor?: RequestInputFor | undefined;
  }): void {
    let resumed = 0;
    for (const handle of waiting.handles) {
      const parsed = parseHandle(handle);
      if (parsed === undefined) continue;
      this.#principals.set(parsed.taskId, parsed.principalId);
      this.#watcher.watch({
        taskId: parsed.taskId,
        handle,
        completeExternal: this.#delivering(parsed.taskId, waiting.completeExternal),
        ...(waiting.requestInputFor === undefined ? {} : { requestInputFor: waiting.requestInputFor }),
      });
      resumed += 1;
    }
    if (resumed > 0) this.#deps.log(`workers: following ${resumed} MCP tasks again`);
  }

  /**
   * Who answers what a worker of principal `principalId` asks for task `taskId` now: the run
   * waiting for the task while it waits for input (its `tasks/result` pending), else nobody. A
   * worker of another principal is never answered for the task.
   */
  askerFor(principalId: string, taskId: string): TaskAsker | undefined {
    const waiting = this.#askers.get(`${principalId}/${taskId}`);
    return waiting === undefined || waiting.signal.aborted ? undefined : waiting;
  }

  /** A worker said a task's status changed: ask about it now. */
  statusChanged(taskId: string): void {
    this.#watcher.statusChanged(taskId);
  }

  /** How many tasks are being followed now. */
  get size(): number {
    return this.#watcher.size;
  }

  /** Stops following (runs keep waiting; a restart's `resume` follows them again). */
  async close(): Promise<void> {
    await this.#watcher.close();
  }

  /** `completeExternal`, forgetting where the task lives once its outcome is delivered (the watcher is done with it). */
  #delivering(taskId: string, completeExternal: CompleteExternal): CompleteExternal {
    return (handle, outcome) => {
      this.#principals.delete(taskId);
      this.#where.delete(taskId);
      this.#absent.delete(taskId);
      return completeExternal(handle, outcome);
    };
  }

  /** Who answers about a task now: its principal's workers connected here. Rejects while there are none. */
  async #holder(taskId: string): Promise<TaskHolder> {
    const principalId = this.#principals.get(taskId);
    if (principalId === undefined) throw new Error(`task ${taskId} belongs to no known principal`);
    if (this.#workersOf(principalId, taskId).length === 0) {
      if (!this.#absent.has(taskId)) {
        this.#absent.add(taskId);
        this.#deps.log(
          `worker task ${taskId}: no worker of its principal is connected to this node; the run waits for one (or for a person to answer its park)`,
        );
      }
      throw new Error('no worker of its principal is connected to this node');
    }
    this.#absent.delete(taskId);
    const ask = (method: 'tasks/get' | 'tasks/result' | 'tasks/cancel', options: TaskRequestOptions) =>
      this.#ask(principalId, taskId, method, options);
    return {
      getTask: async (_taskId, options) => readGetTask(await ask('tasks/get', options)),
      getTaskResult: async (_taskId, options) => (await ask('tasks/result', options)) as CallToolResult,
      cancelTask: async (_taskId, options) => {
        await ask('tasks/cancel', options).catch(() => {});
      },
      answerTaskRequests: (_taskId, asker, signal) => {
        const key = `${principalId}/${taskId}`;
        const waiting = { asker, signal };
        this.#askers.set(key, waiting);
        const stop = () => {
          signal.removeEventListener('abort', stop);
          if (this.#askers.get(key) === waiting) this.#askers.delete(key);
        };
        signal.addEventListener('abort', stop, { once: true });
        return stop;
      },
    };
  }

  /** The principal's workers connected here, the one that last answered about the task first. */
  #workersOf(principalId: string, taskId: string): WorkerConnection[] {
    const where = this.#where.get(taskId);
    const workers = [...this.#deps.localWorkers()].filter(
      (worker) => !worker.closed && worker.principal.id === principalId,
    );
    return workers.sort((a, b) => Number(b.id === where) - Number(a.id === where));
  }

  /**
   * Asks the principal's workers about the task, one after the other, until one knows it. Rejects
   * with -32602 if every one says it does not (and none is connected elsewhere), with the
   * worker's code if one refuses otherwise, and as a lost connection if one did not answer.
   */
  async #ask(
    principalId: string,
    taskId: string,
    method: 'tasks/get' | 'tasks/result' | 'tasks/cancel',
    options: TaskRequestOptions,
  ): Promise<unknown> {
    let unknown: Reply | undefined;
    let lost: Reply | undefined;
    for (const worker of this.#workersOf(principalId, taskId)) {
      if (options.signal?.aborted) break;
      const reply = await worker.askAboutTask(method, taskId, options.timeoutMs, options.signal);
      if (reply.type === 'result') {
        this.#where.set(taskId, worker.id);
        return reply.result;
      }
      if (reply.type === 'lost') lost = reply;
      else if (reply.code === INVALID_PARAMS) unknown = reply;
      else throw rpcError(reply.code ?? INTERNAL_ERROR, `worker ${worker.principal.name}: ${reply.message}`);
    }
    if (options.signal?.aborted) throw rpcError(CONNECTION_CLOSED, `Wardrik stopped waiting for ${method}`);
    if (lost?.type === 'lost') throw rpcError(CONNECTION_CLOSED, lost.reason);
    if (unknown?.type === 'error' && !this.#deps.elsewhere(principalId)) {
      throw rpcError(INVALID_PARAMS, `every worker of its principal says so: ${unknown.message}`);
    }
    throw new Error('no worker of its principal connected to this node knows it (it may be connected to another node)');
  }
}

/** `workers/PRINCIPAL_ID/TASK_ID` read back, if it is one. */
export function parseHandle(handle: string): { principalId: string; taskId: string } | undefined {
  if (!handle.startsWith(WORKER_TASK_PREFIX)) return undefined;
  const rest = handle.slice(WORKER_TASK_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { principalId: rest.slice(0, slash), taskId: rest.slice(slash + 1) };
}

/** A task as MCP describes it (`CreateTaskResult.task`, `GetTaskResult`), or undefined if it is not one. */
function readTask(value: unknown): Task | undefined {
  if (!isJsonObject(value)) return undefined;
  const { taskId, status, ttl, pollInterval, statusMessage } = value;
  if (typeof taskId !== 'string' || taskId === '' || typeof status !== 'string' || !STATUSES.has(status)) {
    return undefined;
  }
  if (pollInterval !== undefined && typeof pollInterval !== 'number') return undefined;
  if (statusMessage !== undefined && typeof statusMessage !== 'string') return undefined;
  return { ...value, taskId, status, ttl: typeof ttl === 'number' ? ttl : null } as Task;
}

function readGetTask(value: unknown): GetTaskResult {
  const task = readTask(value);
  if (task === undefined) throw rpcError(INTERNAL_ERROR, 'the answer to tasks/get is not a task');
  return task as GetTaskResult;
}

function rpcError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}
