import type { Arguments, Tool } from '@wardrik/core';
import type { Agent } from '../agent.js';
import { AgentDefinitionError, AgentNotFoundError } from '../errors.js';
import { modelToolName } from '../model/tool-name.js';
import { agentOfTool } from './agent-tool.js';
import { TRANSFER_TOOL, transferTool } from './transfer.js';

const NO_TOOLS: ReadonlyMap<string, Tool<Arguments>> = new Map();

/**
 * The agents a runtime runs: those it was given, their sub-agents, and the agents their tools
 * call (`agentTool`), each by its unique name; which agent is whose sub-agent; and the tools the
 * runtime adds to an agent (`transfer_to_agent`, when it has somewhere to transfer to).
 */
export class AgentDirectory {
  readonly #agents = new Map<string, Agent>();
  readonly #parents = new Map<string, Agent>();
  readonly #added = new Map<string, ReadonlyMap<string, Tool<Arguments>>>();

  constructor(agents: readonly Agent[]) {
    for (const agent of agents) this.#register(agent, undefined);
    for (const agent of this.#agents.values()) {
      const targets = this.transferTargets(agent.name);
      if (targets.length === 0) continue;
      if (agent.tools.has(TRANSFER_TOOL)) {
        throw new AgentDefinitionError(
          `agent ${agent.name}: a tool is named ${TRANSFER_TOOL}, which Wardrik offers to agents with sub-agents or a parent`,
        );
      }
      this.#added.set(agent.name, new Map([[modelToolName(TRANSFER_TOOL), transferTool(agent, targets)]]));
    }
  }

  get(name: string): Agent | undefined {
    return this.#agents.get(name);
  }

  /** The agent named `name`, or an `AgentNotFoundError` naming the agents there are. */
  require(name: string): Agent {
    const agent = this.#agents.get(name);
    if (agent) return agent;
    const names = [...this.#agents.keys()].join(', ');
    throw new AgentNotFoundError(`no agent ${JSON.stringify(name)}; agents: ${names || 'none'}`);
  }

  /** Every agent, those given first. */
  all(): Agent[] {
    return [...this.#agents.values()];
  }

  /** The agent that has `name` among its sub-agents. */
  parentOf(name: string): Agent | undefined {
    return this.#parents.get(name);
  }

  /** Where an agent may hand a run: its sub-agents, and its parent unless it opted out. */
  transferTargets(name: string): Agent[] {
    const agent = this.#agents.get(name);
    if (!agent) return [];
    const targets = [...agent.subAgents];
    const parent = this.#parents.get(name);
    if (parent && !agent.disallowTransferToParent) targets.push(parent);
    return targets;
  }

  /** The tools the runtime adds to an agent's own, by the name the model sees. */
  addedTools(name: string): ReadonlyMap<string, Tool<Arguments>> {
    return this.#added.get(name) ?? NO_TOOLS;
  }

  #register(agent: Agent, parent: Agent | undefined): void {
    const known = this.#agents.get(agent.name);
    if (known && known !== agent) throw new AgentDefinitionError(`two agents are named ${JSON.stringify(agent.name)}`);
    if (parent) {
      const other = this.#parents.get(agent.name);
      if (other && other !== parent) {
        throw new AgentDefinitionError(
          `agent ${agent.name} is a sub-agent of both ${other.name} and ${parent.name}: an agent has one parent`,
        );
      }
      this.#parents.set(agent.name, parent);
    }
    if (known) return;
    this.#agents.set(agent.name, agent);
    for (const sub of agent.subAgents) this.#register(sub, agent);
    for (const local of agent.tools.values()) {
      const called = agentOfTool(local);
      if (called) this.#register(called, undefined);
    }
  }
}
