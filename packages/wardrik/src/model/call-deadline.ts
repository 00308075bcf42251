/** Which limit ended a model call: no part for `idleTimeoutMs`, or the whole call over `timeoutMs`. */
export type ModelTimeout = 'idle' | 'overall';

/** The time limits of one model call, in ms; `Infinity` for none. */
export interface ModelCallLimits {
  readonly idleTimeoutMs: number;
  readonly timeoutMs: number;
}

/**
 * The time limits of one model call, as one `AbortSignal` to hand the AI SDK: it aborts when the
 * run's signal does, when no part of the answer came for `idleTimeoutMs` (call {@link touch} on
 * each part), or when the call has lasted `timeoutMs`; {@link expired} then says which limit it
 * was. Call {@link dispose} on every path: it clears the timers and removes the one listener this
 * adds to the run's signal, so that a run making many calls leaks neither.
 *
 * @example
 * ```ts
 * const deadline = new CallDeadline(runSignal, { idleTimeoutMs: 60_000, timeoutMs: 600_000 })
 * try {
 *   for await (const part of stream(deadline.signal)) deadline.touch()
 * } finally {
 *   deadline.dispose()
 * }
 * ```
 */
export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #runSignal: AbortSignal;
  readonly #limits: ModelCallLimits;
  #lastPartAt = performance.now();
  #idleTimer: NodeJS.Timeout | undefined;
  #overallTimer: NodeJS.Timeout | undefined;
  #expired: ModelTimeout | undefined;

  constructor(runSignal: AbortSignal, limits: ModelCallLimits) {
    this.#runSignal = runSignal;
    this.#limits = limits;
    if (runSignal.aborted) {
      this.#controller.abort(runSignal.reason);
      return;
    }
    runSignal.addEventListener('abort', this.#onRunAbort, { once: true });
    if (Number.isFinite(limits.idleTimeoutMs)) this.#idleTimer = setTimeout(this.#checkIdle, limits.idleTimeoutMs);
    if (Number.isFinite(limits.timeoutMs)) {
      this.#overallTimer = setTimeout(() => this.#expire('overall'), limits.timeoutMs);
    }
  }

  /** Aborts with the run, or when a limit is reached. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The limit that aborted the call, if one did. */
  get expired(): ModelTimeout | undefined {
    return this.#expired;
  }

  /** A part of the answer came: the idle limit counts from now. */
  touch(): void {
    this.#lastPartAt = performance.now();
  }

  /** Clears the timers and stops listening to the run's signal. Safe to call more than once. */
  dispose(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#overallTimer);
    this.#idleTimer = undefined;
    this.#overallTimer = undefined;
    this.#runSignal.removeEventListener('abort', this.#onRunAbort);
  }

  readonly #onRunAbort = (): void => {
    this.dispose();
    this.#controller.abort(this.#runSignal.reason);
  };

  // One timer for the idle limit, not one per part: when it fires early (a part came meanwhile),
  // it is set again for the time that is left.
  readonly #checkIdle = (): void => {
    const left = this.#limits.idleTimeoutMs - (performance.now() - this.#lastPartAt);
    if (left > 0) this.#idleTimer = setTimeout(this.#checkIdle, left);
    else this.#expire('idle');
  };

  #expire(limit: ModelTimeout): void {
    if (this.#controller.signal.aborted) return;
    this.#expired = limit;
    this.dispose();
    // A TimeoutError, as the AI SDK and fetch expect of an abort, so they end the request quietly.
    this.#controller.abort(new DOMException(`the model call's ${limit} timeout was reached`, 'TimeoutError'));
  }
}
