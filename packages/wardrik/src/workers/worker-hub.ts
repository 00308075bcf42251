import { randomUUID } from 'node:crypto';
import {
  type Answer,
  type Arguments,
  type CompleteExternal,
  error,
  type McpTool,
  META,
  mcpResultToAnswer,
  type RequestInputFor,
  type Tool,
  type ToolContext,
} from '@wardrik/core';
import type { WebSocket } from 'ws';
import { onAbort } from '../abort/on-abort.js';
import { can } from '../auth/permissions.js';
import type { Principal } from '../auth/types.js';
import { InvalidInputError } from '../errors.js';
import type { WorkerStore } from '../store/worker-store.js';
import { type ListedDefinition, reviewDefinition, unpinnedOf } from '../toolsets/listed-definition.js';
import { toolDefinitionHash } from '../toolsets/tool-definition-hash.js';
import {
  checkPins,
  type ToolPins,
  type UnpinnedDefinition,
  type UnpinnedDefinitionSource,
  UnpinnedDefinitions,
  unpinnedWarning,
} from '../toolsets/tool-pins.js';
import { WORKER_PREFIX, workerModelName } from './model-name.js';
import { RemoteWorker } from './remote-worker.js';
import type { RoutedWorker } from './routed-worker.js';
import { WorkerCluster } from './worker-cluster.js';
import { type ConnectionOptions, WorkerConnection } from './worker-connection.js';
import { WorkerTasks } from './worker-tasks.js';
import { buildWorkerTool } from './worker-tool.js';

export { WORKER_PREFIX } from './model-name.js';
export { WORKER_TOOL, type WorkerToolInfo } from './worker-tool.js';

/** Settings of the hub. */
export interface HubOptions {
  /**
   * Trust workers: their answers, and what they say of their tools, go unlabelled. Default false:
   * answers carry `outside`, and so does every model step offered a worker tool whose definition is
   * not pinned (see `pins`).
   */
  readonly trustedWorkers?: boolean;
  /**
   * The worker tool definitions you reviewed, by the tool's name as workers list it: the hash
   * `wardrik listings` prints for each (`sha256:…` over the canonical JSON of its name, title,
   * description, schemas and annotations). Offering a worker tool whose definition has its pin's
   * hash labels nothing; one not pinned, or that differs from its pin (a worker changed it), is text
   * from outside: the model step offered it carries `outside`. Not with `trustedWorkers`.
   */
  readonly pins?: ToolPins;
  /** How long a call waits for some worker to offer its tool. Default 10 s. */
  readonly unavailableWaitMs?: number;
  /**
   * How long a worker call may go without an answer or progress when the worker's listing of its
   * tool sets no `_meta['wardrik/timeout']` (ms). Each progress report (`notifications/progress`
   * with a greater `progress`) starts it again. Past it the call is Lost and the worker gets
   * `notifications/cancelled`. Default 5 min.
   */
  readonly callTimeoutMs?: number;
  /**
   * The most a worker call may take in all, however often it reports progress (ms; never less than
   * the call's own timeout). Past it the call is Lost as above. Default 1 h.
   */
  readonly maxCallMs?: number;
  /**
   * Let workers ask the agent's model during a call (MCP `sampling/createMessage` from a worker's
   * server): answered through the call's context, which meters it on the run's budget and labels
   * the call's answer `outside`. Default false: such requests get a JSON-RPC error saying so.
   * (`elicitation/create` during a call is always passed on to a person.)
   *
   * @example
   * ```ts
   * const hub = new WorkerHub({ sampling: true })
   * ```
   */
  readonly sampling?: boolean;
  readonly handshakeTimeoutMs?: number;
  readonly pingIntervalMs?: number;
  readonly pingTimeoutMs?: number;
  readonly maxFaults?: number;
  readonly log?: (message: string) => void;
}

/** Where a hub meets the other nodes sharing its store (see `WorkerHub.join`). */
export interface JoinOptions {
  /** The store the nodes share (its `WorkerStore` part). */
  readonly store: WorkerStore;
  /** This node's name (as its leases name it). */
  readonly node: string;
  /** How long this node counts as alive without beating (ms): its lease length. It beats every third of it. */
  readonly leaseMs: number;
}

/** A worker connected to this node, or its connection ended (`reason`). */
export type WorkerConnectionEvent =
  | { readonly type: 'connected'; readonly worker: string; readonly principal: string }
  | { readonly type: 'disconnected'; readonly worker: string; readonly principal: string; readonly reason: string };

/** A connected worker as the API shows it. */
export interface WorkerInfo {
  /**
   * The tools it offers as an operator reviews them: what the model is shown of each, the hash
   * that pins it (`workers: { pins }`), and whether it is pinned, unpinned, changed (or trusted).
   */
  readonly definitions: readonly ListedDefinition[];
  readonly id: string;
  readonly principal: string;
  /** The node it is connected to (its calls from runs driven elsewhere go through the store to that node). */
  readonly node: string;
  /** When it connected (ms, by the store's clock once its node offered its tools there). */
  readonly connectedAt: number;
  /** The tools it offers, by the names it lists them under. */
  readonly tools: readonly string[];
  /**
   * The name the model sees for each tool it offers, by the tool's name: `workers__NAME`, or for a
   * name that model providers would refuse (dots, over 55 characters) a safe one with a hash.
   */
  readonly modelNames: Readonly<Record<string, string>>;
  /** The tools it listed that are left out, with why. */
  readonly rejected: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
  /** Calls in flight (for a worker on another node: as its node last said, every lease / 3, or the calls this node sent it if more). */
  readonly inflight: number;
}

/**
 * The workers and the tools they offer: those connected to this node, and — once it `join`s the
 * nodes sharing its store — those connected to the other nodes, whose calls go through the store
 * to their node. An agent whose definition names `workers/*` or `workers/NAME` gets the tools of
 * every worker whose principal may serve it; workers of one principal share a tool's calls (least
 * busy first); when several principals offer it, the one whose worker connected first wins. The
 * same rules hold across nodes: connection times are the store's, and a remote worker's load is
 * what its node last said.
 *
 * @example
 * ```ts
 * const hub = new WorkerHub({ unavailableWaitMs: 5_000 })
 * hub.join({ store, node: 'node-a', leaseMs: 5_000 })   // createWardrik does this
 * const tools = hub.toolsFor('support', ['workers/*'])     // Map: workers__lookup → Tool
 * await hub.leave()
 * ```
 */
export class WorkerHub implements UnpinnedDefinitionSource {
  readonly #connections = new Map<string, WorkerConnection>();
  #cluster: WorkerCluster | undefined;
  readonly #options: Required<Omit<HubOptions, 'log'>> & { log: (message: string) => void };
  readonly #changeListeners = new Set<() => void>();
  readonly #connectionListeners = new Set<(event: WorkerConnectionEvent) => void>();
  #version = 0;
  readonly #cache = new Map<string, { version: number; tools: Map<string, Tool<Arguments>> }>();
  /** Who offers each tool to each agent, until the next change. */
  readonly #offersCache = new Map<string, Offers>();
  /** Tools that could not be built for the model, by connection id and tool name, with why. */
  readonly #unbuilt = new Map<string, Map<string, string>>();
  /** The hash of each listed definition, made once per listing. */
  readonly #hashes = new WeakMap<McpTool, string>();
  readonly #unpinned = new UnpinnedDefinitions();
  /** The MCP tasks of worker tools that need them, followed until their runs have the results. */
  readonly #tasks: WorkerTasks;

  constructor(options: HubOptions = {}) {
    const fail = (message: string): never => {
      throw new InvalidInputError(message);
    };
    if (options.sampling !== undefined && typeof options.sampling !== 'boolean') {
      fail(`workers.sampling: expected true or false, got ${JSON.stringify(options.sampling)}`);
    }
    if (options.trustedWorkers === true && options.pins !== undefined) {
      fail(
        'workers.pins are for workers that are not trusted: trustedWorkers: true already trusts what they say of their tools',
      );
    }
    this.#options = {
      trustedWorkers: options.trustedWorkers ?? false,
      pins: checkPins(options.pins, 'workers.pins', fail),
      unavailableWaitMs: options.unavailableWaitMs ?? 10_000,
      callTimeoutMs: options.callTimeoutMs ?? 300_000,
      maxCallMs: options.maxCallMs ?? 3_600_000,
      sampling: options.sampling ?? false,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
      pingIntervalMs: options.pingIntervalMs ?? 15_000,
      pingTimeoutMs: options.pingTimeoutMs ?? 10_000,
      maxFaults: options.maxFaults ?? 10,
      log: options.log ?? ((message) => console.warn(`[wardrik] ${message}`)),
    };
    this.#tasks = new WorkerTasks({
      localWorkers: () => this.#connections.values(),
      elsewhere: (principalId) =>
        [...(this.#cluster?.remoteWorkers() ?? [])].some((worker) => worker.principal.id === principalId),
      timeoutMs: this.#options.callTimeoutMs,
      log: this.#options.log,
    });
  }

  /**
   * Follows again, after a restart, the MCP tasks of worker tools runs still wait for (handles
   * `workers/PRINCIPAL_ID/TASK_ID`; other handles are ignored), through the workers of each task's
   * principal as they connect. Returns at once.
   */
  resume(waiting: {
    readonly handles: readonly string[];
    readonly completeExternal: CompleteExternal;
    /** Asks a person for a task that needs input (the runtime's `requestInputFor`); none: such a task is cancelled. */
    readonly requestInputFor?: RequestInputFor;
  }): void {
    this.#tasks.resume(waiting);
  }

  /** Takes a worker's WebSocket (already authenticated as `principal`) and starts its session. */
  async accept(socket: WebSocket, principal: Principal): Promise<WorkerConnection> {
    const options: ConnectionOptions = {
      handshakeTimeoutMs: this.#options.handshakeTimeoutMs,
      pingIntervalMs: this.#options.pingIntervalMs,
      pingTimeoutMs: this.#options.pingTimeoutMs,
      maxFaults: this.#options.maxFaults,
      sampling: this.#options.sampling,
      log: this.#options.log,
      onTools: (listed) => {
        this.#unbuilt.delete(listed.id);
        this.#cluster?.publish(listed);
        this.#changed();
      },
      onTaskStatus: (_connection, taskId) => this.#tasks.statusChanged(taskId),
      taskAsker: (connection, taskId) => this.#tasks.askerFor(connection.principal.id, taskId),
      onClose: (closed, reason) => {
        this.#connections.delete(closed.id);
        this.#unbuilt.delete(closed.id);
        this.#cluster?.unpublish(closed);
        this.#changed();
        this.#tellConnection({ type: 'disconnected', worker: closed.id, principal: principal.name, reason });
      },
    };
    const connection = new WorkerConnection(socket, principal, options);
    this.#connections.set(connection.id, connection);
    this.#tellConnection({ type: 'connected', worker: connection.id, principal: principal.name });
    await connection.start();
    return connection;
  }

  /**
   * Calls `listener` for each worker tool definition offered to an agent while not pinned, or that
   * changed since it was pinned (each once per hash; the metrics count them). Returns the function
   * that stops it.
   */
  onUnpinned(listener: (definition: UnpinnedDefinition) => void): () => void {
    return this.#unpinned.onUnpinned(listener);
  }

  /** Calls `listener` when a worker connects to this node or its connection ends. Returns the function that stops it. */
  onConnection(listener: (event: WorkerConnectionEvent) => void): () => void {
    this.#connectionListeners.add(listener);
    return () => this.#connectionListeners.delete(listener);
  }

  #tellConnection(event: WorkerConnectionEvent): void {
    for (const listener of this.#connectionListeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /**
   * Joins the nodes sharing `options.store`: this node's workers are offered to runs driven on the
   * other nodes, and theirs to runs driven here (see `WorkerCluster`). A store of one process
   * (SQLite) has no other nodes. Called once, by `createWardrik`.
   */
  join(options: JoinOptions): void {
    if (this.#cluster) return;
    this.#cluster = new WorkerCluster({
      store: options.store,
      node: { id: randomUUID(), name: options.node },
      ttlMs: options.leaseMs,
      localWorker: (id) => this.#connections.get(id),
      localWorkers: () => this.#connections.values(),
      changed: () => this.#changed(),
      log: this.#options.log,
    });
    this.#cluster.start();
    for (const connection of this.#connections.values()) this.#cluster.publish(connection);
  }

  /**
   * Leaves the other nodes (the runtime closes): closes this node's workers, lets the calls they
   * ran for other nodes answer (lost), and removes their offers. Never throws.
   */
  async leave(): Promise<void> {
    this.close();
    await Promise.all([this.#cluster?.leave(), this.#tasks.close()]);
  }

  /** The workers this node knows of — connected here, and to the other live nodes — oldest first. */
  list(): WorkerInfo[] {
    const here = this.#cluster?.node.name ?? 'local';
    return this.#workers().map((worker) => {
      const unbuilt = this.#unbuilt.get(worker.id) ?? new Map<string, string>();
      const offered = [...worker.modelNames].filter(([name]) => !unbuilt.has(name));
      const source = `worker:${worker.principal.name}`;
      const definitions = offered.flatMap(([name]) => {
        const listed = worker.tools.get(name);
        return listed ? [this.#review(source, listed).reviewed] : [];
      });
      return {
        id: worker.id,
        principal: worker.principal.name,
        node: worker instanceof RemoteWorker ? worker.node.name : here,
        connectedAt: worker.connectedAt,
        tools: offered.map(([name]) => name),
        definitions,
        modelNames: Object.fromEntries(offered),
        rejected: [...worker.rejected, ...[...unbuilt].map(([name, reason]) => ({ name, reason }))],
        inflight: worker.inflight,
      };
    });
  }

  /** The workers of the whole cluster, the other nodes' read from the store now (see `list`). */
  async listCluster(): Promise<WorkerInfo[]> {
    await this.#cluster?.refresh();
    return this.list();
  }

  /**
   * The worker tools `agent` gets now, by the name the model sees (see `WorkerInfo.modelNames`),
   * for the agent's patterns (`workers/*`, `workers/NAME`). A tool that cannot be built is left
   * out (logged, and shown in `rejected`): it never fails a run.
   */
  toolsFor(agent: string, patterns: readonly string[]): Map<string, Tool<Arguments>> {
    const cached = this.#cache.get(agent);
    if (cached && cached.version === this.#version) return cached.tools;
    const tools = new Map<string, Tool<Arguments>>();
    for (const [modelName, name] of this.#names(agent)) {
      if (!matches(patterns, name)) continue;
      const offers = this.#offers(agent, name);
      const winner = offers.winners[0];
      const listed = winner?.tools.get(name);
      if (!winner || !listed) continue;
      const built = this.#build(winner, {
        modelName,
        workerName: name,
        listed,
        hints: offers.all.map((connection) => connection.tools.get(name)?.annotations ?? {}),
        run: (args, context) => this.#route(agent, name, args, context),
      });
      if (built) tools.set(modelName, built);
    }
    this.#cache.set(agent, { version: this.#version, tools });
    return tools;
  }

  /**
   * A worker tool by the name the model used, even when no worker offers it now (say, a call
   * recovered after a restart, before its worker is back): a call to it waits up to
   * `unavailableWaitMs` for one, and then runs on it.
   */
  toolFor(agent: string, patterns: readonly string[], modelName: string): Tool<Arguments> | undefined {
    if (!modelName.startsWith(WORKER_PREFIX)) return undefined;
    const offered = this.toolsFor(agent, patterns).get(modelName);
    if (offered) return offered;
    if (!mayMatch(patterns, modelName)) return undefined;
    const guess = modelName.slice(WORKER_PREFIX.length);
    return buildWorkerTool({
      modelName,
      workerName: guess,
      listed: { name: guess, description: '', inputSchema: { type: 'object' } },
      hints: [],
      trusted: this.#options.trustedWorkers,
      standIn: true,
      run: async (args, context) => {
        const tool = await this.awaitTool(agent, patterns, modelName, context.signal);
        if (tool) return (await tool.run(args, context)) as Answer;
        return error(`Unavailable: no worker offers ${guess} (waited ${this.#options.unavailableWaitMs} ms)`, {
          code: 'unavailable',
        });
      },
    });
  }

  /**
   * The worker tool the model named, waiting up to `unavailableWaitMs` for a worker to offer it
   * (a worker may be reconnecting). Undefined if none does in time: the call is Unavailable and
   * nothing ran. Deciding a call's policy needs the real tool's annotations, so callers wait here
   * first rather than judging a stand-in nothing is known of.
   */
  async awaitTool(
    agent: string,
    patterns: readonly string[],
    modelName: string,
    signal: AbortSignal,
  ): Promise<Tool<Arguments> | undefined> {
    const deadline = Date.now() + this.#options.unavailableWaitMs;
    for (;;) {
      const offered = this.toolsFor(agent, patterns).get(modelName);
      if (offered) return offered;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || signal.aborted) return undefined;
      await this.#nextChange(remaining, signal);
    }
  }

  /** How long a call waits for a worker to offer its tool, in ms. */
  get unavailableWaitMs(): number {
    return this.#options.unavailableWaitMs;
  }

  /** Closes every worker connection. */
  close(): void {
    void this.#tasks.close();
    for (const connection of this.#connections.values()) connection.close(1001, 'Wardrik is shutting down');
  }

  /**
   * Builds a worker tool, or leaves it out (logged, and shown in the connection's `rejected`) if it
   * cannot be built: an exception here must never reach a run. The tool is marked with where its
   * definition came from (the winning worker's principal) and labelled `outside` unless pinned or
   * trusted; an unpinned or changed definition is logged and told to `onUnpinned` listeners, once
   * per hash.
   */
  #build(
    owner: RoutedWorker,
    spec: Omit<Parameters<typeof buildWorkerTool>[0], 'trusted' | 'origin'>,
  ): Tool<Arguments> | undefined {
    try {
      const source = `worker:${owner.principal.name}`;
      const { reviewed, origin } = this.#review(source, spec.listed);
      const built = buildWorkerTool({ ...spec, trusted: this.#options.trustedWorkers, origin });
      const fresh = this.#unpinned.report(unpinnedOf(source, [reviewed]));
      if (fresh.length > 0) {
        this.#options.log(
          unpinnedWarning(`worker ${owner.principal.name}`, 'createWardrik({ workers: { pins: { … } } })', fresh),
        );
      }
      return built;
    } catch (cause) {
      const reason = `could not be offered to the model: ${cause instanceof Error ? cause.message : String(cause)}`;
      let unbuilt = this.#unbuilt.get(owner.id);
      if (!unbuilt) {
        unbuilt = new Map();
        this.#unbuilt.set(owner.id, unbuilt);
      }
      if (!unbuilt.has(spec.workerName)) {
        unbuilt.set(spec.workerName, reason);
        this.#options.log(`worker ${owner.principal.name}: tool ${spec.workerName} left out: ${reason}`);
      }
      return undefined;
    }
  }

  /** A listed definition reviewed against the pins (its hash made once per listing). */
  #review(source: string, listed: McpTool): ReturnType<typeof reviewDefinition> {
    let hash = this.#hashes.get(listed);
    if (hash === undefined) {
      hash = toolDefinitionHash(listed);
      this.#hashes.set(listed, hash);
    }
    return reviewDefinition(listed, {
      source,
      pins: this.#options.pins,
      trusted: this.#options.trustedWorkers,
      hash,
    });
  }

  /**
   * The tools the workers serving `agent` offer: model name → tool name, the oldest worker's first.
   * Two tools whose names map to one model name (possible only by a hash collision or a name made
   * to look mapped) cannot both be offered: the older worker's stays, and the other is logged.
   */
  #names(agent: string): Map<string, string> {
    const names = new Map<string, string>();
    for (const worker of this.#serving(agent)) {
      for (const [name, modelName] of worker.modelNames) {
        const taken = names.get(modelName);
        if (taken === undefined) names.set(modelName, name);
        else if (taken !== name) {
          this.#options.log(
            `worker ${worker.principal.name}: tool ${name} is not offered to ${agent}: its model name ${modelName} is also that of ${taken}, offered by an older worker`,
          );
        }
      }
    }
    return names;
  }

  async #route(agent: string, name: string, args: Arguments, context: ToolContext): Promise<Answer> {
    /** Workers that refused this call (gone before their node took it): not tried again for it. */
    const refused = new Set<string>();
    let deadline: number | undefined;
    for (;;) {
      // A tool that needs MCP tasks runs on workers connected to this node: its task is followed from here.
      const winners = this.#offers(agent, name).winners.filter((worker) => !refused.has(worker.id));
      const candidates = winners.filter((worker) => worker instanceof WorkerConnection || !needsTasks(worker, name));
      if (candidates.length === 0) {
        deadline ??= Date.now() + this.#options.unavailableWaitMs;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || context.signal.aborted) {
          const where =
            winners.length > 0
              ? ' connected to this node (it needs MCP tasks, which run on workers connected to the node driving the run)'
              : '';
          return error(`Unavailable: no worker${where} offers ${name} (waited ${this.#options.unavailableWaitMs} ms)`, {
            code: 'unavailable',
          });
        }
        await this.#nextChange(remaining, context.signal);
        continue;
      }
      let worker = candidates[0] as RoutedWorker;
      for (let index = 1; index < candidates.length; index++) {
        const each = candidates[index] as RoutedWorker;
        if (each.inflight < worker.inflight) worker = each;
      }
      const meta = {
        agent,
        run: context.runId,
        principal: context.principal,
        idempotencyKey: context.idempotencyKey,
        ...(context.fencingToken === undefined ? {} : { fencingToken: context.fencingToken }),
        labels: context.labels,
        ...(context.traceContext ? { trace: context.traceContext } : {}),
      };
      const idleTimeoutMs = toolTimeout(worker.tools.get(name)) ?? this.#options.callTimeoutMs;
      if (worker instanceof WorkerConnection && needsTasks(worker, name)) {
        return this.#tasks.start({
          worker,
          name,
          arguments: args,
          meta,
          context,
          idleTimeoutMs,
          maxTimeMs: this.#options.maxCallMs,
          trusted: this.#options.trustedWorkers,
        });
      }
      const outcome = await worker.callTool({
        name,
        arguments: args,
        meta,
        signal: context.signal,
        idleTimeoutMs,
        maxTimeMs: this.#options.maxCallMs,
        onProgress: ({ progress, ...rest }) => context.reportProgress(progress, rest),
        asker: context,
      });
      if (outcome.type === 'result') return mcpResultToAnswer(outcome.result);
      if (outcome.type === 'lost') return error(`Lost: ${outcome.reason}`, { code: 'lost' });
      if (outcome.type === 'cancelled') return error('the call was cancelled', { code: 'cancelled' });
      // It never reached the worker: route it again, to another.
      this.#options.log(`worker ${worker.principal.name}: call of ${name} refused (${outcome.reason}); routed again`);
      refused.add(worker.id);
    }
  }

  /** The workers of this node and of the other live nodes. */
  #workers(): RoutedWorker[] {
    const remote = this.#cluster ? [...this.#cluster.remoteWorkers()] : [];
    return [...this.#connections.values(), ...remote].sort(byConnection);
  }

  /** Workers (of every live node) whose principal may serve `agent`, oldest first. */
  #serving(agent: string): RoutedWorker[] {
    return this.#workers().filter(
      (worker) => !worker.closed && can(worker.principal, 'agent.serve', { agent }).allowed,
    );
  }

  /** Who offers `name` to `agent`: all of them, and the winning principal's workers (cached until a change). */
  #offers(agent: string, name: string): Offers {
    const key = `${agent}\u0000${name}`;
    const cached = this.#offersCache.get(key);
    if (cached) return cached;
    const all = this.#serving(agent).filter((worker) => worker.tools.has(name));
    const winner: Principal | undefined = all[0]?.principal;
    const offers = { all, winners: winner ? all.filter((worker) => worker.principal.id === winner.id) : [] };
    this.#offersCache.set(key, offers);
    return offers;
  }

  #changed(): void {
    this.#version += 1;
    this.#offersCache.clear();
    for (const listener of [...this.#changeListeners]) listener();
  }

  #nextChange(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#changeListeners.delete(done);
        stopWatching();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#changeListeners.add(done);
      const stopWatching = onAbort(signal, done);
    });
  }
}

/** The workers offering a tool to an agent, and those of the principal that wins it. */
interface Offers {
  readonly all: RoutedWorker[];
  readonly winners: RoutedWorker[];
}

/** Oldest first; on a tie (two workers connected in the same ms), by id, so that every node orders them alike. */
function byConnection(a: RoutedWorker, b: RoutedWorker): number {
  return a.connectedAt - b.connectedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Whether the worker lists tool `name` as needing MCP tasks (`execution.taskSupport: 'required'`). */
function needsTasks(worker: RoutedWorker, name: string): boolean {
  return worker.tools.get(name)?.execution?.taskSupport === 'required';
}

/** How long a call may take, as a worker lists it in `_meta['wardrik/timeout']` (ms), if it does. */
function toolTimeout(listed: McpTool | undefined): number | undefined {
  const value = listed?._meta?.[META.timeout];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Whether a worker tool `name` matches an agent's patterns (`workers/*`, `workers/NAME`). */
export function matches(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => pattern === 'workers/*' || pattern === `workers/${name}`);
}

/** Whether a tool the model calls `modelName` may match an agent's patterns, whatever the worker names it. */
function mayMatch(patterns: readonly string[], modelName: string): boolean {
  return patterns.some(
    (pattern) =>
      pattern === 'workers/*' ||
      (pattern.startsWith('workers/') && workerModelName(pattern.slice('workers/'.length)) === modelName),
  );
}
