import { hasInvisible } from '@wardrik/core';
import type { ParkRow } from '../../store/store.js';
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
import { describeCall, describeDecision, describeLabels, shown } from '../describe.js';
import { commandHint } from '../hint.js';
import { invisibleWarning } from '../invisible-lines.js';
import { clip, print, printJson, stdoutStyle, table, when } from '../output.js';

const STATUSES: readonly ParkRow['status'][] = ['open', 'answered', 'closed'];

/** `wardrik parks [--status open|answered|closed]`: lists parks, oldest first. */
export const parks: Command = {
  name: 'parks',
  summary: 'list parks: runs waiting for a person (open ones by default)',
  usage: `Usage: wardrik parks [--status open|answered|closed] [--run RUN] [--limit N]

Lists parks you may read, oldest first: why each run waits and the call it holds.

Options:
  --status S     open (default), answered or closed
  --run RUN      only the parks of this run
  --limit N      at most N parks (1–1000)
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    status: { type: 'string' },
    run: { type: 'string' },
    limit: { type: 'string' },
  },
  async run(parsed) {
    positionals(parks, parsed, []);
    const status = stringOption(parsed, 'status') ?? 'open';
    if (!STATUSES.includes(status as ParkRow['status'])) {
      throw usageError(`--status expects one of ${STATUSES.join(', ')}, got ${JSON.stringify(status)}`, parks.usage);
    }
    const limit = numberOption(
      parks,
      parsed,
      'limit',
      'an integer from 1 to 1000',
      (value) => Number.isInteger(value) && value >= 1 && value <= 1000,
    );
    const query = new URLSearchParams({ status });
    const runId = stringOption(parsed, 'run');
    if (runId) query.set('runId', runId);
    if (limit !== undefined) query.set('limit', String(limit));
    const client = new WardrikClient(resolveConnection(parks, parsed));
    const { parks: rows } = await client.request<{ parks: ParkRow[] }>('GET', `/v1/parks?${query}`);
    if (flag(parsed, 'json')) {
      printJson(rows);
      return EXIT.ok;
    }
    if (rows.length === 0) {
      print(`No ${status} parks.`);
      return EXIT.ok;
    }
    const answered = status !== 'open';
    print(
      table(
        ['ID', 'RUN', 'KIND', 'SINCE', 'CALL', 'LABELS', answered ? 'ANSWER' : 'REASON'],
        rows.map((park) => [
          park.id,
          park.runId,
          park.kind,
          when(park.createdAt),
          park.call ? clip(describeCall(park.call.name, park.call.arguments), 50) : '-',
          park.labels.length ? describeLabels(park.labels).replaceAll(', ', ',') : '-',
          clip(
            answered
              ? park.decision
                ? `${shown(park.answeredBy ?? '?')}: ${describeDecision(park.decision)}`
                : 'closed unanswered'
              : shown(park.reason),
            60,
          ),
        ]),
      ),
    );
    const flagged = rows.filter((park) => hasInvisible(park));
    if (flagged.length > 0) print('');
    for (const park of flagged) print(invisibleWarning(stdoutStyle(), `${park.id} `));
    if (!answered) {
      print(
        `\nAnswer one with: ${commandHint('answer PARK approve|deny|edit|ran|retry|fail|raise-budget|stop', { url: client.url })}`,
      );
    }
    return EXIT.ok;
  },
};
