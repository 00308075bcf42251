import type { Progress } from '@wardrik/core';
import type { StoredRecord } from '../journal/records.js';

/**
 * What a run did, as it happens. Every journal record is an event (`run-started`, `model-step`,
 * `call-started`, `call-answered`, `run-parked`, `park-answered`, `run-ended`), with its `seq`
 * so a follower can resume after the last one it saw. `text-delta` events carry streamed model
 * text, `call-progress` events a long call's progress and `model-retry` events a model call that
 * failed and will be made again; none is journaled (their `seq` is that
 * of the last record before them), so a follower that reconnects does not get them again.
 */
export type RunEvent = JournaledEvent | LiveEvent;

/** A journal record as an event. */
export type JournaledEvent = StoredRecord & { readonly type: StoredRecord['record']['type'] };

/** An event that is not journaled: streamed model text, or a call's progress. */
export type LiveEvent =
  | {
      readonly type: 'text-delta';
      readonly runId: string;
      readonly seq: number;
      readonly step: number;
      readonly delta: string;
    }
  | {
      /** A model call failed and will be made again after `delayMs`: `attempt` tries failed so far. */
      readonly type: 'model-retry';
      readonly runId: string;
      readonly seq: number;
      readonly step: number;
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: string;
    }
  | ({
      readonly type: 'call-progress';
      readonly runId: string;
      readonly seq: number;
      readonly callId: string;
      /** The tool's name as the model called it. */
      readonly name: string;
    } & Progress);

/** Whether an event is a journal record (it has a seq of its own, and a follower resumes after it). */
export function isJournaled(event: RunEvent): event is JournaledEvent {
  return event.type !== 'text-delta' && event.type !== 'call-progress' && event.type !== 'model-retry';
}

/** Receives run events. */
export type RunEventListener = (event: RunEvent) => void;

/** Fans run events out to listeners of one run or of all runs. A throwing listener is dropped. */
export class EventHub {
  #byRun = new Map<string, Set<RunEventListener>>();
  #all = new Set<RunEventListener>();

  /** Listens to one run (`runId`) or to every run (`'*'`); returns the function that stops listening. */
  subscribe(runId: string, listener: RunEventListener): () => void {
    if (runId === '*') {
      this.#all.add(listener);
      return () => this.#all.delete(listener);
    }
    let listeners = this.#byRun.get(runId);
    if (!listeners) {
      listeners = new Set();
      this.#byRun.set(runId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byRun.get(runId) === listeners) this.#byRun.delete(runId);
    };
  }

  emit(event: RunEvent): void {
    const listeners = this.#byRun.get(event.runId);
    if (listeners) for (const listener of listeners) this.#deliver(listener, event, listeners);
    for (const listener of this.#all) this.#deliver(listener, event, this.#all);
  }

  /** Whether anyone listens to `runId` (lets the run skip building events nobody reads). */
  hasListeners(runId: string): boolean {
    return this.#all.size > 0 || this.#byRun.has(runId);
  }

  #deliver(listener: RunEventListener, event: RunEvent, from: Set<RunEventListener>): void {
    try {
      listener(event);
    } catch {
      from.delete(listener);
    }
  }
}

/** Makes the event for a stored record. */
export function recordEvent(stored: StoredRecord): RunEvent {
  return { ...stored, type: stored.record.type };
}
