import type { RunResult } from '../../runtime/wardrik.js';
import { EXIT } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  positionals,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { describeCost } from '../describe.js';
import { print, printJson } from '../output.js';

/** `wardrik cancel RUN [--reason R]`: ends a run that is running or parked. */
export const cancel: Command = {
  name: 'cancel',
  summary: 'cancel a run that is running or waiting for a person',
  usage: `Usage: wardrik cancel RUN [--reason R]

Cancels a run that is running or parked: a call in flight is told to stop, its open parks are
closed, and the run ends as cancelled (journaled with the reason). Users may cancel their own
runs; operators and admins any run of their agents.

Exit codes: 0 cancelled, 1 not cancelled (it had ended already, or ended another way first, or
the server refused), 4 server unreachable.

Options:
  --reason R     why (default: "cancelled by" your principal's name)
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions, reason: { type: 'string' } },
  async run(parsed) {
    const [runId] = positionals(cancel, parsed, ['RUN']) as [string];
    const reason = stringOption(parsed, 'reason');
    const client = new WardrikClient(resolveConnection(cancel, parsed));
    const result = await client.request<RunResult>(
      'POST',
      `/v1/runs/${encodeURIComponent(runId)}/cancel`,
      reason === undefined ? {} : { reason },
    );
    const cancelled = result.status === 'cancelled';
    if (flag(parsed, 'json')) printJson(result);
    else if (cancelled) {
      print(`Cancelled run ${runId}: ${result.error ?? 'no reason given'}`);
      print(`Cost: ${describeCost(result.measures)}`);
    } else {
      print(
        `Run ${runId} was not cancelled: it ended ${result.status} first${result.error ? ` (${result.error})` : ''}.`,
      );
    }
    return cancelled ? EXIT.ok : EXIT.failed;
  },
};
