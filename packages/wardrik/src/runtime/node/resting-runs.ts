/**
 * Parked runs kept in memory a while after they parked, newest last, so that answering many parks
 * of one run does not rebuild it from its journal each time. Bounded (the oldest is dropped); the
 * store stays the truth, so whoever takes a run from here first reads what its journal gained since.
 */
export class RestingRuns<Run extends { readonly runId: string }> {
  readonly #runs = new Map<string, Run>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Keeps `run` (as the newest), dropping the oldest beyond the capacity. */
  put(run: Run): void {
    this.#runs.delete(run.runId);
    this.#runs.set(run.runId, run);
    if (this.#runs.size > this.#capacity) {
      const oldest = this.#runs.keys().next().value;
      if (oldest !== undefined) this.#runs.delete(oldest);
    }
  }

  /** Removes and returns the run, if it rests here. */
  take(runId: string): Run | undefined {
    const run = this.#runs.get(runId);
    this.#runs.delete(runId);
    return run;
  }

  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  delete(runId: string): void {
    this.#runs.delete(runId);
  }

  clear(): void {
    this.#runs.clear();
  }
}
