import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type Arguments, type CompiledSchema, compileSchema, type Tool, toMcpTool } from '@wardrik/core';
import type { Agent } from '../agent.js';
import { can } from '../auth/permissions.js';
import type { Principal } from '../auth/types.js';
import { ToolResolver } from '../runtime/tool-resolver.js';
import type { Wardrik } from '../runtime/wardrik.js';
import { gatewayOf } from './gateway-agent.js';

/** How long listing a gateway agent's toolsets may take, in ms (as a run's step would wait). */
const TOOLSET_TIMEOUT_MS = 10_000;

/** What separates an agent's name from its tool's in a gateway tool's name: `support__refund`. */
export const GATEWAY_SEPARATOR = '__';

/** The `_meta` key a gateway tool names its agent and tool under. */
export const GATEWAY_META = 'wardrik/gateway';

/** A tool `/mcp` offers: an agent (a call is a run of it), or one of an agent's tools (a gateway run). */
export type OfferedTool =
  | { readonly type: 'agent'; readonly listed: McpTool; readonly agent: Agent }
  | {
      readonly type: 'gateway';
      readonly listed: McpTool;
      /** The gateway agent whose run makes the call (`NAME.gateway`). */
      readonly agent: Agent;
      /** The tool's name as that agent's model sees it. */
      readonly tool: string;
      readonly schema: CompiledSchema;
    };

const AGENT_INPUT = {
  type: 'object',
  properties: {
    input: { type: 'string', minLength: 1, description: 'What to ask the agent.' },
    session: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description:
        'A conversation to continue: any id of yours (a new one starts a session). The agent sees what was said in it before.',
    },
  },
  required: ['input'],
  additionalProperties: false,
} as const;

/** What an agent tool's arguments are checked against (compiled once). */
export const AGENT_INPUT_SCHEMA: CompiledSchema = compileSchema(AGENT_INPUT);

/** Which agents are offered as tools, and which agents' tools through the gateway. */
export interface Offer {
  /** Agent names offered as tools. */
  readonly agents: readonly string[];
  /** Gateway agents (`NAME.gateway`) whose agent's tools are offered one by one. */
  readonly gateways: readonly Agent[];
  /** Whether gateway tools are named `AGENT__TOOL` (else `TOOL`). */
  readonly gatewayPrefix: boolean;
}

/**
 * The tools `principal` is offered: each agent of the offer it may start runs of, and each tool of
 * each gateway agent it may start runs of (the agent's own tools, its toolsets' and its workers',
 * as a run's first step would be offered them now), named `AGENT__TOOL` (or, without the prefix,
 * `TOOL`: a name taken already is left out).
 */
export async function offeredTools(wardrik: Wardrik, offer: Offer, principal: Principal): Promise<OfferedTool[]> {
  const byName = new Map(wardrik.agents().map((agent) => [agent.name, agent]));
  const tools: OfferedTool[] = [];
  for (const name of offer.agents) {
    const agent = byName.get(name);
    if (!agent || !can(principal, 'run.start', { agent: name }).allowed) continue;
    tools.push({ type: 'agent', agent, listed: agentTool(agent) });
  }
  for (const gateway of offer.gateways) {
    if (!can(principal, 'run.start', { agent: gateway.name }).allowed) continue;
    for (const tool of await gatewayTools(wardrik, gateway, principal, offer.gatewayPrefix)) {
      if (!tools.some((each) => each.listed.name === tool.listed.name)) tools.push(tool);
    }
  }
  return tools;
}

/** An agent as an MCP tool: `input` and an optional `session`; it may run as a task. */
function agentTool(agent: Agent): McpTool {
  return {
    name: agent.name,
    description: agent.description || `Ask agent ${agent.name}: a durable run of it answers.`,
    inputSchema: AGENT_INPUT as unknown as McpTool['inputSchema'],
    execution: { taskSupport: 'optional' },
  };
}

/** A gateway agent's tools as MCP tools, as its run's first step would be offered them now. */
async function gatewayTools(
  wardrik: Wardrik,
  gateway: Agent,
  principal: Principal,
  prefixed: boolean,
): Promise<OfferedTool[]> {
  const prefix = prefixed ? `${gatewayOf(gateway) ?? gateway.name}${GATEWAY_SEPARATOR}` : '';
  const resolver = new ToolResolver(gateway, wardrik.workers, TOOLSET_TIMEOUT_MS);
  const abort = new AbortController();
  const { offered } = await resolver.resolve({
    runId: 'mcp-listing',
    principal: principal.id,
    sessionId: undefined,
    step: 1,
    labels: [],
    state: { entry: () => undefined, keys: () => [] },
    signal: abort.signal,
  });
  const tools: OfferedTool[] = [];
  for (const definition of offered.definitions) {
    const tool = resolver.find(definition.name);
    if (!tool) continue;
    tools.push({
      type: 'gateway',
      agent: gateway,
      tool: definition.name,
      schema: tool.schema,
      listed: gatewayTool(`${prefix}${definition.name}`, gateway.name, definition.name, tool),
    });
  }
  return tools;
}

function gatewayTool(offeredAs: string, gatewayAgent: string, name: string, tool: Tool<Arguments>): McpTool {
  const listed = toMcpTool(tool);
  return {
    name: offeredAs,
    ...(listed.title === undefined ? {} : { title: listed.title }),
    description: listed.description ?? '',
    inputSchema: listed.inputSchema as McpTool['inputSchema'],
    ...(listed.annotations ? { annotations: { ...listed.annotations } } : {}),
    execution: { taskSupport: 'optional' },
    _meta: { ...listed._meta, [GATEWAY_META]: { agent: gatewayAgent, tool: name } },
  };
}
