import type { RunEvent } from '../runtime/events.js';
import type { WardrikClient } from './client.js';
import { EventPrinter } from './event-printer.js';
import { followRun } from './follow.js';
import { outcomeOf, reportOutcome } from './outcome.js';
import { stdoutStyle } from './output.js';

/** The printer `run`, `follow` and `answer` use: stdout's style, hints that name the server. */
export function printerFor(client: WardrikClient): EventPrinter {
  return new EventPrinter({ style: stdoutStyle(), hints: { url: client.url } });
}

/** How to watch a run. */
export interface WatchOptions {
  readonly client: WardrikClient;
  readonly runId: string;
  /** Print the outcome as JSON, and no events. */
  readonly asJson: boolean;
  /** Show only what comes after the journal record with this seq (see `followRun`). */
  readonly afterSeq?: number;
  /** Gets the records up to `afterSeq` (after the printer learnt from them). */
  readonly onHistory?: (event: RunEvent) => void;
}

/**
 * Follows a run until it ends or waits for a person, printing each event as it comes (nothing
 * with `asJson`), then its outcome; resolves to the exit code: 0 completed, 1 failed or cancelled,
 * 3 parked. What `wardrik run` and `wardrik follow` do.
 */
export async function watchRun(options: WatchOptions): Promise<number> {
  const { client, runId, asJson } = options;
  const printer = printerFor(client);
  const end = await followRun({
    client,
    runId,
    ...(options.afterSeq === undefined ? {} : { afterSeq: options.afterSeq }),
    onHistory: (event) => {
      printer.learn(event);
      options.onHistory?.(event);
    },
    onEvent: (event) => {
      if (!asJson) printer.print(event);
    },
  });
  return reportOutcome(await outcomeOf(client, runId, end), asJson);
}
