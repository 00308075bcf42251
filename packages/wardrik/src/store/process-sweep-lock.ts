/**
 * The retention sweep's lock for a store whose data lives in one process (in memory, or a SQLite
 * file one process holds): one holder at a time until its claim expires, judged by `now()`, as a
 * shared store keeps it in a row.
 *
 * @example
 * ```ts
 * const lock = new ProcessSweepLock()
 * lock.claim('node-a', 60_000) // true
 * lock.claim('node-b', 60_000) // false until node-a releases it or a minute passes
 * ```
 */
export class ProcessSweepLock {
  #holder: string | undefined;
  #expiresAt = 0;
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Takes the lock for `holder` (or extends it if `holder` has it); false while another holder's is live. */
  claim(holder: string, ttlMs: number): boolean {
    const now = this.#now();
    if (this.#holder !== undefined && this.#holder !== holder && this.#expiresAt > now) return false;
    this.#holder = holder;
    this.#expiresAt = now + ttlMs;
    return true;
  }

  /** Gives the lock up, if `holder` has it. */
  release(holder: string): void {
    if (this.#holder !== holder) return;
    this.#holder = undefined;
    this.#expiresAt = 0;
  }
}
