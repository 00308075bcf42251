import type { Label, Measures } from '@wardrik/core';
import type { RunStatus } from '../journal/run-status.js';
import type { ParkRow } from '../store/store.js';

/** Where a run stands when its caller hears of it: ended, or parked waiting for a person. */
export interface RunResult {
  readonly runId: string;
  readonly status: RunStatus;
  /** The final answer, when completed. It carries `labels`. */
  readonly output?: string;
  readonly error?: string;
  /** Every label the run has seen. */
  readonly labels: readonly Label[];
  readonly measures: Measures;
  /** The open parks, when parked. */
  readonly parks: readonly ParkRow[];
}
