import type { Budget } from '../../journal/records.js';
import { EXIT } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals, SERVER_HELP, serverOptions } from '../command.js';
import { resolveConnection } from '../connection.js';
import { clip, print, printJson, table } from '../output.js';

/** An agent as `GET /v1/agents` lists it. */
export interface AgentInfo {
  readonly name: string;
  readonly description?: string;
  /** The names the model sees. */
  readonly tools: readonly string[];
  readonly budget?: Budget;
  readonly maxSteps?: number;
}

/** `wardrik agents`: the agents of the server that you may use. */
export const agents: Command = {
  name: 'agents',
  summary: 'list the agents you may use: tools, budget, steps',
  usage: `Usage: wardrik agents [options]

Lists the agents of the server that your token may use: the tools each offers its model (worker
tools as workers__NAME), its budget, the most model steps a run may take, and what it does.

Options:
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions },
  async run(parsed) {
    positionals(agents, parsed, []);
    const client = new WardrikClient(resolveConnection(agents, parsed));
    const { agents: rows } = await client.request<{ agents: AgentInfo[] }>('GET', '/v1/agents');
    if (flag(parsed, 'json')) {
      printJson(rows);
      return EXIT.ok;
    }
    if (rows.length === 0) {
      print('No agents you may use.');
      return EXIT.ok;
    }
    print(
      table(
        ['NAME', 'TOOLS', 'BUDGET', 'MAX STEPS', 'DESCRIPTION'],
        rows.map((agent) => [
          agent.name,
          agent.tools.length ? clip(agent.tools.join(', '), 60) : '-',
          describeBudget(agent.budget),
          agent.maxSteps === undefined ? '-' : String(agent.maxSteps),
          clip(agent.description ?? '', 60),
        ]),
      ),
    );
    return EXIT.ok;
  },
};

/** A budget for a table: `1 usd, 10000 tokens, 5 steps`, or `-`. */
function describeBudget(budget: Budget | undefined): string {
  if (!budget) return '-';
  const parts: string[] = [];
  if (budget.usd !== undefined) parts.push(`${budget.usd} usd`);
  if (budget.tokens !== undefined) parts.push(`${budget.tokens} tokens`);
  if (budget.steps !== undefined) parts.push(`${budget.steps} steps`);
  return parts.join(', ') || '-';
}
