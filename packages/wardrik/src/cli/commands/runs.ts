import type { RunRow, RunStatus } from '../../store/store.js';
import { EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  numberOption,
  positionals,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { describeCostShort, shown } from '../describe.js';
import { commandHint } from '../hint.js';
import { clip, print, printJson, table, when } from '../output.js';

const STATUSES: readonly RunStatus[] = ['running', 'parked', 'completed', 'failed', 'cancelled'];

/** `wardrik runs [--status S]`: lists runs, newest first. */
export const runs: Command = {
  name: 'runs',
  summary: 'list runs, newest first',
  usage: `Usage: wardrik runs [--status STATUS] [--agent AGENT] [--limit N]

Lists the runs you may read, newest first.

Options:
  --status S     ${STATUSES.join(', ')}
  --agent A      only runs of this agent
  --limit N      at most N runs (1–1000)
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    status: { type: 'string' },
    agent: { type: 'string' },
    limit: { type: 'string' },
  },
  async run(parsed) {
    positionals(runs, parsed, []);
    const status = stringOption(parsed, 'status');
    if (status !== undefined && !STATUSES.includes(status as RunStatus)) {
      throw usageError(`--status expects one of ${STATUSES.join(', ')}, got ${JSON.stringify(status)}`, runs.usage);
    }
    const limit = numberOption(
      runs,
      parsed,
      'limit',
      'an integer from 1 to 1000',
      (value) => Number.isInteger(value) && value >= 1 && value <= 1000,
    );
    const query = new URLSearchParams();
    if (status) query.set('status', status);
    const agent = stringOption(parsed, 'agent');
    if (agent) query.set('agent', agent);
    if (limit !== undefined) query.set('limit', String(limit));
    const client = new WardrikClient(resolveConnection(runs, parsed));
    const { runs: rows } = await client.request<{ runs: RunRow[] }>(
      'GET',
      `/v1/runs${query.toString() ? `?${query}` : ''}`,
    );
    if (flag(parsed, 'json')) {
      printJson(rows);
      return EXIT.ok;
    }
    if (rows.length === 0) {
      print(status ? `No ${status} runs.` : 'No runs yet.');
      return EXIT.ok;
    }
    print(
      table(
        ['ID', 'AGENT', 'STATUS', 'STARTED', 'COST', 'ANSWER OR ERROR'],
        rows.map((row) => [
          row.id,
          row.agent,
          row.attention === undefined ? row.status : `${row.status} (needs attention)`,
          when(row.createdAt),
          describeCostShort(row.measures),
          clip(row.output ?? row.error ?? '', 60),
        ]),
      ),
    );
    const attention = rows.filter((row) => row.attention !== undefined);
    if (attention.length > 0) {
      print('');
      print(
        `Needs attention (this server cannot load their journals; ${commandHint('cancel RUN', { url: client.url })} ends one):`,
      );
      for (const row of attention) print(`  ${row.id}: ${shown(row.attention ?? '')}`);
    }
    return EXIT.ok;
  },
};
