import { backoffDelay as retryDelay } from '@wardrik/core/wire';

/** How a worker reconnects after its connection to Wardrik is lost or cannot be opened. */
export interface ReconnectOptions {
  /** The delay before the first retry, in milliseconds (default 500). */
  readonly initialDelayMs?: number;
  /** The largest delay between retries, in milliseconds (default 30 000). */
  readonly maxDelayMs?: number;
  /**
   * How many attempts in a row may fail before giving up (default: never give up). A connection
   * that drops within 5 seconds of opening counts as a failed attempt, so that a Wardrik that
   * accepts and drops at once is not hammered.
   */
  readonly maxAttempts?: number;
}

/** {@link ReconnectOptions} with every default filled in. */
export interface ReconnectPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
}

/**
 * Fills in the defaults of {@link ReconnectOptions} and checks them.
 *
 * @example
 * ```ts
 * reconnectPolicy({ maxAttempts: 5 }) // { initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 5 }
 * ```
 */
export function reconnectPolicy(options: ReconnectOptions = {}): ReconnectPolicy {
  const policy = {
    initialDelayMs: options.initialDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? Number.POSITIVE_INFINITY,
  };
  for (const [name, value] of Object.entries(policy)) {
    if (Number.isNaN(value) || value < 0) throw new RangeError(`reconnect.${name} must be a number ≥ 0, got ${value}`);
  }
  if (policy.maxAttempts < 1) throw new RangeError('reconnect.maxAttempts must be at least 1');
  return policy;
}

/**
 * The delay before retry number `attempt` (1 for the first retry): exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, with "equal jitter" (between half and all of it) so
 * that many workers dropped at once do not all come back at the same moment; in whole
 * milliseconds. The arithmetic is `@wardrik/core/wire`'s, which Wardrik's own retries use too.
 *
 * @example
 * ```ts
 * backoffDelay(reconnectPolicy(), 3) // between 1000 and 2000
 * ```
 */
export function backoffDelay(policy: ReconnectPolicy, attempt: number, random: () => number = Math.random): number {
  const retry = { attempts: policy.maxAttempts, baseDelayMs: policy.initialDelayMs, maxDelayMs: policy.maxDelayMs };
  return Math.round(retryDelay(retry, attempt, random));
}
