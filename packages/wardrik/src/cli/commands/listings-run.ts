import { describeReason, revealInvisible, type Toolset } from '@wardrik/core';
import type { Agent } from '../../agent.js';
import { AgentDirectory } from '../../agents/agent-directory.js';
import { loadConfig } from '../../config/load-config.js';
import type { ListedDefinition, ToolListing } from '../../toolsets/listed-definition.js';
import type { McpToolset } from '../../toolsets/mcp-toolset.js';
import { matches, type WorkerInfo } from '../../workers/worker-hub.js';
import { CliError, EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { flag, type Parsed, positionals, stringOption } from '../command.js';
import { resolveConnection } from '../connection.js';
import { print, printJson } from '../output.js';
import { LISTINGS_HELP as listings } from './listings-help.js';

/** One source as `wardrik listings` shows it. */
export interface ListedSource extends ToolListing {
  readonly kind: 'mcp' | 'worker';
  /** The agents offered its tools. */
  readonly agents: readonly string[];
  /** The pins that trust its definitions as they are now, by tool name (none when trusted). */
  readonly pins: Readonly<Record<string, string>>;
}

/** What `wardrik listings --json` prints. */
export interface ListingsReport {
  readonly sources: readonly ListedSource[];
  /** Sources that could not be read (a server down, the Wardrik server not reachable), with why. */
  readonly problems: ReadonlyArray<{ readonly source: string; readonly error: string }>;
}

/** Runs `wardrik listings` (loaded when the command runs). */
export async function runListings(parsed: Parsed): Promise<number> {
  positionals(listings, parsed, []);
  const config = await loadConfig(stringOption(parsed, 'config'));
  try {
    const agents = selectedAgents(config.agents, stringOption(parsed, 'agent'));
    const problems: { source: string; error: string }[] = [];
    const sources = await mcpSources(agents, problems);
    let unreachable = false;
    const patterns = new Map(agents.filter((agent) => agent.workers.length > 0).map((agent) => [agent.name, agent]));
    if (patterns.size > 0) {
      try {
        const client = new WardrikClient(resolveConnection(listings, parsed));
        const { workers } = await client.request<{ workers: WorkerInfo[] }>('GET', '/v1/workers');
        sources.push(...workerSources(workers, [...patterns.values()]));
      } catch (thrown) {
        unreachable = thrown instanceof CliError && thrown.exitCode === EXIT.unreachable;
        problems.push({ source: 'workers', error: describeReason(thrown) });
      }
    }
    const report: ListingsReport = { sources, problems };
    if (flag(parsed, 'json')) printJson(report);
    else printReport(report);
    if (unreachable) return EXIT.unreachable;
    if (problems.length > 0) return EXIT.failed;
    const unpinned = sources.some((source) =>
      source.tools.some((tool) => tool.state === 'unpinned' || tool.state === 'changed'),
    );
    return flag(parsed, 'check') && unpinned ? EXIT.failed : EXIT.ok;
  } finally {
    await config.store.close();
  }
}

/** Every agent of the config (with sub-agents and the agents their tools call), or the one named. */
function selectedAgents(given: readonly Agent[], name: string | undefined): Agent[] {
  const all = new AgentDirectory(given).all();
  if (name === undefined) return all;
  const agent = all.find((each) => each.name === name);
  if (!agent) {
    throw usageError(
      `no agent named ${JSON.stringify(name)} in the config (it has ${all.map((each) => each.name).join(', ')})`,
      listings.usage,
    );
  }
  return [agent];
}

/** The MCP toolsets of `agents`, each listed once (connected to, then closed). */
async function mcpSources(agents: readonly Agent[], problems: { source: string; error: string }[]) {
  const users = new Map<McpToolset, string[]>();
  for (const agent of agents) {
    for (const toolset of agent.toolsets) {
      if (!isMcpToolset(toolset)) continue;
      users.set(toolset, [...(users.get(toolset) ?? []), agent.name]);
    }
  }
  const sources: ListedSource[] = [];
  for (const [toolset, names] of users) {
    if (toolset.trusted) {
      // Nothing to review: not connected to.
      const listing = { source: `mcp:${toolset.name}`, server: '(trusted: true)', trusted: true, tools: [] };
      sources.push({ ...listing, kind: 'mcp', agents: names, pins: {} });
      continue;
    }
    try {
      const listing = await toolset.listing();
      sources.push({ ...listing, kind: 'mcp', agents: names, pins: pinsOf(listing) });
    } catch (thrown) {
      problems.push({ source: `mcp:${toolset.name}`, error: describeReason(thrown) });
    } finally {
      await toolset.close().catch(() => {});
    }
  }
  return sources;
}

function isMcpToolset(toolset: Toolset): toolset is McpToolset {
  return typeof (toolset as Partial<McpToolset>).listing === 'function';
}

/** The workers' tools that `agents` may be offered, one source per worker. */
function workerSources(workers: readonly WorkerInfo[], agents: readonly Agent[]): ListedSource[] {
  const sources: ListedSource[] = [];
  for (const worker of workers) {
    const tools = (worker.definitions ?? []).filter((tool) =>
      agents.some((agent) => matches(agent.workers, tool.name)),
    );
    if (tools.length === 0) continue;
    const users = agents
      .filter((agent) => tools.some((tool) => matches(agent.workers, tool.name)))
      .map((agent) => agent.name);
    const listing: ToolListing = {
      source: `worker:${worker.principal}`,
      server: `worker ${worker.id} on node ${worker.node}`,
      trusted: tools.every((tool) => tool.state === 'trusted'),
      tools,
    };
    sources.push({ ...listing, kind: 'worker', agents: users, pins: pinsOf(listing) });
  }
  return sources;
}

function pinsOf(listing: ToolListing): Record<string, string> {
  if (listing.trusted) return {};
  return Object.fromEntries(listing.tools.map((tool) => [tool.name, tool.hash]));
}

function printReport(report: ListingsReport): void {
  if (report.sources.length === 0 && report.problems.length === 0) {
    print('No MCP toolsets or worker tools: nothing to review.');
    return;
  }
  for (const source of report.sources) {
    print(`${source.source} — ${source.kind === 'mcp' ? 'MCP server ' : ''}${revealInvisible(source.server)}`);
    print(`  agents: ${source.agents.join(', ')}`);
    if (source.trusted) {
      print('  trusted: what it says of its tools is not labelled (nothing to pin)');
      print();
      continue;
    }
    for (const tool of source.tools) printTool(tool);
    const setting =
      source.kind === 'mcp' ? `mcpToolset({ name: '${source.source.slice(4)}', …, pins })` : 'workers: { pins }';
    print(`  pins for ${setting}, once you have read the definitions above:`);
    print(`    pins: ${pinsLiteral(source.pins)}`);
    print();
  }
  for (const problem of report.problems)
    print(`${problem.source}: could not be read: ${revealInvisible(problem.error)}`);
}

function printTool(tool: ListedDefinition): void {
  const state = tool.state === 'changed' ? 'CHANGED since pinned' : tool.state;
  print(`  ${revealInvisible(tool.name)}  ${state}  ${tool.hash}`);
  const json = JSON.stringify(tool.definition, null, 2) ?? 'null';
  for (const line of json.split('\n')) print(`    ${revealInvisible(line)}`);
}

/** Pins as a JavaScript object literal to paste into a config: `{ lookup: 'sha256:…' }`. */
function pinsLiteral(pins: Readonly<Record<string, string>>): string {
  const entries = Object.entries(pins).map(
    ([name, hash]) => `${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `'${name}'`}: '${hash}'`,
  );
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}
