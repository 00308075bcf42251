/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** The delay before the first retry, doubled for each further one. */
  readonly baseDelayMs: number;
  /** The largest delay between two tries. */
  readonly maxDelayMs: number;
}

/**
 * The delay before retry number `retry` (1 for the first): exponential from `baseDelayMs`, capped
 * at `maxDelayMs`, with "equal jitter" (between half and all of it) so that many clients failing
 * at once do not all come back at the same moment. `random` stands in for `Math.random` in tests.
 *
 * @example
 * ```ts
 * backoffDelay({ attempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 }, 3) // between 1000 and 2000
 * ```
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return full / 2 + random() * (full / 2);
}
