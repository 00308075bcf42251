import type { RunRow, RunStatus } from '../../store/store.js';
import { EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  numberOption,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { describeCostShort, shown } from '../describe.js';
import { commandHint } from '../hint.js';
import { clip, print, printJson, table, when } from '../output.js';

const STATUSES: readonly RunStatus[] = ['running', 'parked', 'completed', 'failed', 'cancelled'];

/** `wardrik runs [--status S]`: lists runs, newest first; `runs purge` and `runs export RUN`. */
export const runs: Command = {
  name: 'runs',
  summary: 'list runs, newest first; purge old ones; export one as JSON lines',
  usage: `Usage: wardrik runs [--status STATUS] [--agent AGENT] [--limit N]
       wardrik runs purge --before WHEN --status STATUS[,STATUS…] [--agent AGENT]
       wardrik runs export RUN [--output FILE]

Lists the runs you may read, newest first.

purge   deletes runs last written before WHEN (an ISO date such as 2026-01-01, a date-time, or
        an age such as 30d or 12h) whose status is one of STATUS: ended (completed, failed,
        cancelled) and/or parked (their open parks go with them). Never a running run, one a
        node holds now, or one a kept session holds. Admins only.
export  writes the run's journal as JSON lines to stdout (or FILE): a first line with the run's
        row and parks, then one record a line; enough to audit the run or rebuild it.

Options:
  --status S     ${STATUSES.join(', ')} (purge: ended, completed, failed, cancelled, parked)
  --agent A      only runs of this agent
  --limit N      at most N runs (1–1000)
  --before WHEN  (purge) runs last written before this
  --output FILE  (export) write to FILE (refused if it exists) instead of stdout
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    status: { type: 'string' },
    agent: { type: 'string' },
    limit: { type: 'string' },
    before: { type: 'string' },
    output: { type: 'string' },
  },
  async run(parsed) {
    const [action] = parsed.positionals;
    if (action === 'purge') return (await import('./runs-purge.js')).runsPurge(runs, parsed);
    if (action === 'export') return (await import('./runs-export.js')).runsExport(runs, parsed);
    if (action !== undefined) {
      throw usageError(`unexpected argument ${JSON.stringify(action)}; expected purge or export`, runs.usage);
    }
    for (const only of ['before', 'output']) {
      if (parsed.values[only] !== undefined) throw usageError(`--${only} goes with purge or export`, runs.usage);
    }
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
