import { type Agent, defineAgent } from '../agent.js';
import type { Message, Model, ModelRequest, ModelResponse } from '../model/model.js';
import {
  type CallSample,
  type RunSampleRequest,
  type RunSampler,
  SAMPLES_FOR_RUN,
} from '../runtime/calls/call-sampling.js';
import { ClientSamplers } from './client-sampling.js';

/** What a gateway agent's name adds to its agent's: `support` → `support.gateway`. */
export const GATEWAY_SUFFIX = '.gateway';

/** The id of the model gateway agents run on (it calls the tool the run's input names, then ends). */
export const GATEWAY_MODEL_ID = 'wardrik:mcp-gateway';

const NO_USAGE = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/** What a gateway run's input holds: the tool to call (as the model sees it) and its arguments. */
export interface GatewayCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * The "model" of a gateway agent: no model at all. Its first step calls the tool the run's input
 * names with the arguments given; its second ends the run with that call's answer. Nothing it
 * does depends on anything but the input and the answer, so a run recovered on another node
 * makes the same steps. A call that samples (`context.sample`) asks the MCP client waiting on the
 * run (see `ClientSamplers`): the gateway's "model" is its caller's.
 */
export class GatewayModel implements Model, RunSampler {
  readonly id = GATEWAY_MODEL_ID;
  readonly provider = 'wardrik';
  /** The agent whose tools this gateway offers. */
  readonly agent: string;
  /** The MCP clients that calls of this gateway's runs ask to sample. */
  readonly samplers = new ClientSamplers();

  constructor(agent: string) {
    this.agent = agent;
  }

  [SAMPLES_FOR_RUN](input: RunSampleRequest): Promise<CallSample> {
    return this.samplers.sample(input);
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const answered = request.messages.find((message): message is Message & { role: 'tool' } => message.role === 'tool');
    if (answered) return { text: answerText(answered.content), toolCalls: [], usage: NO_USAGE };
    const input = request.messages.find((message): message is Message & { role: 'user' } => message.role === 'user');
    const call = input === undefined ? undefined : readGatewayCall(input.content);
    if (call === undefined) {
      return {
        text: 'not a gateway call: the input must be {"tool": …, "arguments": {…}}',
        toolCalls: [],
        usage: NO_USAGE,
      };
    }
    if (!request.tools.some((offered) => offered.name === call.tool)) {
      return { text: `tool ${call.tool} is not offered now`, toolCalls: [], usage: NO_USAGE };
    }
    return { text: '', toolCalls: [{ id: 'gateway', name: call.tool, arguments: call.arguments }], usage: NO_USAGE };
  }
}

/**
 * The built-in agent through which an MCP client calls `agent`'s tools one by one (the MCP
 * gateway): a run of it makes one call of the tool its input names, under `agent`'s tools,
 * toolsets, workers, policy, budget, app and tool callbacks — so the journal, gates, parks,
 * budgets and labels apply exactly as inside a run of `agent`. It is named `NAME.gateway`:
 * principals (and workers) need that name in their scope to use it.
 *
 * @example
 * ```ts
 * const wardrik = await createWardrik({ store, agents: [support, mcpGatewayAgent(support)] })
 * // wardrik serve does this for the agents its config's mcp.gateway names
 * ```
 */
export function mcpGatewayAgent(agent: Agent): Agent {
  const { beforeTool, afterTool } = agent.callbacks;
  return defineAgent({
    name: gatewayAgentName(agent.name),
    description: `Calls one tool of agent ${agent.name} for an MCP client (the MCP gateway).`,
    instructions: `Call the tool the input names, with its arguments, once; answer with what it returned.`,
    model: new GatewayModel(agent.name),
    tools: [...agent.tools.values()] as never[],
    toolsets: agent.toolsets,
    workers: agent.workers,
    policy: agent.policy,
    budget: agent.budget,
    maxSteps: 2,
    app: agent.app,
    appState: agent.appState,
    callbacks: { ...(beforeTool ? { beforeTool } : {}), ...(afterTool ? { afterTool } : {}) },
  });
}

/** `support` → `support.gateway`. */
export function gatewayAgentName(agent: string): string {
  return `${agent}${GATEWAY_SUFFIX}`;
}

/** The agent a gateway agent offers the tools of, or undefined for any other agent. */
export function gatewayOf(agent: Agent): string | undefined {
  return agent.model instanceof GatewayModel ? agent.model.agent : undefined;
}

/** The MCP clients a gateway agent's calls ask to sample, or undefined for any other agent. */
export function gatewaySamplers(agent: Agent): ClientSamplers | undefined {
  return agent.model instanceof GatewayModel ? agent.model.samplers : undefined;
}

/** The input of a gateway run: the call as JSON. */
export function gatewayInput(call: GatewayCall): string {
  return JSON.stringify({ tool: call.tool, arguments: call.arguments });
}

/** The call a gateway run's input names, or undefined when it names none. */
export function readGatewayCall(input: string): GatewayCall | undefined {
  try {
    const parsed = JSON.parse(input) as Partial<GatewayCall>;
    if (typeof parsed?.tool !== 'string' || typeof parsed.arguments !== 'object' || parsed.arguments === null) {
      return undefined;
    }
    return { tool: parsed.tool, arguments: parsed.arguments };
  } catch {
    return undefined;
  }
}

function answerText(content: unknown): string {
  if (typeof content === 'string') return content;
  try {
    return JSON.stringify(content) ?? String(content);
  } catch {
    return String(content);
  }
}
