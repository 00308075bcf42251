import { type Arguments, isValidToolName, type Tool, toMcpTool } from '@wardrik/core';
import { AgentDefinitionError } from './errors.js';
import type { Budget } from './journal/records.js';
import type { Model, ModelToolDefinition } from './model/model.js';

/** How to define an agent. */
export interface AgentOptions {
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
  // Later issues add here: `workers` ('workers/*' or 'workers/NAME'), `policy` (gates),
  // `subAgents` (TransferToAgent) and `toolsets` (resolved on every step).
}

/** An agent, checked and ready to run. */
export interface Agent {
  readonly name: string;
  readonly description: string;
  readonly instructions: string;
  readonly model: Model;
  /** Local tools by name. */
  readonly tools: ReadonlyMap<string, Tool<Arguments>>;
  /** What the model is offered, computed once. */
  readonly toolDefinitions: readonly ModelToolDefinition[];
  readonly budget: Budget;
  readonly maxSteps: number;
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
    throw new AgentDefinitionError(`agent ${name}: model must implement generate(request, options)`);
  }
  const tools = new Map<string, Tool<Arguments>>();
  for (const [index, candidate] of (options.tools ?? []).entries()) {
    const local = candidate as unknown as Tool<Arguments>;
    if (typeof local !== 'object' || local === null || typeof local.run !== 'function' || !local.schema) {
      throw new AgentDefinitionError(
        `agent ${name}: tools[${index}] is not a tool; build it with tool() from @wardrik/core`,
      );
    }
    if (tools.has(local.name))
      throw new AgentDefinitionError(`agent ${name}: two tools are named ${JSON.stringify(local.name)}`);
    tools.set(local.name, local);
  }
  const maxSteps = options.maxSteps ?? 50;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new AgentDefinitionError(`agent ${name}: maxSteps must be a positive integer, got ${String(maxSteps)}`);
  }
  const budget = checkBudget(options.budget ?? {}, `agent ${name}: budget`);
  const toolDefinitions = [...tools.values()].map((local) => {
    const listed = toMcpTool(local);
    return { name: listed.name, description: listed.description ?? '', inputSchema: listed.inputSchema };
  });
  return Object.freeze({
    name,
    description: options.description ?? '',
    instructions,
    model,
    tools,
    toolDefinitions,
    budget,
    maxSteps,
  });
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
