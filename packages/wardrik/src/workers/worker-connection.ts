import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { McpTool, Progress } from '@wardrik/core';
import { type JsonRpcId, type JsonRpcResponse, parseJsonRpcFrame, RPC } from '@wardrik/core/wire';
import type { WebSocket } from 'ws';
import type { Principal } from '../auth/types.js';
import { acceptListedTools, truncateBytes } from './listed-tool.js';
import { type CallOutcome, type Pending, PendingCall, type Reply } from './pending-call.js';
import { readProgress } from './progress-notification.js';
import {
  answerWorkerQuestion,
  type CallAsker,
  QUESTION_METHODS,
  type QuestionAnswer,
  RELATED_CALL_META,
  relatedTaskOf,
  type TaskAsker,
  taskQuestionRefused,
  unrelatedQuestion,
} from './worker-questions.js';

export type { CallOutcome } from './pending-call.js';

/** What a call's `_meta` carries. */
export interface CallMeta {
  readonly agent: string;
  readonly run: string;
  readonly principal: string;
  readonly idempotencyKey: string;
  /** The attempt's fencing token (see `ToolContext.fencingToken`): a later attempt, on any node, has a higher one. */
  readonly fencingToken?: number;
  /** The labels the run carries: what the worker is handed is as trusted as they say. */
  readonly labels: readonly string[];
  /** The call attempt's W3C trace context (`traceparent`, `tracestate`), when telemetry is on. */
  readonly trace?: Readonly<Record<string, string>>;
}

/** A `tools/call` to send. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: unknown;
  readonly meta: CallMeta;
  /** Aborting it cancels the call (the worker gets `notifications/cancelled`). */
  readonly signal: AbortSignal;
  /** How long the call may go without an answer or progress (ms); progress starts it again. Past it: lost. */
  readonly idleTimeoutMs: number;
  /** The most the call may take in all, progress or not (ms; never less than `idleTimeoutMs`). Past it: lost. */
  readonly maxTimeMs: number;
  /** Receives the worker's `notifications/progress` for the call (each with a greater `progress`). */
  readonly onProgress?: (progress: Progress) => void;
  /** Task augmentation (MCP tasks): the worker answers with the task it created (`{ task }`), not the result. */
  readonly task?: Readonly<Record<string, unknown>>;
  /**
   * Who answers the worker's `elicitation/create` and `sampling/createMessage` for this call (its
   * `_meta['wardrik/related-call']` is the call's request id): the call's context. None: refused.
   */
  readonly asker?: CallAsker;
}

/** Timings and limits of a connection. */
export interface ConnectionOptions {
  readonly handshakeTimeoutMs: number;
  readonly pingIntervalMs: number;
  readonly pingTimeoutMs: number;
  /** Protocol faults tolerated before the worker is disconnected. */
  readonly maxFaults: number;
  readonly onTools: (connection: WorkerConnection) => void;
  readonly onClose: (connection: WorkerConnection, reason: string) => void;
  /** Whether the worker may sample the agent's model during a call (`sampling/createMessage`). Default false. */
  readonly sampling?: boolean;
  /** The worker said an MCP task's status changed (`notifications/tasks/status`). */
  readonly onTaskStatus?: (connection: WorkerConnection, taskId: string) => void;
  /**
   * Who answers what the worker asks for one of its MCP tasks (`_meta['io.modelcontextprotocol/related-task']`)
   * now: the run waiting for the task, while it waits for input. None: such questions are refused.
   */
  readonly taskAsker?: (connection: WorkerConnection, taskId: string) => TaskAsker | undefined;
  readonly log: (message: string) => void;
}

const PROTOCOL_VERSION = '2025-06-18';

/**
 * Wardrik's own notification to a worker, sent once each listing of its tools is registered (the
 * worker's `ready` waits for it). The same method name as `@wardrik/worker`'s `WARDRIK_LISTED_METHOD`.
 */
export const WARDRIK_LISTED_METHOD = 'notifications/wardrik/listed';

/** How many ids of calls Wardrik stopped waiting for it remembers, to drop their late answers quietly. */
const REMEMBERED_CANCELS = 4_096;

/** How long `close()` waits for the worker to finish the closing handshake before cutting the socket. */
const CLOSE_GRACE_MS = 2_000;

/**
 * One worker's connection: Wardrik is the MCP client, the worker the MCP server. Speaks JSON-RPC
 * 2.0 over the WebSocket the worker opened: `initialize`, `tools/list` (again on
 * `notifications/tools/list_changed`), `tools/call` with `_meta`, `notifications/cancelled`, `ping`;
 * and, once each listing is registered, `notifications/wardrik/listed` (Wardrik's own). It answers
 * the worker's `elicitation/create` and `sampling/createMessage` sent during a call (see
 * `ToolCall.asker`), and its `elicitation/create` for an MCP task that waits for input (see
 * `ConnectionOptions.taskAsker`).
 * Bad frames get protocol errors; a worker that keeps misbehaving or stops answering pings is
 * disconnected, and its calls in flight are lost.
 *
 * Answers to calls that arrive after a `list_changed` are held until the new list is in, so a
 * tool a worker registers while running a call is offered by the time the model reads its answer.
 */
export class WorkerConnection {
  readonly id = `wkr_${randomUUID()}`;
  readonly principal: Principal;
  /**
   * When it connected (ms): this process's clock at first, then the store's once the hub has
   * offered its tools to the other nodes (so that "connected first" means the same on every node).
   */
  connectedAt: number;
  /** Grows each time its tools are listed (the first listing makes it 1). */
  revision = 0;
  /** The tools it offers, by name (valid ones only). */
  tools = new Map<string, McpTool>();
  /** The name the model sees for each tool it offers (see `workerModelName`), by the tool's name. */
  modelNames = new Map<string, string>();
  /** Tools left out of its last list, with why. */
  rejected: Array<{ name: string; reason: string }> = [];
  /** Calls in flight. */
  inflight = 0;
  #socket: WebSocket;
  #options: ConnectionOptions;
  #nextId = 1;
  #pending = new Map<JsonRpcId, Pending>();
  /** The worker's questions being answered (elicitation, sampling), by the worker's request id. */
  #questions = new Map<JsonRpcId, AbortController>();
  /** Ids of requests Wardrik stopped waiting for, oldest first (a late answer to one is dropped). */
  #cancelled = new Set<JsonRpcId>();
  #faults = 0;
  #closed = false;
  #ping: NodeJS.Timeout | undefined;
  #listing: Promise<void> | undefined;
  /** A `list_changed` arrived while listing: list again once done. */
  #listAgain = false;
  /** Call answers held while a new list is being fetched. */
  #held: Array<() => void> | undefined;
  /** The TCP socket under the WebSocket while it is corked. */
  #corked: Socket | undefined;
  readonly #uncork = () => {
    const corked = this.#corked;
    this.#corked = undefined;
    corked?.uncork();
  };

  constructor(socket: WebSocket, principal: Principal, options: ConnectionOptions, now = Date.now()) {
    this.#socket = socket;
    this.principal = principal;
    this.#options = options;
    this.connectedAt = now;
    socket.on('message', (data, isBinary) => this.#receive(isBinary ? null : data.toString()));
    socket.on('close', (code, reason) =>
      this.#lose(`the worker disconnected (${code}${reason.length ? `: ${reason}` : ''})`),
    );
    socket.on('error', (error) => this.#lose(`connection error: ${error.message}`));
  }

  /** Initializes the session and lists the tools. Rejects (and closes) if either fails. */
  async start(): Promise<void> {
    const init = await this.#request(
      'initialize',
      {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: CLIENT_CAPABILITIES,
        clientInfo: { name: 'wardrik', version: '0.1.0' },
      },
      this.#options.handshakeTimeoutMs,
    );
    if (init.type !== 'result') {
      const reason = `initialize failed: ${describeReply(init)}`;
      this.#options.log(`worker ${this.principal.name}: ${reason}`);
      this.close(1002, reason);
      throw new Error(reason);
    }
    this.#notify('notifications/initialized');
    try {
      await this.#list();
    } catch (error) {
      const reason = (error as Error).message;
      this.#options.log(`worker ${this.principal.name}: ${reason}`);
      this.close(1002, reason);
      throw error;
    }
    if (this.#closed) return;
    this.#ping = setInterval(() => this.#sendPing(), this.#options.pingIntervalMs);
    this.#ping.unref();
  }

  /**
   * Sends `tools/call` and waits for the worker's result. Its `_meta` carries a `progressToken`
   * (the request's id): the worker's `notifications/progress` for it reach `onProgress` and start
   * the idle timeout again. Aborting `signal` cancels the call (the worker gets
   * `notifications/cancelled`); so does passing a timeout, which makes the call lost.
   */
  callTool(call: ToolCall): Promise<CallOutcome> {
    if (this.#closed) return Promise.resolve({ type: 'lost', reason: 'the worker disconnected' });
    if (call.signal.aborted) return Promise.resolve({ type: 'cancelled' });
    const id = this.#nextId++;
    return new Promise<CallOutcome>((resolve) => {
      this.#pending.set(id, new PendingCall(this, id, resolve, call));
      this.inflight += 1;
      this.#sendText(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(call.name)},"arguments":${JSON.stringify(call.arguments ?? {})},"_meta":${metaJson(id, call.meta)}${call.task ? `,"task":${JSON.stringify(call.task)}` : ''}}}`,
      );
    });
  }

  /**
   * Asks the worker about an MCP task it created (`tasks/get`, `tasks/result`, `tasks/cancel`):
   * its answer, its JSON-RPC error (with the code: -32602 when it does not know the task), or lost.
   * Aborting `signal` stops waiting (the worker gets `notifications/cancelled`; the reply is lost).
   */
  askAboutTask(
    method: 'tasks/get' | 'tasks/result' | 'tasks/cancel',
    taskId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Reply> {
    return this.#request(method, { taskId }, timeoutMs, signal);
  }

  /** A call stopped waiting (cancelled or timed out): tell the worker, and drop its late answer. */
  stopCall(call: PendingCall, why: string): boolean {
    if (!this.#pending.delete(call.id)) return false;
    this.inflight -= 1;
    this.#forget(call.id);
    this.#notify('notifications/cancelled', { requestId: call.id, reason: why });
    return true;
  }

  /** Closes the connection; calls in flight are lost. */
  close(code = 1000, reason = 'closing'): void {
    const socket = this.#socket;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
      socket.close(code, truncateBytes(reason, 120));
      // A worker that never finishes the closing handshake is cut off.
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    }
    this.#lose(reason);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #list(): Promise<void> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const reply = await this.#request('tools/list', cursor ? { cursor } : {}, this.#options.handshakeTimeoutMs);
      if (reply.type !== 'result') throw new Error(`tools/list failed: ${describeReply(reply)}`);
      const result = reply.result as { tools?: unknown; nextCursor?: unknown } | null;
      if (!Array.isArray(result?.tools)) throw new Error('tools/list: the result has no tools array');
      tools.push(...result.tools);
      cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    if (this.#closed) return;
    const { tools: accepted, modelNames, rejected } = acceptListedTools(tools);
    for (const { name, reason } of rejected)
      this.#options.log(`worker ${this.principal.name}: tool ${name} left out: ${reason}`);
    this.tools = accepted;
    this.modelNames = modelNames;
    this.rejected = rejected;
    this.revision += 1;
    this.#options.onTools(this);
    // The tools are offered from now on: tell the worker (its `ready` waits for this; a worker that
    // predates it ignores a notification it does not know, as MCP servers do).
    this.#notify(WARDRIK_LISTED_METHOD, { accepted: accepted.size, rejected });
  }

  /** Lists again after `list_changed`, holding call answers until the new list is in. */
  #relist(): void {
    if (this.#listing) {
      this.#listAgain = true;
      return;
    }
    this.#held ??= [];
    this.#listing = this.#list()
      .catch((error: Error) => this.#options.log(`worker ${this.principal.name}: ${error.message}`))
      .finally(() => {
        this.#listing = undefined;
        if (this.#listAgain && !this.#closed) {
          this.#listAgain = false;
          this.#relist();
          return;
        }
        const held = this.#held ?? [];
        this.#held = undefined;
        for (const deliver of held) deliver();
      });
  }

  async #sendPing(): Promise<void> {
    const reply = await this.#request('ping', {}, this.#options.pingTimeoutMs);
    if (reply.type === 'lost' && !this.#closed) this.close(1011, 'the worker stopped answering pings');
  }

  #request(method: string, params: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<Reply> {
    if (this.#closed) return Promise.resolve({ type: 'lost', reason: 'the worker disconnected' });
    if (signal?.aborted) return Promise.resolve({ type: 'lost', reason: `${method} was stopped before it was sent` });
    const id = this.#nextId++;
    return new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => {
        if (!this.#pending.delete(id)) return;
        this.#forget(id);
        signal?.removeEventListener('abort', onAbort);
        resolve({ type: 'lost', reason: `no answer to ${method} within ${timeoutMs} ms` });
      }, timeoutMs);
      const onAbort = () => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        this.#forget(id);
        this.#notify('notifications/cancelled', { requestId: id, reason: 'Wardrik stopped waiting for it' });
        resolve({ type: 'lost', reason: `Wardrik stopped waiting for ${method}` });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        method,
        settle: (reply) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(reply);
        },
      });
      this.#sendText(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Remembers that nothing waits for request `id` any more, so that its late answer is dropped quietly. */
  #forget(id: JsonRpcId): void {
    this.#cancelled.add(id);
    if (this.#cancelled.size > REMEMBERED_CANCELS) {
      const oldest = this.#cancelled.values().next().value;
      if (oldest !== undefined) this.#cancelled.delete(oldest);
    }
  }

  #notify(method: string, params?: Record<string, unknown>): void {
    this.#sendText(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }));
  }

  #reply(message: JsonRpcResponse): void {
    this.#sendText(JSON.stringify(message));
  }

  #sendText(text: string): void {
    if (this.#closed || this.#socket.readyState !== this.#socket.OPEN) return;
    if (!this.#corked) this.#cork();
    this.#socket.send(text);
  }

  /**
   * Holds this tick's frames back and writes them together at its end: pipelined calls then cost
   * one system call, not one each. (ws has no API for this; its TCP socket is `_socket`.)
   */
  #cork(): void {
    const tcp = (this.#socket as unknown as { _socket?: Socket })._socket;
    if (!tcp || typeof tcp.cork !== 'function') return;
    tcp.cork();
    this.#corked = tcp;
    process.nextTick(this.#uncork);
  }

  #receive(text: string | null): void {
    if (this.#closed) return;
    if (text === null) {
      this.#fault(null, RPC.invalidRequest, 'binary frames are not used; send JSON text');
      return;
    }
    const parsed = parseJsonRpcFrame(text);
    if (parsed.kind === 'invalid') {
      this.#fault(parsed.id, parsed.code, parsed.reason);
      return;
    }
    if (parsed.kind === 'response') {
      const { id, result, error } = parsed.message;
      const pending = id === null ? undefined : this.#pending.get(id);
      if (!pending) {
        // An answer to a request Wardrik stopped waiting for is dropped; an unknown id is a fault.
        if (id !== null && this.#cancelled.delete(id)) return;
        this.#fault(null, RPC.invalidRequest, `no request has id ${JSON.stringify(id)}`, false);
        return;
      }
      this.#pending.delete(id as JsonRpcId);
      if (pending.method === 'tools/call') this.inflight -= 1;
      const code = (error as { code?: unknown } | null | undefined)?.code;
      const reply: Reply =
        error !== undefined && error !== null
          ? { type: 'error', message: describeError(error), ...(typeof code === 'number' ? { code } : {}) }
          : { type: 'result', result };
      if (this.#held && pending.method === 'tools/call') this.#held.push(() => pending.settle(reply));
      else pending.settle(reply);
      return;
    }
    const { id, method } = parsed.message;
    if (method === 'notifications/tools/list_changed') {
      this.#relist();
      return;
    }
    if (method === 'notifications/progress' && id === undefined) {
      this.#progress(parsed.message.params);
      return;
    }
    if (method === 'notifications/tasks/status' && id === undefined) {
      const taskId = parsed.message.params?.['taskId'];
      if (typeof taskId === 'string') this.#options.onTaskStatus?.(this, taskId);
      return;
    }
    if (method === 'notifications/cancelled' && id === undefined) {
      const requestId = parsed.message.params?.['requestId'];
      const question = typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
      const withdrawn = question === undefined ? undefined : this.#questions.get(question);
      if (withdrawn && question !== undefined) {
        // Nothing is answered to a request its sender cancelled.
        this.#questions.delete(question);
        withdrawn.abort(new Error('the worker withdrew the question'));
      }
      return;
    }
    if (id === undefined) return; // other notifications (message) need no answer
    if (method === 'ping') {
      this.#reply({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    if (QUESTION_METHODS.has(method)) {
      this.#question(id, method, parsed.message.params);
      return;
    }
    this.#reply({
      jsonrpc: '2.0',
      id,
      error: { code: RPC.methodNotFound, message: `Wardrik does not serve ${method}` },
    });
  }

  /**
   * The worker asks something (a person: `elicitation/create`; the agent's model:
   * `sampling/createMessage`) while it runs a call, named by `_meta['wardrik/related-call']`: the
   * call's context answers, and the answer (or a JSON-RPC error saying why not) goes back. The
   * question stops when the call ends or the worker cancels it.
   */
  #question(id: JsonRpcId, method: string, params: Record<string, unknown> | undefined): void {
    const meta = params?.['_meta'];
    const related = isRecord(meta) ? meta[RELATED_CALL_META] : undefined;
    const taskId = isRecord(meta) && related === undefined ? relatedTaskOf(meta) : undefined;
    if (taskId !== undefined && !this.#questions.has(id)) {
      this.#taskQuestion(id, method, params, taskId);
      return;
    }
    const call = typeof related === 'number' || typeof related === 'string' ? this.#pending.get(related) : undefined;
    if (!(call instanceof PendingCall) || this.#questions.has(id)) {
      const answer = this.#questions.has(id)
        ? {
            error: {
              code: RPC.invalidRequest,
              message: `${method}: request id ${JSON.stringify(id)} is already in use`,
            },
          }
        : unrelatedQuestion(method, related);
      this.#options.log(`worker ${this.principal.name}: ${'error' in answer ? answer.error.message : ''}`);
      this.#answer(id, answer);
      return;
    }
    const asker = call.asker;
    if (!asker) {
      this.#answer(id, {
        error: { code: RPC.invalidRequest, message: `${method}: nobody can be asked for this call` },
      });
      return;
    }
    const withdrawn = new AbortController();
    this.#questions.set(id, withdrawn);
    const answered = call.asking();
    void answerWorkerQuestion(method, params, {
      asker,
      signal: AbortSignal.any([call.ended, withdrawn.signal]),
      sampling: this.#options.sampling === true,
    }).then((answer) => {
      answered();
      if (this.#questions.get(id) !== withdrawn) return;
      this.#questions.delete(id);
      this.#answer(id, answer);
    });
  }

  /**
   * The worker asks something for one of its MCP tasks (`_meta['io.modelcontextprotocol/related-task']`):
   * answered through the run waiting for the task while it waits for input (`taskAsker`), else
   * refused at once, saying why. Sampling is never answered for a task.
   */
  #taskQuestion(id: JsonRpcId, method: string, params: Record<string, unknown> | undefined, taskId: string): void {
    const waiting = method === 'elicitation/create' ? this.#options.taskAsker?.(this, taskId) : undefined;
    if (!waiting || waiting.signal.aborted) {
      const answer = taskQuestionRefused(method, taskId);
      this.#options.log(`worker ${this.principal.name}: ${'error' in answer ? answer.error.message : ''}`);
      this.#answer(id, answer);
      return;
    }
    const withdrawn = new AbortController();
    this.#questions.set(id, withdrawn);
    void answerWorkerQuestion(method, params, {
      asker: waiting.asker,
      signal: AbortSignal.any([waiting.signal, withdrawn.signal]),
      sampling: false,
    }).then((answer) => {
      if (this.#questions.get(id) !== withdrawn) return;
      this.#questions.delete(id);
      this.#answer(id, answer);
    });
  }

  #answer(id: JsonRpcId, answer: QuestionAnswer): void {
    this.#reply(
      'result' in answer ? { jsonrpc: '2.0', id, result: answer.result } : { jsonrpc: '2.0', id, error: answer.error },
    );
  }

  /**
   * Progress for a call in flight goes to it. Progress for any other token is dropped quietly: it
   * comes late (after the answer, a cancel or a timeout) as a matter of course, and none of it
   * changes anything.
   */
  #progress(params: Record<string, unknown> | undefined): void {
    const read = readProgress(params);
    const token = read.token;
    const call = typeof token === 'number' ? this.#pending.get(token) : undefined;
    if (!(call instanceof PendingCall)) return;
    if (!read.ok) {
      this.#options.log(`worker ${this.principal.name}: progress for call ${token} ignored: ${read.reason}`);
      return;
    }
    call.progress(read.progress);
  }

  #fault(id: JsonRpcId | null, code: number, reason: string, answer = true): void {
    this.#faults += 1;
    this.#options.log(`worker ${this.principal.name}: protocol error: ${reason}`);
    if (this.#faults > this.#options.maxFaults) {
      this.close(1008, `too many protocol errors (last: ${reason})`);
      return;
    }
    if (answer) this.#reply({ jsonrpc: '2.0', id, error: { code, message: reason } });
  }

  #lose(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ping) clearInterval(this.#ping);
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    this.inflight = 0;
    this.#cancelled.clear();
    for (const question of this.#questions.values()) question.abort(new Error(reason));
    this.#questions.clear();
    const lost: Reply = { type: 'lost', reason };
    for (const each of pending) each.settle(lost);
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const deliver of held) deliver();
    this.#options.onClose(this, reason);
  }
}

/**
 * What Wardrik declares to workers as their MCP client: elicitation (form and URL) and sampling, so
 * that MCP SDK servers send them during calls (sampling is answered only when workers may sample).
 */
const CLIENT_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {} };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A call's `_meta` as JSON, with its fields in a fixed order; its progress token is the request's id. */
function metaJson(id: number, meta: CallMeta): string {
  const labels = meta.labels.length ? `,"labels":${JSON.stringify(meta.labels)}` : ',"labels":[]';
  const trace = meta.trace ? traceJson(meta.trace) : '';
  const fence = meta.fencingToken === undefined ? '' : `,"fencingToken":${meta.fencingToken}`;
  return `{"progressToken":${id},"agent":${JSON.stringify(meta.agent)},"run":${JSON.stringify(meta.run)},"principal":${JSON.stringify(meta.principal)},"idempotencyKey":${JSON.stringify(meta.idempotencyKey)}${fence}${labels}${trace}}`;
}

/** The W3C trace context fields of a call's `_meta`, as JSON members (each led by a comma). */
function traceJson(trace: Readonly<Record<string, string>>): string {
  let members = '';
  for (const key of ['traceparent', 'tracestate', 'baggage']) {
    const value = trace[key];
    if (typeof value === 'string') members += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return members;
}

function describeReply(reply: Reply): string {
  return reply.type === 'error' ? reply.message : reply.type === 'lost' ? reply.reason : 'ok';
}

function describeError(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message !== '') return message;
    if (typeof code === 'number') return `the worker answered with error ${code}`;
  }
  return 'the worker answered with an error';
}
