import {
  type Arguments,
  type CompiledSchema,
  isValidToolName,
  type SchemaArguments,
  type SchemaInput,
  stateKeyProblem,
  type Tool,
  type Toolset,
  toMcpTool,
} from '@wardrik/core';
import { checkedGuardrails, compiledOutputSchema, type Guardrails } from './agents/final-answer.js';
import { AgentDefinitionError } from './errors.js';
import type { Budget } from './journal/records.js';
import type { Message, Model, ModelToolDefinition } from './model/model.js';
import { modelToolName } from './model/tool-name.js';
import type { AgentCallbacks } from './runtime/callbacks.js';
import { hasTemplates } from './runtime/instructions.js';
import { checkPolicy, type Policy } from './runtime/policy.js';

/** How to define an agent. */
export interface AgentOptions<OutputSchema extends SchemaInput | undefined = SchemaInput | undefined> {
  /** 1–128 characters of `A–Z a–z 0–9 _ - .`; runs name their agent by it. */
  readonly name: string;
  readonly description?: string;
  /** What the model is told before the conversation. */
  readonly instructions: string;
  readonly model: Model;
  /** Local tools, built with `tool()` from @wardrik/core. */
  readonly tools?: readonly Tool<never>[];
  /** Limits that park the run with kind `budget` when reached; a person can raise them. */
  readonly budget?: Budget;
  /** Model steps after which the run fails for want of a final answer. Default 50. */
  readonly maxSteps?: number;
  /**
   * Tools offered by workers: `'workers/*'` for all, or `'workers/NAME'`. The model sees each as
   * `workers__NAME`; they are resolved on every step.
   */
  readonly workers?: readonly string[];
  /** Which calls run on their own, wait for a person, or are refused; see `Policy`. */
  readonly policy?: Policy;
  /**
   * Tools resolved before every model step (see `toolset` from @wardrik/core, and `mcpToolset`):
   * they can appear and disappear as the run goes. Gates judge them like any other tool.
   */
  readonly toolsets?: readonly Toolset[];
  /**
   * Whose `user:` and `app:` state the agent's runs share (agents of one app share it). Same
   * characters as a name. Default: the agent's name.
   */
  readonly app?: string;
  /**
   * Whether the agent's tools may write `app:` state, which every principal's runs read: `'write'`
   * lets them; default `'read'`.
   */
  readonly appState?: 'read' | 'write';
  /** How much of a session's conversation its next run sees. */
  readonly history?: HistoryOptions;
  /**
   * A state key the agent's final answer is written to when a run of it completes (ADK's
   * `output_key`), labelled as the answer is: `draft` for the session (in a workflow, the next
   * step reads it as `{draft}`), `temp:draft` for the invocation only, `user:…` for the principal.
   * An `app:` key needs `appState: 'write'`.
   *
   * @example
   * ```ts
   * const drafter = defineAgent({ name: 'drafter', instructions: 'Draft the note.', model, outputKey: 'draft' })
   * const reviewer = defineAgent({ name: 'reviewer', instructions: 'Review this draft: {draft}', model })
   * const pipeline = sequentialAgent({ name: 'pipeline', agents: [drafter, reviewer] })
   * ```
   */
  readonly outputKey?: string;
  /**
   * The shape of the final answer (any of a tool's three schema forms, describing an object): the
   * model is asked for JSON of it (providers that support structured output are given the
   * schema), each final answer is checked, and one that does not match is sent back to the model
   * saying what is wrong, up to `maxOutputRetries` times (default 2), after which the run fails.
   * `outputOf(agent, result)` gives the checked value, typed from the schema.
   *
   * @example
   * ```ts
   * const triage = defineAgent({
   *   name: 'triage', instructions: 'Classify the ticket.', model,
   *   outputSchema: { queue: { type: 'enum', enum: ['billing', 'shipping'], required: true }, urgent: { type: 'boolean', required: true } },
   * })
   * const result = await wardrik.run('triage', 'My parcel never came!')
   * outputOf(triage, result)?.queue // 'shipping'
   * ```
   */
  readonly outputSchema?: OutputSchema;
  /** How many final answers that do not match `outputSchema` are sent back before the run fails. Default 2. */
  readonly maxOutputRetries?: number;
  /** Checks of the run's input and of its final answer that can stop the run (see `Guardrail`). */
  readonly guardrails?: Guardrails;
  /**
   * Agents this one may hand the run to: the model is offered `transfer_to_agent` with their names
   * and descriptions, and a transfer continues the run under the agent named (its instructions,
   * model, tools and policy; the run's labels, cost and budget carry on). Each sub-agent may hand
   * the run back to this one unless it sets `disallowTransferToParent`. An agent has one parent.
   */
  readonly subAgents?: readonly Agent[];
  /** Don't offer a transfer back to the agent that has this one among its `subAgents`. */
  readonly disallowTransferToParent?: boolean;
  /** `beforeModel`, `afterModel`, `beforeTool`, `afterTool` (see `AgentCallbacks`). */
  readonly callbacks?: AgentCallbacks;
}

/**
 * How much of a session's earlier conversation a run sees: the last `maxMessages` messages
 * (default 100), the older ones dropped, or folded into a summary by `summarize`.
 *
 * @example
 * ```ts
 * history: {
 *   maxMessages: 40,
 *   summarize: async ({ dropped, summary }) => summarizer.summarize([summary ?? '', ...dropped.map(text)]),
 * }
 * ```
 */
export interface HistoryOptions {
  readonly maxMessages?: number;
  /**
   * Folds messages that leave the window into a summary (the previous summary, if any, given
   * with them); the run sees it first. What it returns is journaled with the run.
   */
  readonly summarize?: (input: {
    readonly dropped: readonly Message[];
    readonly summary?: string;
  }) => string | Promise<string>;
}

/** An agent, checked and ready to run. */
export interface Agent<Output = unknown> {
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  readonly model: Model;
  /**
   * Local tools by the name the model sees: the tool's own name, or for one that model providers
   * would refuse (a dot, over 64 characters) a safe name with a hash of it (see `modelToolName`).
   */
  readonly tools: ReadonlyMap<string, Tool<Arguments>>;
  /** What the model is offered, computed once. */
  readonly toolDefinitions: readonly ModelToolDefinition[];
  readonly budget: Budget;
  readonly maxSteps: number;
  /** Worker tool patterns (`workers/*`, `workers/NAME`). */
  readonly workers: readonly string[];
  readonly policy: Policy;
  readonly toolsets: readonly Toolset[];
  readonly app: string;
  readonly appState: 'read' | 'write';
  readonly history: { readonly maxMessages: number; readonly summarize?: HistoryOptions['summarize'] };
  /** The state key its final answer is written to, if any (see `AgentOptions.outputKey`). */
  readonly outputKey?: string;
  /** The final answer's schema, compiled (see `AgentOptions.outputSchema`). */
  readonly output?: CompiledSchema;
  readonly maxOutputRetries: number;
  readonly guardrails: Required<Guardrails>;
  /** The type of its checked final answer (a marker for `outputOf`; never set). */
  readonly outputType?: Output;
  /** Whether the instructions name state (`{key}`): they are rendered before every step. */
  readonly templated: boolean;
  readonly subAgents: readonly Agent[];
  readonly disallowTransferToParent: boolean;
  readonly callbacks: AgentCallbacks;
}

/**
 * Defines an agent. Throws `AgentDefinitionError` naming the field if anything is malformed.
 *
 * @example
 * ```ts
 * const support = defineAgent({
 *   name: 'support',
 *   instructions: 'Help customers with their orders.',
 *   model: new ScriptedModel([{ toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }] }, { text: 'On its way.' }]),
 *   tools: [orderStatus],
 *   budget: { usd: 1 },
 * })
 * ```
 */
export function defineAgent<const OutputSchema extends SchemaInput | undefined = undefined>(
  options: AgentOptions<OutputSchema>,
): Agent<OutputSchema extends undefined ? string : SchemaArguments<OutputSchema>>;
export function defineAgent(options: AgentOptions): Agent {
  if (typeof options !== 'object' || options === null)
    throw new AgentDefinitionError('defineAgent: expected an options object');
  const { name, instructions, model } = options;
  if (!isValidToolName(name)) {
    throw new AgentDefinitionError(
      `defineAgent: name ${JSON.stringify(name)} is invalid: use 1–128 characters of A–Z a–z 0–9 _ - .`,
    );
  }
  if (typeof instructions !== 'string') throw new AgentDefinitionError(`agent ${name}: instructions must be a string`);
  if (typeof model !== 'object' || model === null || typeof model.generate !== 'function') {
    throw new AgentDefinitionError(`agent ${name}: ${modelProblem(model)}`);
  }
  const tools = new Map<string, Tool<Arguments>>();
  for (const [index, candidate] of (options.tools ?? []).entries()) {
    const local = candidate as unknown as Tool<Arguments>;
    if (typeof local !== 'object' || local === null || typeof local.run !== 'function' || !local.schema) {
      throw new AgentDefinitionError(
        `agent ${name}: tools[${index}] is not a tool; build it with tool() from @wardrik/core`,
      );
    }
    // Keyed by the name the model sees: providers refuse dots and names over 64 characters.
    const modelName = modelToolName(local.name);
    const clash = tools.get(modelName);
    if (clash) {
      const names =
        clash.name === local.name
          ? JSON.stringify(local.name)
          : `${JSON.stringify(clash.name)} and ${JSON.stringify(local.name)} (the model would see both as ${JSON.stringify(modelName)})`;
      throw new AgentDefinitionError(`agent ${name}: two tools are named ${names}`);
    }
    tools.set(modelName, local);
  }
  const maxSteps = options.maxSteps ?? 50;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new AgentDefinitionError(`agent ${name}: maxSteps must be a positive integer, got ${String(maxSteps)}`);
  }
  const budget = checkBudget(options.budget ?? {}, `agent ${name}: budget`);
  const toolDefinitions = [...tools].map(([modelName, local]) => toolDefinition(local, modelName));
  const workers = options.workers ?? [];
  if (!Array.isArray(workers))
    throw new AgentDefinitionError(`agent ${name}: workers must be an array such as ['workers/*']`);
  for (const [index, pattern] of workers.entries()) {
    const worker = typeof pattern === 'string' && pattern.startsWith('workers/') ? pattern.slice(8) : undefined;
    if (worker === undefined || (worker !== '*' && !isValidToolName(worker))) {
      throw new AgentDefinitionError(
        `agent ${name}: workers[${index}] is ${JSON.stringify(pattern)}; expected 'workers/*' or 'workers/NAME'`,
      );
    }
  }
  return Object.freeze({
    name,
    description: options.description ?? '',
    instructions,
    model,
    tools,
    toolDefinitions,
    budget,
    maxSteps,
    workers: [...workers],
    policy: checkedPolicy(options.policy, `agent ${name}: policy`),
    toolsets: checkedToolsets(options.toolsets, name),
    app: checkedApp(options.app, name),
    appState: checkedAppState(options.appState, name),
    history: checkedHistory(options.history, name),
    ...checkedOutputKey(options.outputKey, options.appState, name),
    ...(options.outputSchema === undefined ? {} : { output: compiledOutputSchema(options.outputSchema, name) }),
    maxOutputRetries: checkedRetries(options.maxOutputRetries, name),
    guardrails: checkedGuardrails(options.guardrails, name),
    templated: hasTemplates(instructions),
    subAgents: checkedSubAgents(options.subAgents, name),
    disallowTransferToParent: options.disallowTransferToParent === true,
    callbacks: checkedCallbacks(options.callbacks, name),
  });
}

/** Why `model` is not a Wardrik `Model`, with the fix for the common mistakes. */
function modelProblem(model: unknown): string {
  if (typeof model === 'string') {
    return `model is the string ${JSON.stringify(model)}; make a model of it with modelFromString(${JSON.stringify(model)}) from 'wardrik' (it reads the provider's key from the environment)`;
  }
  const candidate = model as { specificationVersion?: unknown; doGenerate?: unknown } | null;
  if (typeof candidate === 'object' && candidate !== null && typeof candidate.doGenerate === 'function') {
    return "model is an AI SDK language model; wrap it: aiSdkModel(openai('gpt-4.1-mini')) from 'wardrik'";
  }
  return `model must be a Wardrik Model (generate(request, options)): aiSdkModel(…), modelFromString('openai:gpt-4.1-mini') or a ScriptedModel from 'wardrik/testing'; got ${model === null ? 'null' : typeof model}`;
}

function checkedRetries(retries: unknown, name: string): number {
  if (retries === undefined) return 2;
  if (!Number.isInteger(retries) || (retries as number) < 0) {
    throw new AgentDefinitionError(
      `agent ${name}: maxOutputRetries must be a whole number of 0 or more, got ${String(retries)}`,
    );
  }
  return retries as number;
}

function checkedOutputKey(outputKey: unknown, appState: unknown, name: string): { outputKey?: string } {
  if (outputKey === undefined) return {};
  const problem = stateKeyProblem(outputKey);
  if (problem !== undefined) throw new AgentDefinitionError(`agent ${name}: outputKey: ${problem}`);
  if ((outputKey as string).startsWith('app:') && appState !== 'write') {
    throw new AgentDefinitionError(
      `agent ${name}: outputKey ${JSON.stringify(outputKey)} is app: state, which every principal's runs read; it needs appState: 'write'`,
    );
  }
  return { outputKey: outputKey as string };
}

function checkedSubAgents(subAgents: unknown, name: string): readonly Agent[] {
  if (subAgents === undefined) return [];
  if (!Array.isArray(subAgents)) throw new AgentDefinitionError(`agent ${name}: subAgents must be an array of agents`);
  const names = new Set<string>();
  for (const [index, each] of subAgents.entries()) {
    if (typeof each !== 'object' || each === null || typeof each.name !== 'string' || !each.model) {
      throw new AgentDefinitionError(`agent ${name}: subAgents[${index}] is not an agent; build it with defineAgent()`);
    }
    if (each.name === name) throw new AgentDefinitionError(`agent ${name}: an agent can't be its own sub-agent`);
    if (names.has(each.name)) throw new AgentDefinitionError(`agent ${name}: two sub-agents are named ${each.name}`);
    names.add(each.name);
  }
  return [...subAgents];
}

const CALLBACKS = ['beforeModel', 'afterModel', 'beforeTool', 'afterTool'];

function checkedCallbacks(callbacks: unknown, name: string): AgentCallbacks {
  if (callbacks === undefined) return {};
  if (typeof callbacks !== 'object' || callbacks === null) {
    throw new AgentDefinitionError(`agent ${name}: callbacks must be an object such as { beforeTool }`);
  }
  for (const [key, value] of Object.entries(callbacks)) {
    if (!CALLBACKS.includes(key)) {
      throw new AgentDefinitionError(`agent ${name}: callbacks.${key} is unknown (expected ${CALLBACKS.join(', ')})`);
    }
    if (value !== undefined && typeof value !== 'function') {
      throw new AgentDefinitionError(`agent ${name}: callbacks.${key} must be a function`);
    }
  }
  return { ...(callbacks as AgentCallbacks) };
}

function checkedToolsets(toolsets: unknown, name: string): readonly Toolset[] {
  if (toolsets === undefined) return [];
  if (!Array.isArray(toolsets)) throw new AgentDefinitionError(`agent ${name}: toolsets must be an array of toolsets`);
  const names = new Set<string>();
  for (const [index, each] of toolsets.entries()) {
    if (typeof each !== 'object' || each === null || typeof each.tools !== 'function' || !isValidToolName(each.name)) {
      throw new AgentDefinitionError(
        `agent ${name}: toolsets[${index}] is not a toolset; build it with toolset() from @wardrik/core or mcpToolset()`,
      );
    }
    if (names.has(each.name)) throw new AgentDefinitionError(`agent ${name}: two toolsets are named ${each.name}`);
    names.add(each.name);
  }
  return [...toolsets];
}

function checkedApp(app: unknown, name: string): string {
  if (app === undefined) return name;
  if (!isValidToolName(app)) {
    throw new AgentDefinitionError(
      `agent ${name}: app ${JSON.stringify(app)} is invalid: use 1–128 characters of A–Z a–z 0–9 _ - .`,
    );
  }
  return app;
}

function checkedAppState(appState: unknown, name: string): 'read' | 'write' {
  if (appState === undefined) return 'read';
  if (appState !== 'read' && appState !== 'write') {
    throw new AgentDefinitionError(
      `agent ${name}: appState must be 'read' or 'write', got ${JSON.stringify(appState)}`,
    );
  }
  return appState;
}

function checkedHistory(history: unknown, name: string): Agent['history'] {
  if (history === undefined) return { maxMessages: 100 };
  if (typeof history !== 'object' || history === null) {
    throw new AgentDefinitionError(`agent ${name}: history must be an object such as { maxMessages: 40 }`);
  }
  const { maxMessages = 100, summarize } = history as HistoryOptions;
  if (!Number.isInteger(maxMessages) || maxMessages < 1) {
    throw new AgentDefinitionError(
      `agent ${name}: history.maxMessages must be a positive integer, got ${String(maxMessages)}`,
    );
  }
  if (summarize !== undefined && typeof summarize !== 'function') {
    throw new AgentDefinitionError(`agent ${name}: history.summarize must be a function`);
  }
  return { maxMessages, ...(summarize ? { summarize } : {}) };
}

function checkedPolicy(policy: unknown, where: string): Policy {
  try {
    return checkPolicy(policy, where);
  } catch (cause) {
    throw new AgentDefinitionError((cause as Error).message, { cause });
  }
}

/** A tool as the model is offered it, under the name the model sees (its own by default). */
export function toolDefinition(local: Tool<Arguments>, modelName: string = local.name): ModelToolDefinition {
  const listed = toMcpTool(local);
  return { name: modelName, description: listed.description ?? '', inputSchema: listed.inputSchema };
}

/** Checks a budget: each limit, if set, is a positive finite number. */
export function checkBudget(budget: unknown, where: string): Budget {
  if (typeof budget !== 'object' || budget === null || Array.isArray(budget)) {
    throw new AgentDefinitionError(`${where}: expected an object such as { usd: 1 }`);
  }
  const known = ['usd', 'tokens', 'steps'];
  for (const [key, value] of Object.entries(budget)) {
    if (!known.includes(key))
      throw new AgentDefinitionError(`${where}.${key}: unknown limit (expected usd, tokens or steps)`);
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new AgentDefinitionError(`${where}.${key}: expected a positive number, got ${String(value)}`);
    }
  }
  return { ...(budget as Budget) };
}
