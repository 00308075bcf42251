import type { StateEntry, StateSource } from '@wardrik/core';
import type { StateWrite } from '../../journal/records.js';
import { isRunOnlyKey, type RunState } from '../../journal/state.js';
import { type ScopedStateWrite, type StoredStateValue, stateScopeOf } from '../../store/session-store.js';

/**
 * The state a run reads: its session's, its principal's and its app's values as loaded from the
 * store (with the run's own writes applied as it makes them), and its run-only keys from its
 * journal (`RunState.runOnlyState`).
 */
export class StateValues implements StateSource {
  readonly #run: RunState;
  readonly #stored = new Map<string, StateEntry>();

  constructor(run: RunState, stored: readonly StoredStateValue[]) {
    this.#run = run;
    for (const value of stored) this.#stored.set(value.key, { value: value.value, labels: value.labels });
  }

  entry(key: string): StateEntry | undefined {
    return isRunOnlyKey(key, this.#run.sessionId) ? this.#run.runOnlyState.get(key) : this.#stored.get(key);
  }

  keys(): Iterable<string> {
    return [...this.#stored.keys(), ...this.#run.runOnlyState.keys()];
  }

  /** Applies writes the run journaled (its run-only keys are applied by the journal's fold). */
  apply(writes: readonly StateWrite[]): void {
    for (const write of writes) {
      if (isRunOnlyKey(write.key, this.#run.sessionId)) continue;
      if (write.deleted) this.#stored.delete(write.key);
      else this.#stored.set(write.key, { value: write.value, labels: write.labels });
    }
  }
}

/** The writes of `writes` that the store keeps (not run-only ones), with their scopes. */
export function storedWrites(writes: readonly StateWrite[], run: RunState): ScopedStateWrite[] {
  const scoped: ScopedStateWrite[] = [];
  for (const write of writes) {
    const scope = stateScopeOf(write.key, run);
    if (scope !== undefined) scoped.push({ ...write, scope });
  }
  return scoped;
}
