import { EXIT } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals, SERVER_HELP, serverOptions } from '../command.js';
import { resolveConnection } from '../connection.js';
import { commandHint } from '../hint.js';
import { print, printJson } from '../output.js';
import { watchRun } from '../watch-run.js';

/** `wardrik run AGENT MESSAGE`: starts a run and shows it live until it ends or parks. */
export const run: Command = {
  name: 'run',
  summary: 'start a run and follow it live until it ends or waits for a person',
  usage: `Usage: wardrik run AGENT MESSAGE [--no-wait]

Starts a run of AGENT on MESSAGE and shows each step as it happens: the model's text, calls (→),
answers (←), parks (⏸, with the commands that answer them), model retries (↻). Then the final
answer, its cost and its labels. A dropped connection is resumed where it left off. On a
terminal with symbols and colour (NO_COLOR turns colour off); piped, plain (->, <-, ||, >>, ~).

Exit codes: 0 completed, 1 failed or cancelled, 3 parked (waiting for a person), 4 server unreachable.

Options:
  --no-wait      print the run's id and return at once (follow it with \`wardrik follow RUN\`)
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions, 'no-wait': { type: 'boolean' } },
  async run(parsed) {
    const [agent, input] = positionals(run, parsed, ['AGENT', 'MESSAGE']) as [string, string];
    const client = new WardrikClient(resolveConnection(run, parsed));
    const asJson = flag(parsed, 'json');
    const { runId } = await client.request<{ runId: string }>('POST', '/v1/runs', { agent, input });
    if (flag(parsed, 'no-wait')) {
      if (asJson) printJson({ runId, status: 'running' });
      else {
        print(`Started run ${runId}`);
        print(`Follow it with: ${commandHint(`follow ${runId}`, { url: client.url })}`);
      }
      return EXIT.ok;
    }
    return watchRun({ client, runId, asJson });
  },
};
