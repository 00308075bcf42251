import { type Agent, defineAgent } from '../agent.js';
import { AgentDefinitionError } from '../errors.js';
import type { Budget } from '../journal/records.js';
import type { Message, Model, ModelRequest, ModelResponse } from '../model/model.js';
import { modelToolName } from '../model/tool-name.js';
import type { Policy } from '../runtime/policy.js';
import { agentTool } from './agent-tool.js';

/** What every workflow agent is defined with. */
export interface WorkflowOptions {
  /** 1–128 characters of `A–Z a–z 0–9 _ - .`, as any agent's. */
  readonly name: string;
  readonly description?: string;
  /** The agents it runs, each as a child run (see `agentTool`). */
  readonly agents: readonly Agent[];
  /** Limits for the whole workflow: its children get what is left of them. */
  readonly budget?: Budget;
  /** Tightens or loosens which of its children's calls wait for a person (see `Policy`). */
  readonly policy?: Policy;
  /** A state key the workflow's final answer is written to (see `AgentOptions.outputKey`). */
  readonly outputKey?: string;
}

/** How a loop's step came out, for `until`. */
export interface LoopStep {
  /** From 1. */
  readonly iteration: number;
  readonly agent: string;
  readonly output: string;
}

/** Thrown by a workflow's plan when a child failed: the workflow run fails with this message. */
export class WorkflowStopped extends Error {}

/**
 * Children share the workflow's invocation, as ADK's sub-agents do: its session (state read and
 * written live, `{key}` in their instructions), its app's `user:` and `app:` state, and its
 * run-only state (`temp:` keys, and unprefixed keys when the workflow has no session), which each
 * child starts with as the workflow holds it and hands back with its answer. Labels go with every
 * value. Parallel branches start from the same state; when two write one key, the session's value
 * is the last written, and a run-only key takes the value of the branch whose answer the workflow
 * journals last (the one that ended last).
 */

/**
 * An agent that runs `agents` one after the other (ADK's SequentialAgent): the first is given
 * the run's input, each next one the answer of the one before; the last one's answer is the
 * workflow's. Each is a child run with its own journal, started by a journaled step of the
 * workflow's run, so a crash anywhere resumes where it was (a finished child is never run again)
 * and a child that waits for a person makes the workflow wait too. A child that fails fails the
 * workflow.
 *
 * @example
 * ```ts
 * const pipeline = sequentialAgent({ name: 'pipeline', agents: [drafter, reviewer, publisher] })
 * const wardrik = await createWardrik({ store: memoryStore(), agents: [pipeline] })
 * const result = await wardrik.run('pipeline', 'Write the release note for 2.1')
 * ```
 */
export function sequentialAgent(options: WorkflowOptions): Agent {
  const agents = checkedAgents(options, 'sequentialAgent');
  return workflowAgent(options, 'sequential', agents.length + 1, (input, rounds) => {
    if (rounds.length === agents.length) return finish(onlyOutput(rounds.at(-1)));
    const next = agents[rounds.length] as Agent;
    return callAgents([next], rounds.length === 0 ? input : onlyOutput(rounds.at(-1)));
  });
}

/**
 * An agent that runs `agents` at once on the run's input (ADK's ParallelAgent): each a child run
 * with its own journal (a branch of the workflow's), driven concurrently; the workflow answers
 * with every branch's answer, each under its agent's name, once all have ended. A branch that
 * waits for a person makes the workflow wait for it, while the others go on; one that fails
 * fails the workflow.
 *
 * @example
 * ```ts
 * const research = parallelAgent({ name: 'research', agents: [webSearcher, paperSearcher, newsSearcher] })
 * ```
 */
export function parallelAgent(options: WorkflowOptions): Agent {
  const agents = checkedAgents(options, 'parallelAgent');
  return workflowAgent(options, 'parallel', 2, (input, rounds) => {
    const [done] = rounds;
    if (!done) return callAgents(agents, input);
    return finish(done.map((result) => `${result.name}:\n${outputOf(result)}`).join('\n\n'));
  });
}

/**
 * An agent that runs `agents` one after the other, again and again (ADK's LoopAgent): each is
 * given the answer of the one before (the first, the run's input); it stops after
 * `maxIterations` rounds, or as soon as `until` says so of an answer — the way a child ends the
 * loop (e.g. a reviewer answering "APPROVED"). The workflow answers with the last answer.
 *
 * @example
 * ```ts
 * const polish = loopAgent({
 *   name: 'polish',
 *   agents: [writer, critic],
 *   maxIterations: 3,
 *   until: ({ agent, output }) => agent === 'critic' && output.includes('APPROVED'),
 * })
 * ```
 */
export function loopAgent(
  options: WorkflowOptions & {
    readonly maxIterations: number;
    readonly until?: (step: LoopStep) => boolean;
  },
): Agent {
  const agents = checkedAgents(options, 'loopAgent');
  const { maxIterations, until } = options;
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new AgentDefinitionError(
      `loopAgent ${options.name}: maxIterations must be a positive integer, got ${String(maxIterations)}`,
    );
  }
  if (until !== undefined && typeof until !== 'function') {
    throw new AgentDefinitionError(`loopAgent ${options.name}: until must be a function`);
  }
  const rounds = maxIterations * agents.length;
  return workflowAgent(options, 'loop', rounds + 1, (input, done) => {
    const last = done.at(-1);
    if (last) {
      const output = onlyOutput(last);
      const step: LoopStep = {
        iteration: Math.ceil(done.length / agents.length),
        agent: (agents[(done.length - 1) % agents.length] as Agent).name,
        output,
      };
      if (done.length === rounds || until?.(step) === true) return finish(output);
    }
    const next = agents[done.length % agents.length] as Agent;
    return callAgents([next], last ? onlyOutput(last) : input);
  });
}

/** One child's answer, as the workflow's conversation holds it. */
interface ChildResult {
  readonly name: string;
  readonly content: unknown;
  readonly isError: boolean;
}

/** What a workflow does next, from its input and the answers of its rounds so far. */
type Plan = (input: string, rounds: readonly (readonly ChildResult[])[]) => ModelResponse;

function workflowAgent(options: WorkflowOptions, kind: string, maxSteps: number, plan: Plan): Agent {
  const unique = [...new Map(options.agents.map((agent) => [agent.name, agent])).values()];
  const model: Model = {
    id: `workflow:${kind}`,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const { input, rounds } = progress(request.messages);
      const failed = rounds.at(-1)?.filter((result) => result.isError) ?? [];
      if (failed.length > 0) {
        const why = failed.map((result) => `agent ${result.name} failed: ${errorOf(result)}`).join('; ');
        throw new WorkflowStopped(`the ${kind} workflow ${options.name} stopped: ${why}`);
      }
      return plan(input, rounds);
    },
  };
  return defineAgent({
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
    instructions: '',
    model,
    tools: unique.map((agent) => agentTool(agent)),
    maxSteps,
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.outputKey === undefined ? {} : { outputKey: options.outputKey }),
  });
}

function checkedAgents(options: WorkflowOptions, what: string): readonly Agent[] {
  if (typeof options !== 'object' || options === null)
    throw new AgentDefinitionError(`${what}: expected an options object`);
  const { agents } = options;
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new AgentDefinitionError(`${what} ${options.name}: agents must be a non-empty array of agents`);
  }
  for (const [index, agent] of agents.entries()) {
    if (typeof agent !== 'object' || agent === null || typeof agent.name !== 'string' || !agent.model) {
      throw new AgentDefinitionError(
        `${what} ${options.name}: agents[${index}] is not an agent; build it with defineAgent()`,
      );
    }
    if (agent.name === options.name) throw new AgentDefinitionError(`${what} ${options.name}: it can't run itself`);
  }
  return agents;
}

/** The run's input (its latest user message) and the children's answers since, step by step. */
function progress(messages: readonly Message[]): { input: string; rounds: ChildResult[][] } {
  let start = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'user') {
      start = index;
      break;
    }
  }
  const first = messages[start];
  const input = first?.role === 'user' ? first.content : '';
  const rounds: ChildResult[][] = [];
  for (const message of messages.slice(start + 1)) {
    if (message.role === 'assistant') rounds.push([]);
    else if (message.role === 'tool') rounds.at(-1)?.push(message);
  }
  return { input, rounds };
}

function callAgents(agents: readonly Agent[], request: string): ModelResponse {
  return {
    text: '',
    toolCalls: agents.map((agent) => ({ name: modelToolName(agent.name), arguments: { request } })),
    usage: NO_USAGE,
  };
}

function finish(text: string): ModelResponse {
  return { text, toolCalls: [], usage: NO_USAGE };
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

function onlyOutput(round: readonly ChildResult[] | undefined): string {
  const [result] = round ?? [];
  return result ? outputOf(result) : '';
}

function outputOf(result: ChildResult): string {
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

function errorOf(result: ChildResult): string {
  const content = result.content as { error?: unknown } | null;
  return typeof content?.error === 'string' ? content.error : outputOf(result);
}
