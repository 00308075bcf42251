/**
 * How a run is stopped (cancelled, or its process shutting down), told to what waits on it.
 *
 * Most steps never need an `AbortSignal`: a model or tool that answers at once does not look at
 * one. Making one per run, and a listener on it per wait, costs more than a whole step of such a
 * run, so the signal is made only when first asked for (a model adapter, a tool, a worker wait),
 * and the run's own waits (`onAbort`) are plain callbacks.
 *
 * @example
 * ```ts
 * const abort = new RunAbort()
 * const stop = abort.onAbort(() => clearTimeout(timer))
 * await model.generate(request, { get signal() { return abort.signal } })
 * stop()
 * abort.abort(new Error('cancelled by a person'))   // first reason wins
 * ```
 */
export class RunAbort {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #callbacks: Set<() => void> | undefined;

  /** Whether the run was stopped. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why: the first reason given to `abort`. */
  get reason(): unknown {
    return this.#reason;
  }

  /** The run's signal, made on first use (aborted at once if the run was stopped already). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Stops the run: the signal aborts with `reason` and every callback waiting is called, once. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const callbacks = this.#callbacks;
    this.#callbacks = undefined;
    if (callbacks) for (const callback of callbacks) callback();
  }

  /**
   * Calls `callback` when the run is stopped; returns the function that stops waiting. Not called
   * if the run was stopped already: check `aborted` first.
   */
  onAbort(callback: () => void): () => void {
    if (this.#aborted) return noop;
    this.#callbacks ??= new Set();
    const callbacks = this.#callbacks;
    callbacks.add(callback);
    return () => {
      callbacks.delete(callback);
    };
  }
}

function noop(): void {}
