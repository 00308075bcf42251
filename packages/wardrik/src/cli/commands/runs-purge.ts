import { EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { type Command, flag, type Parsed, positionals, stringOption } from '../command.js';
import { resolveConnection } from '../connection.js';
import { print, printJson } from '../output.js';

const PURGEABLE = ['completed', 'failed', 'cancelled', 'parked'] as const;
const DAY_MS = 86_400_000;

/** What the server says it purged. */
interface PurgeResult {
  readonly before: string;
  readonly statuses: readonly string[];
  readonly agent?: string;
  readonly purged: { readonly runs: number; readonly journalRecords: number };
}

/**
 * `wardrik runs purge --before WHEN --status S[,S…] [--agent A]`: deletes runs through the
 * server (admins only). `WHEN` is an ISO date or date-time, or an age such as `30d` or `12h`.
 */
export async function runsPurge(command: Command, parsed: Parsed): Promise<number> {
  positionals(command, parsed, ['purge']);
  const beforeText = stringOption(parsed, 'before');
  if (beforeText === undefined) {
    throw usageError('purge needs --before (an ISO date such as 2026-01-01, or an age such as 30d)', command.usage);
  }
  const statusText = stringOption(parsed, 'status');
  if (statusText === undefined) {
    throw usageError(`purge needs --status: ended, or one or more of ${PURGEABLE.join(', ')}`, command.usage);
  }
  const before = parseBefore(beforeText, Date.now(), command.usage);
  const statuses = parseStatuses(statusText, command.usage);
  const agent = stringOption(parsed, 'agent');
  const client = new WardrikClient(resolveConnection(command, parsed));
  const result = await client.request<PurgeResult>('POST', '/v1/runs/purge', {
    before,
    statuses,
    ...(agent ? { agent } : {}),
  });
  if (flag(parsed, 'json')) {
    printJson(result);
    return EXIT.ok;
  }
  const { runs, journalRecords } = result.purged;
  print(
    `Purged ${runs} ${agent ? `${agent} ` : ''}run${runs === 1 ? '' : 's'} (${statuses.join(', ')}) last written before ${result.before}, with ${journalRecords} journal record${journalRecords === 1 ? '' : 's'}.`,
  );
  return EXIT.ok;
}

/**
 * A time as ms since the epoch: an ISO date or date-time, or an age before `now` (`30d`, `12h`,
 * `90m`). Anything else is a usage error naming what is expected.
 *
 * @example
 * ```ts
 * parseBefore('30d', Date.UTC(2026, 1, 1), usage) // Date.UTC(2026, 0, 2)
 * ```
 */
export function parseBefore(text: string, now: number, usage: string): number {
  const age = /^(\d+(?:\.\d+)?)([dhm])$/.exec(text.trim());
  if (age) {
    const unit = age[2] === 'd' ? DAY_MS : age[2] === 'h' ? 3_600_000 : 60_000;
    return Math.round(now - Number(age[1]) * unit);
  }
  const time = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())
    ? Date.parse(text)
    : Number.NaN;
  if (Number.isNaN(time)) {
    throw usageError(
      `--before expects an ISO date (2026-01-01), a date-time (2026-01-01T12:00:00Z) or an age (30d, 12h, 90m), got ${JSON.stringify(text)}`,
      usage,
    );
  }
  return time;
}

/** `ended` (completed, failed, cancelled) or a comma-separated list of purgeable statuses. */
function parseStatuses(text: string, usage: string): string[] {
  const statuses = new Set<string>();
  for (const part of text.split(',').map((each) => each.trim())) {
    if (part === 'ended') for (const status of ['completed', 'failed', 'cancelled']) statuses.add(status);
    else if ((PURGEABLE as readonly string[]).includes(part)) statuses.add(part);
    else {
      const why = part === 'running' ? ' (a running run is never purged)' : '';
      throw usageError(
        `--status expects ended or ${PURGEABLE.join(', ')} (comma-separated), got ${JSON.stringify(part)}${why}`,
        usage,
      );
    }
  }
  return [...statuses];
}
