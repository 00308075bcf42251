import type { RunDetails } from '../../runtime/wardrik.js';
import { EXIT } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals, SERVER_HELP, serverOptions } from '../command.js';
import { resolveConnection } from '../connection.js';
import { print, printJson, stdoutStyle } from '../output.js';
import { timeline } from '../timeline.js';

/** `wardrik show RUN`: one run as a timeline, from its journal. */
export const show: Command = {
  name: 'show',
  summary: 'show one run as a timeline: steps, calls, parks and answers, totals',
  usage: `Usage: wardrik show RUN

Shows a run as a timeline, from its journal: each model step (its text, tokens and cost), each
call (tool, arguments, the policy rule that decided it, its answer or error, labels, cost),
parks with who answered what and why (open ones with the commands that answer them), labels
released, how it ended, and the totals. With --json, the run with its journal
(what GET /v1/runs/RUN answers).

Options:
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions },
  async run(parsed) {
    const [runId] = positionals(show, parsed, ['RUN']) as [string];
    const client = new WardrikClient(resolveConnection(show, parsed));
    const details = await client.request<RunDetails>('GET', `/v1/runs/${encodeURIComponent(runId)}`);
    if (flag(parsed, 'json')) {
      printJson(details);
      return EXIT.ok;
    }
    for (const line of timeline(details, { style: stdoutStyle(), hints: { url: client.url } })) print(line);
    return EXIT.ok;
  },
};
