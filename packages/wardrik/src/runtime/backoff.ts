import { onAbort } from './on-abort.js';

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** The delay before the first retry, doubled for each further one. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const defaultToolRetry: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 };
export const defaultModelRetry: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

/** The delay before retry number `retry` (1 for the first): exponential, with jitter in [half, full]. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return full / 2 + Math.random() * (full / 2);
}

/** Waits `ms`, or until `signal` aborts (then rejects with its reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      stopWaiting?.();
      resolve();
    }, ms);
    const stopWaiting = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(signal.reason);
        })
      : undefined;
  });
}
