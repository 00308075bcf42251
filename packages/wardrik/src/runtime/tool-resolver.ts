import {
  type Arguments,
  describeReason,
  descriptionOrigin,
  type Label,
  mergeLabels,
  type StateSource,
  StateView,
  type Tool,
  type Toolset,
  type ToolsetContext,
} from '@wardrik/core';
import type { Agent } from '../agent.js';
import { toolDefinition } from '../agent.js';
import type { UnpinnedTool } from '../journal/records.js';
import type { ModelToolDefinition } from '../model/model.js';
import { modelToolName } from '../model/tool-name.js';
import type { WorkerHub } from '../workers/worker-hub.js';
import { isStandIn, standInName } from './stand-in.js';

/** The tools one model step is offered: the answer to "which tools now?". */
export interface OfferedTools {
  readonly definitions: readonly ModelToolDefinition[];
  /** Their names, in the order offered (journaled when they change). */
  readonly names: readonly string[];
  /** Toolset tools by the name the model sees. */
  readonly fromToolsets: ReadonlyMap<string, Tool<Arguments>>;
  /** Toolsets left out of the step, and why. */
  readonly unavailable: readonly { readonly toolset: string; readonly reason: string }[];
  /** Toolsets left out because their server needs a person to sign in (the OAuth code flow), with where. */
  readonly signIns?: readonly SignInNeeded[];
  /**
   * The labels offering these tools gives a step: those of every definition a source marked (see
   * `describedBy`), e.g. `outside` for an MCP server's or a worker's tool nobody pinned.
   */
  readonly descriptionLabels: readonly Label[];
  /** The definitions that carry labels, with their source and hash (what to review and pin). */
  readonly unpinned: readonly UnpinnedTool[];
}

/**
 * A toolset's remote MCP server needs a person to sign in: `url` is the authorization page to open,
 * `state` the OAuth state its callback brings back (see `McpAuthorizationRequiredError`).
 */
export interface SignInNeeded {
  readonly toolset: string;
  readonly url: string;
  readonly state?: string;
  readonly principal?: string;
  readonly reason: string;
}

/** What `resolve` answers: the tools, and the labels and unpinned definitions the step takes with them. */
export interface ResolvedTools {
  readonly offered: OfferedTools;
  /** Labels from state the toolsets read and from the definitions offered. */
  readonly labels: Label[];
  /**
   * The definitions whose labels the run did not carry yet (so the step is the one they made carry
   * them); undefined when there are none.
   */
  readonly unpinned?: readonly UnpinnedTool[];
}

/** The tool a stand-in stood for, once offered; or why none came (the call's answer). */
export type Offered = { readonly tool: Tool<Arguments> } | { readonly unavailable: string };

/** What a step's toolsets are asked with. */
export interface ResolveInput {
  readonly runId: string;
  readonly principal: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly labels: readonly Label[];
  readonly state: StateSource;
  readonly signal: AbortSignal;
}

interface ToolsetResult {
  readonly tools: readonly Tool<never>[];
  readonly byName: ReadonlyMap<string, Tool<Arguments>>;
  readonly definitions: readonly ModelToolDefinition[];
  readonly clashes: readonly string[];
}

/**
 * Answers "which tools now?" before each model step — the agent's own tools, its toolsets'
 * (asked anew each step) and its workers' — and "who runs this call?" for the calls the step
 * asks for. What toolsets return is built once per array they return, so a toolset that returns
 * the same array while nothing changed costs a function call per step.
 */
export class ToolResolver {
  readonly #agent: Agent;
  readonly #workers: WorkerHub | undefined;
  readonly #timeoutMs: number;
  /** Tools the runtime adds to the agent's own (`transfer_to_agent`), and what the model is offered of them. */
  readonly #added: ReadonlyMap<string, Tool<Arguments>>;
  readonly #ownDefinitions: readonly ModelToolDefinition[];
  /** The labels and unpinned definitions of the agent's own tools and those added (made once). */
  readonly #ownDescriptions: Descriptions;
  /** What each toolset returned last, and what was built from it. */
  readonly #built = new Map<Toolset, ToolsetResult>();
  #last: { readonly parts: readonly unknown[]; readonly offered: OfferedTools } | undefined;
  /** The tools of the latest step resolved (for finding a call's tool). */
  #current: OfferedTools | undefined;

  constructor(
    agent: Agent,
    workers: WorkerHub | undefined,
    timeoutMs: number,
    added: ReadonlyMap<string, Tool<Arguments>> = new Map(),
  ) {
    this.#agent = agent;
    this.#workers = workers;
    this.#timeoutMs = timeoutMs;
    this.#added = added;
    this.#ownDefinitions =
      added.size === 0
        ? agent.toolDefinitions
        : [...agent.toolDefinitions, ...[...added].map(([name, each]) => toolDefinition(each, name))];
    this.#ownDescriptions = describe([...agent.tools.values(), ...added.values()]);
  }

  /**
   * Whether the agent's tools are the same at every step (no toolsets, no workers) and offering
   * them labels nothing (no definition of its own tools came from outside).
   */
  get fixed(): boolean {
    return (
      this.#agent.toolsets.length === 0 &&
      (this.#agent.workers.length === 0 || !this.#workers) &&
      this.#ownDescriptions.labels.length === 0
    );
  }

  /** The latest step's tools, if resolved in this process. */
  get current(): OfferedTools | undefined {
    return this.#current;
  }

  /** The tools offered at every step when they are {@link fixed} (the agent's own, and those added). */
  fixedOffer(): OfferedTools {
    this.#current ??= {
      definitions: this.#ownDefinitions,
      names: this.#ownDefinitions.map((each) => each.name),
      fromToolsets: new Map(),
      unavailable: [],
      descriptionLabels: this.#ownDescriptions.labels,
      unpinned: this.#ownDescriptions.unpinned,
    };
    return this.#current;
  }

  /**
   * The tools offered now, and the labels the step takes with them: from state the toolsets read,
   * and from the definitions offered (a definition an untrusted source wrote, not pinned, carries
   * `outside`: the model reads it at this step).
   */
  async resolve(input: ResolveInput): Promise<ResolvedTools> {
    const agent = this.#agent;
    if (this.fixed) return { offered: this.fixedOffer(), labels: [] };
    if (agent.toolsets.length === 0 && (agent.workers.length === 0 || !this.#workers)) {
      return withDescriptions(this.fixedOffer(), [], input.labels);
    }
    let labels: Label[] = [];
    const parts: unknown[] = [];
    const unavailable: { toolset: string; reason: string }[] = [];
    const signIns: SignInNeeded[] = [];
    const results: ToolsetResult[] = [];
    const onRead = (read: readonly Label[]) => {
      labels = mergeLabels(labels, read);
    };
    for (const toolset of agent.toolsets) {
      try {
        const asked = this.#ask(toolset, input, onRead);
        const tools = isThenable(asked) ? await asked : asked;
        const result = this.#build(toolset, tools);
        results.push(result);
        parts.push(result);
        for (const clash of result.clashes) unavailable.push({ toolset: toolset.name, reason: clash });
      } catch (thrown) {
        const reason = describeReason(thrown);
        unavailable.push({ toolset: toolset.name, reason });
        const signIn = signInNeeded(thrown);
        if (signIn) signIns.push({ toolset: toolset.name, reason, ...signIn });
        parts.push(undefined);
      }
    }
    const workerTools =
      agent.workers.length > 0 && this.#workers ? this.#workers.toolsFor(agent.name, agent.workers) : undefined;
    parts.push(workerTools);
    const last = this.#last;
    if (last && unavailable.length === 0 && sameParts(last.parts, parts)) {
      this.#current = last.offered;
      return withDescriptions(last.offered, labels, input.labels);
    }
    const combined = this.#combine(results, workerTools, unavailable);
    const offered = signIns.length ? { ...combined, signIns } : combined;
    this.#last = { parts, offered };
    this.#current = offered;
    return withDescriptions(offered, labels, input.labels);
  }

  /** The tool a call of `name` runs: local, from this step's toolsets, or offered by workers. */
  find(name: string): Tool<Arguments> | undefined {
    const local = this.#agent.tools.get(name) ?? this.#added.get(name);
    if (local) return local;
    const fromToolset = this.#current?.fromToolsets.get(name);
    if (fromToolset) return fromToolset;
    if (this.#agent.workers.length === 0 || !this.#workers) return undefined;
    return this.#workers.toolFor(this.#agent.name, this.#agent.workers, name);
  }

  /**
   * Whether `tool` only stands in for one its source does not offer right now (a worker tool no
   * connected worker offers: its schema is unknown): {@link awaitOffered} waits for the real one
   * before the call is judged by its annotations.
   */
  standsIn(tool: Tool<Arguments>): boolean {
    return isStandIn(tool);
  }

  /**
   * Waits, as long as its source allows, for the tool `standIn` stood in for (`name`: the call's, as
   * the model named it): the tool, or why none came.
   */
  async awaitOffered(
    standIn: Tool<Arguments>,
    { name, signal }: { name: string; signal: AbortSignal },
  ): Promise<Offered> {
    const agent = this.#agent;
    const tool = await this.#workers?.awaitTool(agent.name, agent.workers, name, signal);
    if (tool) return { tool };
    const waited = this.#workers?.unavailableWaitMs ?? 0;
    return { unavailable: `Unavailable: no worker offers ${standInName(standIn)} (waited ${waited} ms)` };
  }

  /**
   * Asks a toolset for its tools. A toolset that answers at once (an array, not a promise) costs a
   * function call: no timer, and its signal is made only if it reads it.
   */
  #ask(
    toolset: Toolset,
    input: ResolveInput,
    onRead: (labels: readonly Label[]) => void,
  ): readonly Tool<never>[] | Promise<readonly Tool<never>[]> {
    const context = new StepContext(this.#agent.name, input, onRead);
    const answered = toolset.tools(context);
    if (!isThenable(answered)) return checkedTools(answered);
    return this.#awaitTools(answered, () => context.abort());
  }

  /** What a toolset that answered with a promise gives, unless it takes longer than the timeout (then `onTimeout`). */
  async #awaitTools(
    answered: PromiseLike<readonly Tool<never>[]>,
    onTimeout: () => void,
  ): Promise<readonly Tool<never>[]> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout();
        reject(new Error(`it took longer than ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
    });
    try {
      return checkedTools(await Promise.race([answered, timedOut]));
    } finally {
      clearTimeout(timer);
    }
  }

  #build(toolset: Toolset, tools: readonly Tool<never>[]): ToolsetResult {
    const built = this.#built.get(toolset);
    if (built?.tools === tools) return built;
    const byName = new Map<string, Tool<Arguments>>();
    const clashes: string[] = [];
    for (const [index, candidate] of tools.entries()) {
      const each = candidate as unknown as Tool<Arguments>;
      if (typeof each !== 'object' || each === null || typeof each.run !== 'function' || !each.schema) {
        clashes.push(`its tools[${index}] is not a tool (build it with tool() from @wardrik/core); left out`);
        continue;
      }
      const name = modelToolName(each.name);
      if (byName.has(name) || this.#agent.tools.has(name) || this.#added.has(name)) {
        clashes.push(`its tool ${JSON.stringify(each.name)} has the name of another tool of the agent; left out`);
        continue;
      }
      byName.set(name, each);
    }
    const definitions = [...byName].map(([name, each]) => toolDefinition(each, name));
    const result = { tools, byName, definitions, clashes };
    this.#built.set(toolset, result);
    return result;
  }

  #combine(
    results: readonly ToolsetResult[],
    workerTools: ReadonlyMap<string, Tool<Arguments>> | undefined,
    unavailable: { toolset: string; reason: string }[],
  ): OfferedTools {
    const definitions = [...this.#ownDefinitions];
    const described: Tool<Arguments>[] = [];
    const fromToolsets = new Map<string, Tool<Arguments>>();
    for (const [index, result] of results.entries()) {
      for (const [name, each] of result.byName) {
        if (fromToolsets.has(name)) {
          const toolset = this.#agent.toolsets[index]?.name ?? '?';
          unavailable.push({
            toolset,
            reason: `its tool ${JSON.stringify(name)} is offered by another toolset; left out`,
          });
          continue;
        }
        fromToolsets.set(name, each);
      }
    }
    for (const result of results) {
      for (const definition of result.definitions) {
        const each = result.byName.get(definition.name);
        if (each !== undefined && fromToolsets.get(definition.name) === each) {
          definitions.push(definition);
          described.push(each);
        }
      }
    }
    for (const [name, each] of workerTools ?? []) {
      if (!fromToolsets.has(name) && !this.#agent.tools.has(name) && !this.#added.has(name)) {
        definitions.push(toolDefinition(each));
        described.push(each);
      }
    }
    // Made once per set of tools offered (not per step): the labels of every definition offered.
    const descriptions = describe(described, this.#ownDescriptions);
    return {
      definitions,
      names: definitions.map((each) => each.name),
      fromToolsets,
      unavailable,
      descriptionLabels: descriptions.labels,
      unpinned: descriptions.unpinned,
    };
  }
}

/**
 * What a toolset is asked with. Its state view and its signal are made when first read: a toolset
 * that reads neither costs an object.
 */
class StepContext implements ToolsetContext {
  readonly runId: string;
  readonly agentName: string;
  readonly principal: string;
  readonly sessionId?: string;
  readonly step: number;
  readonly labels: readonly Label[];
  readonly #input: ResolveInput;
  readonly #onRead: (labels: readonly Label[]) => void;
  #state: StateView | undefined;
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;

  constructor(agentName: string, input: ResolveInput, onRead: (labels: readonly Label[]) => void) {
    this.runId = input.runId;
    this.agentName = agentName;
    this.principal = input.principal;
    if (input.sessionId !== undefined) this.sessionId = input.sessionId;
    this.step = input.step;
    this.labels = input.labels;
    this.#input = input;
    this.#onRead = onRead;
  }

  get state(): StateView {
    this.#state ??= new StateView(this.#input.state, { onRead: this.#onRead });
    return this.#state;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    this.#signal ??= AbortSignal.any([this.#input.signal, this.#controller.signal]);
    return this.#signal;
  }

  /** The toolset took too long: its signal aborts. */
  abort(): void {
    this.#controller ??= new AbortController();
    this.#controller.abort(new Error('timed out'));
  }
}

/** The labels of a set of definitions, and those that carry them. */
interface Descriptions {
  readonly labels: readonly Label[];
  readonly unpinned: readonly UnpinnedTool[];
}

const NO_DESCRIPTIONS: Descriptions = { labels: [], unpinned: [] };

/** The labels the definitions of `tools` carry (added to `base`'s), and which definitions carry them. */
function describe(tools: readonly Tool<Arguments>[], base: Descriptions = NO_DESCRIPTIONS): Descriptions {
  let labels = base.labels;
  let unpinned: UnpinnedTool[] | undefined;
  for (const each of tools) {
    const origin = descriptionOrigin(each);
    if (origin === undefined || origin.labels.length === 0) continue;
    labels = mergeLabels(labels, origin.labels);
    unpinned ??= [...base.unpinned];
    unpinned.push({
      source: origin.source,
      tool: origin.tool,
      ...(origin.hash === undefined ? {} : { hash: origin.hash }),
      ...(origin.changed ? { changed: true as const } : {}),
    });
  }
  return unpinned === undefined ? base : { labels, unpinned };
}

/**
 * What a step resolved to: `offered`, with the labels from state and those of its definitions;
 * the unpinned definitions only when they bring a label the run (`carried`) did not have yet.
 */
function withDescriptions(offered: OfferedTools, read: Label[], carried: readonly Label[]): ResolvedTools {
  const described = offered.descriptionLabels;
  if (described.length === 0) return { offered, labels: read };
  const labels = read.length === 0 ? [...described] : mergeLabels(read, described);
  const brings = described.some((label) => !carried.includes(label));
  return brings ? { offered, labels, unpinned: offered.unpinned } : { offered, labels };
}

function checkedTools(tools: unknown): readonly Tool<never>[] {
  if (!Array.isArray(tools)) throw new TypeError(`it returned ${typeof tools}, not an array of tools`);
  return tools;
}

function isThenable(value: unknown): value is PromiseLike<readonly Tool<never>[]> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** The sign-in a toolset's failure asks for (an `McpAuthorizationRequiredError` in its causes), if any. */
function signInNeeded(thrown: unknown): Omit<SignInNeeded, 'toolset' | 'reason'> | undefined {
  let current: unknown = thrown;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const fields = current as Error & { code?: unknown; url?: unknown; state?: unknown; principal?: unknown };
    if (fields.code === 'mcp_authorization_required' && typeof fields.url === 'string') {
      return {
        url: fields.url,
        ...(typeof fields.state === 'string' ? { state: fields.state } : {}),
        ...(typeof fields.principal === 'string' ? { principal: fields.principal } : {}),
      };
    }
    current = current.cause;
  }
  return undefined;
}
