import { type Arguments, getPrivate, ok, putPrivate, type Tool, tool } from '@wardrik/core';
import type { Agent } from '../agent.js';

/** The name the model sees for handing the run to another agent (ADK's `transfer_to_agent`). */
export const TRANSFER_TOOL = 'transfer_to_agent';

/** How many times one run may be handed between agents: a loop of transfers ends here. */
export const MAX_TRANSFERS = 10;

/** Marks the transfer tool (a private value only this module knows). */
const TRANSFER = Symbol('wardrik.transfer');

/**
 * The `transfer_to_agent` tool of an agent that may hand the run to `targets` (its sub-agents,
 * and its parent unless it opted out). Its answer only says where the run goes; the driver
 * journals the transfer (`agent-transferred`) with it, and the next step runs under the target.
 * It changes nothing outside the run: read-only.
 */
export function transferTool(from: Agent, targets: readonly Agent[]): Tool<Arguments> {
  const names = targets.map((target) => target.name);
  const listed = targets
    .map((target) => `- ${target.name}${target.description ? `: ${target.description}` : ''}`)
    .join('\n');
  const built = tool({
    name: TRANSFER_TOOL,
    description:
      `Hand the conversation to another agent, which then answers the user with its own instructions and tools. ` +
      `You are ${from.name}. You may transfer to:\n${listed}`,
    schema: {
      type: 'object',
      properties: {
        agent_name: { type: 'string', enum: names, description: 'The agent to hand the conversation to.' },
        reason: {
          type: 'string',
          description: 'Why, in a sentence: the next agent and the people reading the run see it.',
        },
      },
      required: ['agent_name'],
      additionalProperties: false,
    },
    annotations: { readOnly: true, idempotent: true },
    run: ({ agent_name }) => ok({ transferred_to: agent_name }),
  });
  return putPrivate(built as unknown as Tool<Arguments>, TRANSFER, true);
}

/** Whether `candidate` is a transfer tool made by `transferTool`. */
export function isTransferTool(candidate: Tool<Arguments>): boolean {
  return getPrivate(candidate, TRANSFER, false);
}

/** The agent a transfer call names and why, from its (checked) arguments. */
export function transferRequest(args: unknown): { readonly to: string; readonly reason?: string } {
  const { agent_name: to, reason } = args as { agent_name: string; reason?: unknown };
  return typeof reason === 'string' && reason !== '' ? { to, reason } : { to };
}
