import type { CallToolResult, GetTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { type CompleteExternal, type ExternalOutcome, mcpResultToAnswer, type RequestInputFor } from '@wardrik/core';
import { backoffDelay } from '@wardrik/core/wire';
import { CONNECTION_CLOSED, describeFailure, REQUEST_TIMEOUT } from './describe-failure.js';
import type { CallInFlight } from './mcp-calls-in-flight.js';
import type { TaskRequestOptions } from './mcp-server-connection.js';

/** The JSON-RPC code a server answers `tasks/get` or `tasks/result` with for a task it does not know. */
const INVALID_PARAMS = -32602;

/** How often to ask when the server suggests no poll interval (ms). */
const DEFAULT_POLL_MS = 1_000;
/** The fastest and slowest polling, whatever the server suggests (ms). */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;

/** Refusals in a row (JSON-RPC errors other than "no such task") after which the wait is ended. */
const MAX_REFUSALS = 5;

/**
 * Whoever holds a task and answers about it: an MCP server's connection (toolsets), or the workers
 * of a principal (see `WorkerTasks`). Requests reject as the MCP SDK's do: with the JSON-RPC
 * `code` of the holder's answer (-32602: it does not know the task), or a connection failure.
 */
export interface TaskHolder {
  getTask(taskId: string, options: TaskRequestOptions): Promise<GetTaskResult>;
  getTaskResult(taskId: string, options: TaskRequestOptions): Promise<CallToolResult>;
  /** `tasks/cancel`, best effort: never rejects. */
  cancelTask(taskId: string, options: TaskRequestOptions): Promise<void>;
  /** Why the holder's connection ended, once it has. */
  readonly ended?: string | undefined;
  /** A request failed in a way that may mean the holder is gone: check whether it is still there. */
  suspect?(): void;
  /**
   * Answers what the server asks for task `taskId` (elicitation, sampling) through `asker` until
   * the function returned is called or `signal` aborts. A holder without it can't pass a task's
   * questions on (the task is then cancelled when it asks).
   */
  answerTaskRequests?(taskId: string, asker: CallInFlight['context'], signal: AbortSignal): () => void;
}

/** How long a task that waits for input may wait for a person, through one `tasks/result` (ms). */
const INPUT_WAIT_MS = 24 * 60 * 60_000;

/** What the watcher needs of its toolset (or the workers hub). */
export interface McpTaskWatcherDeps {
  /** The toolset's name (handles are `NAME:taskId`), or what else owns the tasks. */
  readonly toolset: string;
  /** How messages name the server to the model, e.g. `MCP server everything`. */
  readonly server: string;
  /**
   * Who the model is told no longer knows a task it forgot (default `the MCP server of toolset
   * NAME`).
   */
  readonly holder?: string;
  /**
   * Whoever holds the task (the connection, made again if the server went away); rejects while it
   * can't be reached.
   */
  readonly ready: (taskId: string) => Promise<TaskHolder>;
  /** How long each request about a task may take (ms). */
  readonly timeoutMs: number;
  /** The delays between tries after a failure (ms): doubling from `baseDelayMs` up to `maxDelayMs`. */
  readonly backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly log: (message: string) => void;
}

interface Watched {
  readonly taskId: string;
  readonly handle: string;
  readonly completeExternal: CompleteExternal;
  /** Asks a person for the task when it needs input (the run waiting for it shows the question). */
  readonly requestInputFor?: RequestInputFor;
  /** The tool that started it, when this process called it (not after a restart). */
  readonly mcpName?: string;
  pollMs: number;
  /** Ends the current wait between polls at once (a status notification, close). */
  wake?: () => void;
}

/**
 * Follows the MCP tasks a toolset's tools started, and delivers each one's result to the run
 * waiting for it (`completeExternal(NAME:taskId, …)`): `tasks/get` every poll interval the server
 * suggests (at once when it sends `notifications/tasks/status`), then `tasks/result` once the task
 * ended. A completed task's result is mapped as any call result (an `isError` result is an error);
 * a failed or cancelled task, one asking for input, or one the server no longer knows is an error
 * naming the task. While the server can't be reached, it tries again with growing delays
 * (through the toolset, which connects again). Never rejects.
 *
 * @example
 * ```ts
 * const watcher = new McpTaskWatcher({ toolset: 'everything', server: 'MCP server everything', ready, timeoutMs: 60_000,
 *   backoff: { baseDelayMs: 500, maxDelayMs: 30_000 }, log: console.warn })
 * watcher.watch({ taskId, handle: `everything:${taskId}`, completeExternal: context.completeExternal })
 * ```
 */
export class McpTaskWatcher {
  readonly #deps: McpTaskWatcherDeps;
  readonly #watched = new Map<string, Watched>();
  readonly #following = new Set<Promise<void>>();
  #closed = false;

  constructor(deps: McpTaskWatcherDeps) {
    this.#deps = deps;
  }

  /** How many tasks are being followed now. */
  get size(): number {
    return this.#watched.size;
  }

  /** Follows a task until it ends (once: a task already followed keeps its first watch). */
  watch(spec: {
    readonly taskId: string;
    readonly handle: string;
    readonly completeExternal: CompleteExternal;
    readonly requestInputFor?: RequestInputFor;
    readonly mcpName?: string;
    readonly pollIntervalMs?: number;
  }): void {
    if (this.#closed || this.#watched.has(spec.taskId)) return;
    const watched: Watched = {
      taskId: spec.taskId,
      handle: spec.handle,
      completeExternal: spec.completeExternal,
      ...(spec.requestInputFor === undefined ? {} : { requestInputFor: spec.requestInputFor }),
      ...(spec.mcpName === undefined ? {} : { mcpName: spec.mcpName }),
      pollMs: pollInterval(spec.pollIntervalMs),
    };
    this.#watched.set(spec.taskId, watched);
    const following = this.#follow(watched)
      .catch((cause: unknown) =>
        this.#deps.log(`${this.#what(watched)}: stopped following it: ${describeFailure(cause)}`),
      )
      .finally(() => {
        this.#watched.delete(spec.taskId);
        this.#following.delete(following);
      });
    this.#following.add(following);
  }

  /** The server said the task's status changed: ask about it now. */
  statusChanged(taskId: string): void {
    this.#watched.get(taskId)?.wake?.();
  }

  /** Stops following every task (their runs keep waiting; a restart's `resume` follows them again). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const watched of this.#watched.values()) watched.wake?.();
    await Promise.all([...this.#following]);
  }

  async #follow(watched: Watched): Promise<void> {
    let failures = 0;
    let refusals = 0;
    let delay = watched.pollMs;
    for (;;) {
      await this.#pause(watched, delay);
      if (this.#closed) return;
      let connection: TaskHolder;
      try {
        connection = await this.#deps.ready(watched.taskId);
      } catch {
        // Why it can't be reached is logged by the toolset.
        delay = backoffDelay({ attempts: Number.POSITIVE_INFINITY, ...this.#deps.backoff }, ++failures);
        continue;
      }
      const step = await this.#check(watched, connection);
      if (this.#closed) return;
      if (step.type === 'done') return this.#deliver(watched, step.outcome);
      if (step.type === 'poll') {
        failures = 0;
        refusals = 0;
        watched.pollMs = pollInterval(step.pollIntervalMs ?? watched.pollMs);
        delay = watched.pollMs;
        continue;
      }
      if (step.type === 'refused' && ++refusals >= MAX_REFUSALS) {
        return this.#deliver(watched, { error: `${this.#what(watched)}: could not follow it: ${step.reason}` });
      }
      this.#deps.log(`${this.#what(watched)}: could not ask about it (${step.reason}); trying again`);
      if (step.type === 'failed' && connection.ended === undefined) connection.suspect?.();
      delay = backoffDelay({ attempts: Number.POSITIVE_INFINITY, ...this.#deps.backoff }, ++failures);
    }
  }

  /** Asks the server about the task once: its outcome if it ended, or when to ask again. */
  async #check(
    watched: Watched,
    connection: TaskHolder,
  ): Promise<
    | { type: 'done'; outcome: ExternalOutcome }
    | { type: 'poll'; pollIntervalMs?: number }
    | { type: 'failed' | 'refused'; reason: string }
  > {
    const options = { timeoutMs: this.#deps.timeoutMs };
    let task: GetTaskResult;
    try {
      task = await connection.getTask(watched.taskId, options);
    } catch (cause) {
      return this.#failure(watched, cause);
    }
    const what = this.#what(watched);
    const message = task.statusMessage === undefined ? '' : `: ${task.statusMessage}`;
    switch (task.status) {
      case 'working':
        return { type: 'poll', ...(task.pollInterval === undefined ? {} : { pollIntervalMs: task.pollInterval }) };
      case 'input_required': {
        const ask = watched.requestInputFor;
        if (ask === undefined || connection.answerTaskRequests === undefined) {
          // Nobody here can pass the task's questions on to a person.
          void connection.cancelTask(watched.taskId, options);
          return {
            type: 'done',
            outcome: {
              error: `${what} asked for input${message}, which nobody here can pass on to a person; the task was cancelled`,
            },
          };
        }
        return this.#answerQuestions(watched, connection, ask);
      }
      case 'cancelled':
        return { type: 'done', outcome: { error: `${what} was cancelled${message}` } };
      case 'failed': {
        // The result of a failed task, if the server keeps one, says why.
        const result = await connection.getTaskResult(watched.taskId, options).catch(() => undefined);
        const answer = result === undefined ? undefined : mcpResultToAnswer(result);
        const why = answer?.type === 'error' ? `: ${answer.reason}` : message;
        return { type: 'done', outcome: { error: `${what} failed${why}` } };
      }
      case 'completed': {
        let result: CallToolResult;
        try {
          result = await connection.getTaskResult(watched.taskId, options);
        } catch (cause) {
          return this.#failure(watched, cause, 'its result');
        }
        return { type: 'done', outcome: outcomeOf(result, what) };
      }
    }
  }

  /**
   * The task waits for input: `tasks/result` brings what it asks (its elicitation, on the request's
   * stream), which a person answers in the run waiting for the task (an `input` park), and ends
   * with the task's result. Sampling is not answered for a task (only during a call).
   */
  async #answerQuestions(
    watched: Watched,
    connection: TaskHolder,
    ask: RequestInputFor,
  ): Promise<{ type: 'done'; outcome: ExternalOutcome } | { type: 'failed' | 'refused'; reason: string }> {
    const stop = new AbortController();
    const stopAnswering = connection.answerTaskRequests?.(
      watched.taskId,
      {
        requestInput: (question, options) => ask(watched.handle, question, options),
        sample: () => Promise.reject(new Error('Wardrik answers sampling during a call only, not for an MCP task')),
      },
      stop.signal,
    );
    const closing = setInterval(() => {
      if (this.#closed) stop.abort(new Error('the toolset was closed'));
    }, 1_000);
    try {
      const result = await connection.getTaskResult(watched.taskId, { timeoutMs: INPUT_WAIT_MS, signal: stop.signal });
      return { type: 'done', outcome: outcomeOf(result, this.#what(watched)) };
    } catch (cause) {
      return this.#failure(watched, cause, 'its result');
    } finally {
      clearInterval(closing);
      stop.abort();
      stopAnswering?.();
    }
  }

  /** A request about the task got no usable answer: the server no longer knows it, refused, or is not there. */
  #failure(
    watched: Watched,
    cause: unknown,
    of = 'it',
  ): { type: 'done'; outcome: ExternalOutcome } | { type: 'failed' | 'refused'; reason: string } {
    const code = (cause as { code?: unknown } | null)?.code;
    if (code === INVALID_PARAMS) {
      const what = of === 'it' ? `task ${watched.taskId}` : `the result of task ${watched.taskId}`;
      const tool = watched.mcpName === undefined ? '' : ` (tool ${watched.mcpName})`;
      return {
        type: 'done',
        outcome: {
          error: `${this.#deps.holder ?? `the MCP server of toolset ${this.#deps.toolset}`} no longer knows ${what}${tool}: it may have expired or the server restarted (${describeFailure(cause)})`,
        },
      };
    }
    const reason = describeFailure(cause);
    // A JSON-RPC error (negative codes) is the server's answer; an HTTP status (a Streamable HTTP
    // session the server lost: 404) or no answer means the connection may be gone.
    if (typeof code === 'number' && code < 0 && code !== CONNECTION_CLOSED && code !== REQUEST_TIMEOUT) {
      return { type: 'refused', reason: `the server answered with an error: ${reason}` };
    }
    return { type: 'failed', reason };
  }

  async #deliver(watched: Watched, outcome: ExternalOutcome): Promise<void> {
    if (this.#closed) return;
    try {
      await watched.completeExternal(watched.handle, outcome);
    } catch (cause) {
      // A person answered the park already, the run was cancelled, or the runtime closed.
      this.#deps.log(`${this.#what(watched)} ended, but its result was not delivered: ${describeFailure(cause)}`);
    }
  }

  /** Waits `ms`, or less if woken (a status notification, close). */
  #pause(watched: Watched, ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        watched.wake = undefined;
        resolve();
      }
      watched.wake = done;
    });
  }

  #what(watched: Watched): string {
    const tool = watched.mcpName === undefined ? '' : `, tool ${watched.mcpName}`;
    return `${this.#deps.server}${tool}: task ${watched.taskId}`;
  }
}

/** A completed task's result as the run takes it: its value, or the error it reports. */
function outcomeOf(result: CallToolResult, what: string): ExternalOutcome {
  const answer = mcpResultToAnswer(result);
  if (answer.type === 'ok') return { value: answer.value };
  if (answer.type === 'error') return { error: answer.reason };
  return { error: `${what} ended asking for a person (${answer.reason}), which a task's result cannot do` };
}

function pollInterval(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms));
}
