import { type Answer, type Arguments, getPrivate, putPrivate, type Tool, type ToolContext, tool } from '@wardrik/core';
import type { Agent } from '../agent.js';

/** Runs a child run for a call of an agent tool; the runtime puts one on the call's context. */
export type ChildRunner = (request: { readonly agent: string; readonly input: string }) => Promise<Answer>;

/** The key of the child runner on a call's context (`getPrivate`), and of the agent on an agent tool. */
export const CHILD_RUNNER = Symbol('wardrik.child-runner');
const AGENT_TOOL = Symbol('wardrik.agent-tool');

/** How to offer an agent as a tool. */
export interface AgentToolOptions {
  /** The name the calling model sees. Default: the agent's name. */
  readonly name?: string;
  /** What the calling model is told the agent does. Default: the agent's description. */
  readonly description?: string;
}

/**
 * Offers `agent` as a tool (ADK's AgentTool, OpenAI Agents' `asTool`): a call starts a child run
 * of it, with its own journal, linked to the calling run both ways; the child's final answer is
 * the call's answer, and its labels and cost flow up to the caller. A child that parks (for a
 * person, in doubt, at its budget) parks its caller until it ends. The child starts with the
 * caller's labels, so a caller that read `outside` text cannot launder it through a child: the
 * child's own calls are gated as the caller's would be.
 *
 * Starting a child is keyed by the call's idempotency key, so the call is safe to repeat (a
 * recovered call finds the child it started, rather than starting another): it is marked
 * read-only and idempotent, and what the child does is judged in the child.
 *
 * @example
 * ```ts
 * const researcher = defineAgent({ name: 'researcher', description: 'Finds facts on the web.', instructions: '…', model, tools: [search] })
 * const writer = defineAgent({ name: 'writer', instructions: 'Write the report; ask the researcher for facts.', model, tools: [agentTool(researcher)] })
 * const wardrik = await createWardrik({ store: memoryStore(), agents: [writer] }) // researcher comes with it
 * ```
 */
export function agentTool(agent: Agent, options: AgentToolOptions = {}): Tool<{ request: string }> {
  if (typeof agent !== 'object' || agent === null || typeof agent.name !== 'string' || !agent.model) {
    throw new TypeError('agentTool: expected an agent built with defineAgent()');
  }
  const built = tool({
    name: options.name ?? agent.name,
    description: options.description ?? (agent.description || `Ask the agent ${agent.name}.`),
    schema: { request: { type: 'string', required: true, doc: `What to ask ${agent.name}.` } },
    annotations: { readOnly: true, idempotent: true },
    run: ({ request }, context: ToolContext) => {
      const runner = context.getPrivate<ChildRunner | undefined>(CHILD_RUNNER, undefined);
      if (!runner) throw new Error(`agent ${agent.name} runs as a tool only inside a Wardrik runtime`);
      return runner({ agent: agent.name, input: request });
    },
  });
  return putPrivate(built, AGENT_TOOL, agent);
}

/** The agent an agent tool runs, if `candidate` is one. */
export function agentOfTool(candidate: Tool<Arguments> | Tool<never>): Agent | undefined {
  return getPrivate<Agent | undefined>(candidate, AGENT_TOOL, undefined);
}
