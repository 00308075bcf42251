/** Those waiting for runs to end or park, by run. */
export class RunWaiters<Result> {
  readonly #waiting = new Map<string, Array<{ resolve: (result: Result) => void; reject: (error: unknown) => void }>>();

  /** Resolves with the run's result once `settle` is called for it; rejects if `rejectAll` is. */
  wait(runId: string): Promise<Result> {
    return new Promise((resolve, reject) => {
      const list = this.#waiting.get(runId);
      if (list) list.push({ resolve, reject });
      else this.#waiting.set(runId, [{ resolve, reject }]);
    });
  }

  /** The runs someone waits for. */
  runIds(): string[] {
    return [...this.#waiting.keys()];
  }

  /** Whether anyone waits for this run (so that its result need not be built otherwise). */
  has(runId: string): boolean {
    return this.#waiting.has(runId);
  }

  /** Gives everyone waiting for the run its result. */
  settle(runId: string, result: Result): void {
    const list = this.#waiting.get(runId);
    if (!list) return;
    this.#waiting.delete(runId);
    for (const waiter of list) waiter.resolve(result);
  }

  /** Rejects everyone waiting for the run. */
  reject(runId: string, error: unknown): void {
    const list = this.#waiting.get(runId);
    if (!list) return;
    this.#waiting.delete(runId);
    for (const waiter of list) waiter.reject(error);
  }

  /** Rejects everyone waiting for any run with `error(runId)`. */
  rejectAll(error: (runId: string) => unknown): void {
    for (const [runId, list] of this.#waiting) {
      this.#waiting.delete(runId);
      const reason = error(runId);
      for (const waiter of list) waiter.reject(reason);
    }
  }
}
