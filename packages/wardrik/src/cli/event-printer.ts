import { isJournaled, type JournaledEvent, type RunEvent } from '../runtime/events.js';
import { describeCall, describeCostShort, describeDecision, describeLabels, describePark, json } from './describe.js';

/**
 * Prints a run's events for people as they happen: model steps (streamed text as it comes),
 * calls (→), answers (←), parks (⏸, with the commands that answer them), answers to parks (▶)
 * and the end.
 */
export class EventPrinter {
  readonly #write: (text: string) => void;
  readonly #names = new Map<string, string>();
  /** The model step whose text is being streamed, if any. */
  #streaming: number | undefined;
  #streamed = new Set<number>();

  constructor(write: (text: string) => void = (text) => process.stdout.write(text)) {
    this.#write = write;
  }

  print(event: RunEvent): void {
    if (event.type === 'text-delta') {
      if (this.#streaming !== event.step) {
        this.#endStream();
        this.#write(`  model: `);
        this.#streaming = event.step;
        this.#streamed.add(event.step);
      }
      this.#write(event.delta);
      return;
    }
    this.#endStream();
    if (event.type === 'model-retry') {
      this.#write(`  ↻ retrying in ${describeDelay(event.delayMs)}: ${event.error}\n`);
      return;
    }
    if (!isJournaled(event)) {
      const total = event.total === undefined ? '' : `/${event.total}`;
      const message = event.message ? ` ${event.message}` : '';
      const name = this.#names.get(event.callId) ?? event.name;
      this.#write(`  … ${name}: ${event.progress}${total}${message}\n`);
      return;
    }
    for (const line of this.#lines(event)) this.#write(`${line}\n`);
  }

  #endStream(): void {
    if (this.#streaming === undefined) return;
    this.#write('\n');
    this.#streaming = undefined;
  }

  #lines(event: JournaledEvent): string[] {
    const record = event.record;
    switch (record.type) {
      case 'run-started':
        return [`Run ${event.runId} of ${record.agent}: ${json(record.input, 120)}`];
      case 'model-step': {
        for (const call of record.toolCalls) this.#names.set(call.callId, call.name);
        const cutOff = record.truncated ? ' — cut off at its output token limit' : '';
        const cost = `  (step ${record.step}: ${describeCostShort(record.measures)}${cutOff})`;
        if (this.#streamed.has(record.step) || record.text.trim() === '') return [cost];
        return [`  model: ${record.text}${cost}`];
      }
      case 'call-started':
        this.#names.set(record.callId, record.name);
        return [
          `  → ${describeCall(record.name, record.arguments)}${record.attempt > 1 ? `  (try ${record.attempt})` : ''}`,
        ];
      case 'call-answered': {
        const name = this.#names.get(record.callId) ?? record.callId;
        const answer = record.answer;
        const labels = answer.labels.length ? `  [labels: ${describeLabels(answer.labels)}]` : '';
        if (answer.type === 'ok') return [`  ← ${name}: ${json(answer.value)}${labels}`];
        if (answer.type === 'error') return [`  ← ${name} failed: ${answer.reason}${labels}`];
        return [`  ← ${name} parked: ${answer.reason}`];
      }
      case 'run-parked':
        return describePark(record.park);
      case 'park-answered':
        return [`  ▶ ${record.by} answered ${record.parkId}: ${describeDecision(record.decision)}`];
      case 'run-ended':
        return [
          record.status === 'completed'
            ? '  ✓ completed'
            : `  ✗ ${record.status}${record.error ? `: ${record.error}` : ''}`,
        ];
      default:
        return [];
    }
  }
}

/** A wait for people: `800 ms`, `2 s`, `1.5 s`. */
function describeDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
