import { isJournaled, type JournaledEvent, type RunEvent } from '../runtime/events.js';
import { describeCostShort, describeLabels, describePark, json, shown } from './describe.js';
import type { HintTarget } from './hint.js';
import { recordInvisibleLines } from './invisible-lines.js';
import { callAnsweredLine, callStartedLine, parkAnsweredLine } from './record-lines.js';
import { mark, paint, type Style, SYMBOLS_ONLY } from './style.js';

/** How an {@link EventPrinter} prints. */
export interface EventPrinterOptions {
  /** Where the text goes. Default: stdout. */
  readonly write?: (text: string) => void;
  /** Symbols and colour. Default: symbols, no colour (the CLI passes the style of its stdout). */
  readonly style?: Style;
  /** What the commands it prints (to answer a park) must name: the server, the config. */
  readonly hints?: HintTarget;
}

/**
 * Prints a run's events for people as they happen: model steps (streamed text as it comes, then
 * the step's cost on the same line), calls (→), answers (←), parks (⏸, with the commands that
 * answer them), answers to parks (▶), model retries (↻), progress (…) and the end.
 */
export class EventPrinter {
  readonly #write: (text: string) => void;
  readonly #style: Style;
  readonly #hints: HintTarget;
  /** Tool names by call id: an answer without a call-started record (a refused call) is named too. */
  readonly #names = new Map<string, string>();
  /** The model step whose text is being streamed, if any. */
  #streaming: number | undefined;
  #streamed = new Set<number>();

  constructor(options: EventPrinterOptions | ((text: string) => void) = {}) {
    const settings = typeof options === 'function' ? { write: options } : options;
    this.#write = settings.write ?? ((text) => process.stdout.write(text));
    this.#style = settings.style ?? SYMBOLS_ONLY;
    this.#hints = settings.hints ?? {};
  }

  /**
   * Takes in what an event tells without printing it (the names of the calls of a model step or a
   * park), for events before the point where printing starts.
   */
  learn(event: RunEvent): void {
    if (!isJournaled(event)) return;
    const record = event.record;
    if (record.type === 'model-step') for (const call of record.toolCalls) this.#names.set(call.callId, call.name);
    else if (record.type === 'call-started') this.#names.set(record.callId, record.name);
    else if (record.type === 'run-parked' && record.park.call) {
      this.#names.set(record.park.call.callId, record.park.call.name);
    }
  }

  print(event: RunEvent): void {
    const style = this.#style;
    if (event.type === 'text-delta') {
      if (this.#streaming !== event.step) {
        this.#endStream();
        this.#write(`  model: `);
        this.#streaming = event.step;
        this.#streamed.add(event.step);
      }
      this.#write(shown(event.delta));
      return;
    }
    if (event.type === 'model-step' && event.record.type === 'model-step' && this.#streaming === event.record.step) {
      // The step's streamed text is on this line: its cost goes at its end.
      this.learn(event);
      this.#streaming = undefined;
      this.#write(`${this.#cost(event.record)}\n`);
      for (const line of recordInvisibleLines(event.record, style)) this.#write(`${line}\n`);
      return;
    }
    this.#endStream();
    if (event.type === 'model-retry') {
      const line = `${mark(style, 'retry')}retrying in ${describeDelay(event.delayMs)}: ${shown(event.error)}`;
      this.#write(`  ${paint(style, 'yellow', line)}\n`);
      return;
    }
    if (!isJournaled(event)) {
      const total = event.total === undefined ? '' : `/${event.total}`;
      const message = event.message ? ` ${shown(event.message)}` : '';
      const name = shown(this.#names.get(event.callId) ?? event.name);
      this.#write(
        `  ${paint(style, 'dim', `${mark(style, 'progress')}${name}: ${event.progress}${total}${message}`)}\n`,
      );
      return;
    }
    this.learn(event);
    const lines = this.#lines(event);
    if (lines.length > 0) lines.push(...recordInvisibleLines(event.record, style));
    for (const line of lines) this.#write(`${line}\n`);
  }

  #endStream(): void {
    if (this.#streaming === undefined) return;
    this.#write('\n');
    this.#streaming = undefined;
  }

  #cost(record: Extract<JournaledEvent['record'], { type: 'model-step' }>): string {
    const cutOff = record.truncated ? ' — cut off at its output token limit' : '';
    return paint(this.#style, 'dim', `  (step ${record.step}: ${describeCostShort(record.measures)}${cutOff})`);
  }

  #lines(event: JournaledEvent): string[] {
    const style = this.#style;
    const record = event.record;
    switch (record.type) {
      case 'run-started':
        return [`${paint(style, 'bold', `Run ${event.runId} of ${record.agent}:`)} ${json(record.input, 120)}`];
      case 'model-step': {
        const cost = this.#cost(record);
        if (this.#streamed.has(record.step) || record.text.trim() === '') return [cost];
        return [`  model: ${shown(record.text)}${cost}`];
      }
      case 'call-started':
        return [callStartedLine(record, style)];
      case 'call-answered':
        return [callAnsweredLine(this.#names.get(record.callId) ?? record.callId, record, style)];
      case 'run-parked':
      case 'input-requested':
        return describePark(record.park, { style, hints: this.#hints });
      case 'input-withdrawn':
        return [`    question ${record.parkId} withdrawn: ${shown(record.reason)}`];
      case 'park-answered':
        return [parkAnsweredLine(record, style)];
      case 'labels-released':
        return [`  ${shown(record.by)} released ${describeLabels(record.labels)}: ${shown(record.reason)}`];
      case 'agent-transferred':
        return [`  ${record.from} handed the run to ${record.to}${record.reason ? `: ${shown(record.reason)}` : ''}`];
      case 'child-run-started':
        return [paint(style, 'dim', `  ${record.callId}: child run ${record.childRunId} of ${record.agent}`)];
      case 'run-ended':
        return [
          record.status === 'completed'
            ? `  ${paint(style, 'green', `${mark(style, 'completed')}completed`)}`
            : `  ${paint(style, 'red', `${mark(style, 'failed')}${record.status}`)}${record.error ? `: ${shown(record.error)}` : ''}`,
        ];
      default:
        return [];
    }
  }
}

/** A wait for people: `800 ms`, `2 s`, `1.5 s`. */
export function describeDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
