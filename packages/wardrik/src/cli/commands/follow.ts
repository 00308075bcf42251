import type { RunEvent } from '../../runtime/events.js';
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
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { print } from '../output.js';
import { watchRun } from '../watch-run.js';

/** `wardrik follow RUN [--after SEQ]`: re-attaches to a run and shows it as `run` does. */
export const follow: Command = {
  name: 'follow',
  summary: 'show a run live, as run does, until it ends or waits for a person',
  usage: `Usage: wardrik follow RUN [--after SEQ]

Re-attaches to a run (one started with --no-wait, or by another client) and shows it as
\`wardrik run\` does: what it did so far, then each step as it happens, until it ends or waits
for a person. A run that has ended is shown to its end.

Exit codes: 0 completed, 1 failed or cancelled, 3 parked (waiting for a person), 4 server unreachable.

Options:
  --after SEQ    show only what came after the journal record SEQ (the seq in show --json,
                 the id of an event); the calls it names are still named by their tools
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions, after: { type: 'string' } },
  async run(parsed) {
    const [runId] = positionals(follow, parsed, ['RUN']) as [string];
    const afterSeq = numberOption(
      follow,
      parsed,
      'after',
      'a journal seq (an integer, 0 or more)',
      (value) => Number.isInteger(value) && value >= 0,
    );
    const client = new WardrikClient(resolveConnection(follow, parsed));
    const asJson = flag(parsed, 'json');
    let agent: string | undefined;
    // With --after, a line says where the shown part starts (the run-started line is before it).
    const onHistory = (event: RunEvent) => {
      if (event.type === 'run-started' && event.record.type === 'run-started') agent = event.record.agent;
      if (!asJson && event.seq === afterSeq)
        print(`Run ${runId}${agent ? ` of ${agent}` : ''}, after record ${afterSeq}:`);
    };
    return watchRun({ client, runId, asJson, onHistory, ...(afterSeq === undefined ? {} : { afterSeq }) });
  },
};
