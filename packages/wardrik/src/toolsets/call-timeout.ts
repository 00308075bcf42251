/** The longest delay `setTimeout` takes (a longer one fires at once). */
export const LONGEST_TIMEOUT_MS = 2_147_483_647;

/**
 * A call's timeout that stops counting while the call waits on Wardrik's side (a person asked
 * through elicitation, the model through sampling): the time a call may take is the server's,
 * not the person's. Pauses nest; counting goes on with the time that was left once the last
 * one ends.
 *
 * @example
 * ```ts
 * const timeout = new CallTimeout(60_000, () => controller.abort(new Error('timed out')))
 * const resume = timeout.pause() // a person is asked
 * resume()
 * timeout.clear() // the call answered
 * ```
 */
export class CallTimeout {
  readonly #onTimeout: () => void;
  #left: number;
  #startedAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pauses = 0;
  #cleared = false;

  constructor(timeoutMs: number, onTimeout: () => void) {
    this.#onTimeout = onTimeout;
    this.#left = timeoutMs;
    this.#start();
  }

  /** Stops counting until the function returned is called. */
  pause(): () => void {
    if (this.#cleared) return () => {};
    if (this.#pauses++ === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#left = Math.max(0, this.#left - (Date.now() - this.#startedAt));
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.#pauses === 0 && !this.#cleared) this.#start();
    };
  }

  /** The call is over: the timeout never fires. */
  clear(): void {
    this.#cleared = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #start(): void {
    this.#startedAt = Date.now();
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#cleared = true;
        this.#onTimeout();
      },
      Math.min(this.#left, LONGEST_TIMEOUT_MS),
    );
  }
}
