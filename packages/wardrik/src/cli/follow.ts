import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEndedRecord } from '../journal/records.js';
import { isJournaled, type RunEvent, recordEvent } from '../runtime/events.js';
import type { RunDetails } from '../runtime/wardrik.js';
import type { ParkRow } from '../store/store.js';
import { CliError, EXIT, usageError } from './cli-error.js';
import { ServerProblem, unreachable, type WardrikClient } from './client.js';
import { RunTracker } from './run-tracker.js';
import { readSse } from './sse.js';

/** How following a run stopped: it ended, or it waits for a person. */
export type FollowEnd =
  | { readonly type: 'ended'; readonly record: RunEndedRecord }
  | { readonly type: 'parked'; readonly parks: readonly ParkRow[] };

/** How to follow a run. */
export interface FollowOptions {
  readonly client: WardrikClient;
  readonly runId: string;
  /** Gets every event once, in order: those journaled already, then live ones. */
  readonly onEvent: (event: RunEvent) => void;
  /**
   * Start after the journal record with this seq: records up to it are read from the run
   * (`GET /v1/runs/:id`) and given to `onHistory`, not `onEvent`. Default 0 (from the start).
   * Past the end of the journal, a usage error naming its length.
   */
  readonly afterSeq?: number;
  /** Gets the records up to `afterSeq`, in order (e.g. to learn the names of calls). */
  readonly onHistory?: (event: RunEvent) => void;
  /** How long to keep reconnecting a dropped stream before giving up (exit 4). Default 30 s. */
  readonly reconnectForMs?: number;
}

/**
 * Follows a run's events (`GET /v1/runs/:id/events`, Server-Sent Events) until it ends or waits
 * for a person. A dropped connection is resumed with `Last-Event-ID`, so no event is lost or
 * seen twice.
 *
 * @example
 * ```ts
 * const end = await followRun({ client, runId, onEvent: (event) => printer.print(event) })
 * if (end.type === 'parked') console.log(end.parks.map((park) => park.id))
 * ```
 */
export async function followRun(options: FollowOptions): Promise<FollowEnd> {
  const { client, runId } = options;
  const tracker = new RunTracker();
  const reconnectForMs = options.reconnectForMs ?? 30_000;
  let lastSeq = 0;
  if (options.afterSeq !== undefined && options.afterSeq > 0) {
    const ended = await readHistory(options, tracker);
    if (ended) return ended;
    lastSeq = options.afterSeq;
    if (tracker.waiting) {
      const parks = await waitingParks(client, runId, tracker);
      if (parks) return { type: 'parked', parks };
    }
  }
  let droppedAt: number | undefined;
  let lastDrop: unknown;
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    try {
      const body = await client.openEvents(runId, lastSeq, controller.signal);
      for await (const message of readSse(body)) {
        droppedAt = undefined;
        attempt = 0;
        const event = parseEvent(message.data, runId);
        if (isJournaled(event)) {
          if (event.seq <= lastSeq) continue;
          lastSeq = event.seq;
        }
        tracker.apply(event);
        options.onEvent(event);
        if (event.type === 'run-ended' && event.record.type === 'run-ended') {
          return { type: 'ended', record: event.record };
        }
        if (tracker.waiting) {
          const parks = await waitingParks(client, runId, tracker);
          if (parks) return { type: 'parked', parks };
        }
      }
      lastDrop = new Error('the server closed the event stream');
    } catch (thrown) {
      // A refusal (unknown run, bad token) is final; a dropped or refused connection is retried.
      if (thrown instanceof CliError && thrown.exitCode !== EXIT.unreachable) throw thrown;
      lastDrop = thrown;
    } finally {
      controller.abort();
    }
    droppedAt ??= Date.now();
    if (Date.now() - droppedAt > reconnectForMs) {
      if (lastDrop instanceof CliError) throw lastDrop;
      throw unreachable(client.url, lastDrop);
    }
    await sleep(Math.min(2_000, 100 * 2 ** attempt));
  }
}

/**
 * Reads the run's journal up to `afterSeq` into the tracker and `onHistory`; the run's end if it
 * ended there.
 */
async function readHistory(options: FollowOptions, tracker: RunTracker): Promise<FollowEnd | undefined> {
  const { client, runId } = options;
  const afterSeq = options.afterSeq ?? 0;
  const run = await client.request<RunDetails>('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  const last = run.journal.at(-1)?.seq ?? 0;
  if (afterSeq > last) {
    throw usageError(
      `--after ${afterSeq} is past the end of run ${runId}'s journal (${run.journal.length} records${last === run.journal.length ? '' : `, the last is ${last}`})`,
    );
  }
  for (const stored of run.journal) {
    if (stored.seq > afterSeq) break;
    const event = recordEvent(stored);
    tracker.apply(event);
    options.onHistory?.(event);
    if (stored.record.type === 'run-ended') return { type: 'ended', record: stored.record };
  }
  return undefined;
}

function parseEvent(data: string, runId: string): RunEvent {
  try {
    return JSON.parse(data) as RunEvent;
  } catch {
    throw new CliError(
      EXIT.failed,
      `the event stream of run ${runId} sent something that is not JSON: ${data.slice(0, 100)}`,
    );
  }
}

/**
 * The run's open parks if the server agrees that the run waits on the parks seen in its events
 * (else undefined: those events were history, and more follow).
 */
async function waitingParks(
  client: WardrikClient,
  runId: string,
  tracker: RunTracker,
): Promise<readonly ParkRow[] | undefined> {
  let parks: ParkRow[];
  try {
    ({ parks } = await client.request<{ parks: ParkRow[] }>(
      'GET',
      `/v1/parks?runId=${encodeURIComponent(runId)}&status=open`,
    ));
  } catch (thrown) {
    // Not allowed to list parks: the events alone tell.
    if (thrown instanceof ServerProblem && thrown.status === 403) {
      return tracker.openParks.map((park) => ({ ...park, status: 'open' }));
    }
    throw thrown;
  }
  if (parks.length === 0 || !parks.every((park) => tracker.isOpen(park.id))) return undefined;
  return parks;
}
