/**
 * One lock per run, so that answers, cancels, releases and recovery of one run never interleave:
 * each waits for the operations before it, in order. Runs that nobody holds cost nothing.
 *
 * @example
 * ```ts
 * const locks = new RunLocks()
 * await locks.hold(runId, async () => { … })            // alone for this run
 * const release = await locks.acquire(runId)           // or held across several steps
 * try { … } finally { release() }
 * ```
 */
export class RunLocks {
  /** Per run: the end of the queue of operations holding or waiting for its lock. */
  readonly #queues = new Map<string, Promise<void>>();

  /** Runs `task` alone for this run. */
  async hold<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const release = await this.acquire(runId);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /** Takes the run's lock once the operations before have released it; returns the release. */
  async acquire(runId: string): Promise<() => void> {
    const before = this.#queues.get(runId);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mine = before ? before.then(() => released) : released;
    this.#queues.set(runId, mine);
    if (before) await before;
    return () => {
      release();
      if (this.#queues.get(runId) === mine) this.#queues.delete(runId);
    };
  }

  /** Resolves once every lock held or asked for now is released. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#queues.values()]);
  }
}
