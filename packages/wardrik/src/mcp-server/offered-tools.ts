import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type Arguments, type CompiledSchema, compileSchema, type Tool, toMcpTool } from '@wardrik/core';
import type { Agent } from '../agent.js';
import { can } from '../auth/permissions.js';
import type { Principal } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import { ToolResolver } from '../tool-sources/tool-resolver.js';
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

/**
 * The tool named `name` among those {@link offeredTools} offers `principal` now, or undefined —
 * without listing the rest: an agent of the offer first, then the first gateway offering a tool of
 * that name (with the prefix, only the gateway whose prefix the name has is asked). Its toolsets
 * and workers are asked now, as for a listing.
 */
export async function findOffered(
  wardrik: Wardrik,
  offer: Offer,
  principal: Principal,
  name: string,
): Promise<OfferedTool | undefined> {
  if (offer.agents.includes(name) && can(principal, 'run.start', { agent: name }).allowed) {
    const agent = wardrik.agents().find((each) => each.name === name);
    if (agent) return { type: 'agent', agent, listed: agentTool(agent) };
  }
  for (const gateway of offer.gateways) {
    const prefix = gatewayPrefix(gateway, offer.gatewayPrefix);
    if (!name.startsWith(prefix) || !can(principal, 'run.start', { agent: gateway.name }).allowed) continue;
    const found = await gatewayTools(wardrik, gateway, principal, offer.gatewayPrefix, name.slice(prefix.length));
    if (found[0]) return found[0];
  }
  return undefined;
}

/** Each agent's tool as listed (made once per agent). */
const agentTools = new WeakMap<Agent, McpTool>();

/** An agent as an MCP tool: `input` and an optional `session`; it may run as a task. */
function agentTool(agent: Agent): McpTool {
  let listed = agentTools.get(agent);
  if (!listed) {
    listed = {
      name: agent.name,
      description: agent.description || `Ask agent ${agent.name}: a durable run of it answers.`,
      inputSchema: AGENT_INPUT as unknown as McpTool['inputSchema'],
      execution: { taskSupport: 'optional' },
    };
    agentTools.set(agent, listed);
  }
  return listed;
}

function gatewayPrefix(gateway: Agent, prefixed: boolean): string {
  return prefixed ? `${gatewayOf(gateway) ?? gateway.name}${GATEWAY_SEPARATOR}` : '';
}

/**
 * One resolver per gateway agent and worker hub, kept: what it builds of the agent's own tools
 * (definitions, descriptions) and of what its toolsets returned is made once, not per request.
 * It asks the toolsets and the hub anew at every `resolve`, so what they offer now is what is
 * offered; tools are found in what that `resolve` returned, never in a later one's.
 */
const resolvers = new WeakMap<Agent, { readonly hub: Wardrik['workers']; readonly resolver: ToolResolver }>();

function resolverOf(wardrik: Wardrik, gateway: Agent): ToolResolver {
  const kept = resolvers.get(gateway);
  if (kept && kept.hub === wardrik.workers) return kept.resolver;
  const resolver = new ToolResolver(gateway, wardrik.workers, TOOLSET_TIMEOUT_MS);
  resolvers.set(gateway, { hub: wardrik.workers, resolver });
  return resolver;
}

/**
 * A gateway agent's tools as MCP tools, as its run's first step would be offered them now (only
 * the one the model knows as `only`, when given).
 */
async function gatewayTools(
  wardrik: Wardrik,
  gateway: Agent,
  principal: Principal,
  prefixed: boolean,
  only?: string,
): Promise<OfferedTool[]> {
  const prefix = gatewayPrefix(gateway, prefixed);
  const abort = new AbortController();
  const { offered } = await resolverOf(wardrik, gateway).resolve({
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
    if (only !== undefined && definition.name !== only) continue;
    // Found in what this resolve offered (as a run's step finds a call's tool).
    const tool =
      gateway.tools.get(definition.name) ??
      offered.fromToolsets.get(definition.name) ??
      (gateway.workers.length > 0
        ? wardrik.workers.toolFor(gateway.name, gateway.workers, definition.name)
        : undefined);
    if (!tool) continue;
    tools.push({
      type: 'gateway',
      agent: gateway,
      tool: definition.name,
      schema: tool.schema,
      listed: gatewayTool(`${prefix}${definition.name}`, gateway.name, definition.name, tool),
    });
    if (only !== undefined) break;
  }
  return tools;
}

/** Each tool as listed, by the name it is offered as and its gateway (made once per tool). */
const gatewayListings = new WeakMap<Tool<Arguments>, Map<string, McpTool>>();

function gatewayTool(offeredAs: string, gatewayAgent: string, name: string, tool: Tool<Arguments>): McpTool {
  let listings = gatewayListings.get(tool);
  if (!listings) {
    listings = new Map();
    gatewayListings.set(tool, listings);
  }
  const key = `${offeredAs}\n${gatewayAgent}\n${name}`;
  let listed = listings.get(key);
  if (!listed) {
    const mcp = toMcpTool(tool);
    listed = {
      name: offeredAs,
      ...(mcp.title === undefined ? {} : { title: mcp.title }),
      description: mcp.description ?? '',
      inputSchema: mcp.inputSchema as McpTool['inputSchema'],
      ...(mcp.annotations ? { annotations: { ...mcp.annotations } } : {}),
      execution: { taskSupport: 'optional' },
      _meta: { ...mcp._meta, [GATEWAY_META]: { agent: gatewayAgent, tool: name } },
    };
    listings.set(key, listed);
  }
  return listed;
}
