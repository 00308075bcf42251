import type { RunResult } from '../../runtime/wardrik.js';
import { EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { describeLabels } from '../describe.js';
import { print, printJson } from '../output.js';

/** `wardrik release RUN LABEL… --reason R`: a person's journaled release of labels from a run. */
export const release: Command = {
  name: 'release',
  summary: "release labels from a run (a person's journaled decision)",
  usage: `Usage: wardrik release RUN LABEL [LABEL…] --reason "why"

Releases labels (such as outside) from a run: the only way a run's labels weaken. The release is
journaled with who did it and why; later calls are judged without those labels (answers read
later can bring them back). Operators and admins only.

Options:
  --reason TEXT  why the labels may be released (required)
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions, reason: { type: 'string' } },
  async run(parsed) {
    const [runId, ...labels] = parsed.positionals;
    if (!runId || labels.length === 0)
      throw usageError('give the run and at least one label, e.g. release run_… outside', release.usage);
    const reason = stringOption(parsed, 'reason');
    if (!reason?.trim()) throw usageError('--reason is required: say why the labels may be released', release.usage);
    const client = new WardrikClient(resolveConnection(release, parsed));
    const result = await client.request<RunResult>('POST', `/v1/runs/${encodeURIComponent(runId)}/labels/release`, {
      labels,
      reason,
    });
    if (flag(parsed, 'json')) printJson(result);
    else print(`Released ${labels.join(', ')} from ${runId}; it now carries: ${describeLabels(result.labels)}`);
    return EXIT.ok;
  },
};
