/**
 * A wake-up call that is never lost: `wake()` before anyone waits makes the next `next()` return
 * at once. Many wakes before a `next()` count as one.
 *
 * @example
 * ```ts
 * const changed = new Wakeup()
 * wardrik.subscribe(runId, () => changed.wake())
 * for (;;) { if (await look()) break; await changed.next(signal) }
 * ```
 */
export class Wakeup {
  #pending = false;
  #resolve: (() => void) | undefined;

  wake(): void {
    const resolve = this.#resolve;
    if (resolve) {
      this.#resolve = undefined;
      resolve();
    } else {
      this.#pending = true;
    }
  }

  /** Resolves at the next wake (at once if one came since the last call), or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<void> {
    if (this.#pending || signal?.aborted) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        if (this.#resolve === done) this.#resolve = undefined;
        resolve();
      };
      this.#resolve = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
