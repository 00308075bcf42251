import { type Arguments, describeReason, type Label, mergeLabels, type Tool, type Toolset } from '@wardrik/core';
import type { Agent } from '../agent.js';
import { toolDefinition } from '../agent.js';
import type { ModelToolDefinition } from '../model/model.js';
import type { WorkerHub } from '../workers/worker-hub.js';
import {
  combineOffer,
  type Descriptions,
  describe,
  type OfferedTools,
  type ResolvedTools,
  type SignInNeeded,
  type ToolsetResult,
  withDescriptions,
} from './tool-offer.js';
import { isStandIn, sourceFacts } from './tool-source-facts.js';
import { askToolset, buildToolsetResult, isThenable, signInNeeded } from './toolset-answers.js';
import type { ResolveInput } from './toolset-context.js';

/** The tool a stand-in stood for, once offered; or why none came (the call's answer). */
export type Offered = { readonly tool: Tool<Arguments> } | { readonly unavailable: string };

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
  /** Whether `name` is one of the agent's own tools or one added (made once: a source's tool of that name is left out). */
  readonly #isOwn = (name: string): boolean => this.#agent.tools.has(name) || this.#added.has(name);

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
        const asked = askToolset(toolset, { agentName: agent.name, input, onRead, timeoutMs: this.#timeoutMs });
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
    const combined = combineOffer({
      ownDefinitions: this.#ownDefinitions,
      ownDescriptions: this.#ownDescriptions,
      isOwn: this.#isOwn,
      toolsets: agent.toolsets,
      results,
      workerTools,
      unavailable,
    });
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
    return {
      unavailable: `Unavailable: no worker offers ${sourceFacts(standIn)?.standsInFor ?? standIn.name} (waited ${waited} ms)`,
    };
  }

  #build(toolset: Toolset, tools: readonly Tool<never>[]): ToolsetResult {
    const built = this.#built.get(toolset);
    if (built?.tools === tools) return built;
    const result = buildToolsetResult(tools, this.#isOwn);
    this.#built.set(toolset, result);
    return result;
  }
}

function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
