import { isJournaled, type RunEvent } from '../runtime/events.js';
import type { ParkRow } from '../store/store.js';
import { ServerProblem, type WardrikClient } from './client.js';
import { describePark, shown } from './describe.js';
import type { EventPrinter } from './event-printer.js';
import { followRun } from './follow.js';
import type { LineReader } from './line-reader.js';
import { outcomeOf, type RunOutcome } from './outcome.js';
import { parkChoices, parseParkAnswer } from './park-prompt.js';
import { paint, type Style } from './style.js';

/** How a chat follows one of its runs. */
export interface ChatRunOptions {
  readonly client: WardrikClient;
  readonly runId: string;
  /** Prints the run's steps; nothing is printed without one (--json). */
  readonly printer?: EventPrinter;
  readonly style: Style;
  /** Where a person answers parks in place; none: the run is left waiting on them. */
  readonly reader?: LineReader;
  /** Start after this journal record (a run that was going when the chat began). Default: from its start. */
  readonly afterSeq?: number;
  /** Writes a line of the chat's own. */
  readonly write: (line: string) => void;
}

/** How a chat's run came out, and which parks were asked in place. */
export interface ChatRunEnd {
  /** `parked` when the run was left waiting. */
  readonly outcome: RunOutcome;
  /** The parks shown and asked in place (so shown already), by id. */
  readonly asked: ReadonlySet<string>;
}

/** The records the chat tells in its own words: the run's start (the person just typed it), its parks and end. */
const OWN_WORDS = new Set(['run-started', 'run-parked', 'run-ended']);

/**
 * Follows a run of the chat until it ends, printing its steps live. When it waits for a person
 * and a reader is given, each open park is shown and answered in place (bound to its call by its
 * callHash), and the run is followed on; a park answered elsewhere meanwhile (409) is said so
 * and the run followed on too. Resolves to the run's outcome (`parked` when it was left waiting:
 * no reader, or the input ended or was interrupted at a question) and the parks asked.
 */
export async function followChatRun(options: ChatRunOptions): Promise<ChatRunEnd> {
  const { client, runId, printer } = options;
  const asked = new Set<string>();
  let afterSeq = options.afterSeq;
  let lastSeq = afterSeq ?? 0;
  const seen = (event: RunEvent) => {
    if (isJournaled(event)) lastSeq = Math.max(lastSeq, event.seq);
  };
  for (;;) {
    const end = await followRun({
      client,
      runId,
      ...(afterSeq ? { afterSeq } : {}),
      onHistory: (event) => {
        seen(event);
        printer?.learn(event);
      },
      onEvent: (event) => {
        seen(event);
        if (isJournaled(event) && OWN_WORDS.has(event.record.type)) printer?.learn(event);
        else printer?.print(event);
      },
    });
    if (end.type === 'ended' || !options.reader) return { outcome: await outcomeOf(client, runId, end), asked };
    for (const park of end.parks) {
      asked.add(park.id);
      if (!(await answerInPlace(park, options.reader, options))) {
        return { outcome: await outcomeOf(client, runId, end), asked };
      }
    }
    afterSeq = lastSeq;
  }
}

/**
 * Shows a park and asks a person how to answer it until they give an answer the server takes (or
 * the park was answered elsewhere). False when no answer came: the input ended or was interrupted.
 */
async function answerInPlace(park: ParkRow, reader: LineReader, options: ChatRunOptions): Promise<boolean> {
  const { client, style, write } = options;
  for (const line of describePark(park, { style, withoutAnswers: true })) write(line);
  write(`    ${paint(style, 'dim', `answer: ${parkChoices(park.kind)}`)}`);
  for (;;) {
    const line = await reader.read('answer> ');
    if (line === undefined) return false;
    const typed = parseParkAnswer(line, park);
    if (typed.type === 'invalid') {
      write(`    ${shown(typed.message)}`);
      continue;
    }
    try {
      await client.request('POST', `/v1/parks/${encodeURIComponent(park.id)}/answer`, {
        decision: typed.decision,
        callHash: park.callHash,
      });
      return true;
    } catch (thrown) {
      if (!(thrown instanceof ServerProblem) || (thrown.status !== 409 && thrown.status !== 400)) throw thrown;
      const detail = shown(thrown.problem.detail ?? thrown.message);
      if (thrown.status === 400) {
        write(`    the server refused that answer: ${detail}`);
        continue;
      }
      write(`    ${paint(style, 'yellow', `park ${park.id} was answered elsewhere:`)} ${detail}`);
      return true;
    }
  }
}
