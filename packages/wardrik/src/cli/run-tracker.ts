import type { Park } from '../journal/records.js';
import { isJournaled, type RunEvent } from '../runtime/events.js';

/**
 * Follows a run's state from its events, enough to know when it waits for a person: some park is
 * open and no call of its current step is still running (the other calls of a step that parked
 * go on until they answer).
 */
export class RunTracker {
  /** Calls the model asked for that have neither an answer nor a park. */
  readonly #running = new Set<string>();
  /** Open parks by id. */
  readonly #open = new Map<string, Park>();

  apply(event: RunEvent): void {
    if (!isJournaled(event)) return;
    const record = event.record;
    switch (record.type) {
      case 'model-step':
        for (const call of record.toolCalls) this.#running.add(call.callId);
        break;
      case 'call-started':
        this.#running.add(record.callId);
        break;
      case 'call-answered':
        this.#running.delete(record.callId);
        break;
      case 'run-parked':
        this.#open.set(record.park.id, record.park);
        if (record.park.call) this.#running.delete(record.park.call.callId);
        break;
      case 'input-requested':
        // The call keeps running while it waits for the answer.
        this.#open.set(record.park.id, record.park);
        break;
      case 'input-withdrawn':
        this.#open.delete(record.parkId);
        break;
      case 'park-answered': {
        const park = this.#open.get(record.parkId);
        this.#open.delete(record.parkId);
        if (park?.call && record.decision.type === 'retry') this.#running.add(park.call.callId);
        break;
      }
      case 'run-ended':
        this.#open.clear();
        this.#running.clear();
        break;
      default:
        break;
    }
  }

  /** Whether the run, as far as its events tell, waits for a person and nothing else. */
  get waiting(): boolean {
    if (this.#open.size === 0) return false;
    if (this.#running.size === 0) return true;
    // A call's question waits for a person while its call (and the step's others) still run.
    for (const park of this.#open.values()) if (park.kind === 'input') return true;
    return false;
  }

  /** The open parks, oldest first. */
  get openParks(): Park[] {
    return [...this.#open.values()];
  }

  isOpen(parkId: string): boolean {
    return this.#open.has(parkId);
  }
}
