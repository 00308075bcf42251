import type { RetryPolicy } from '@wardrik/core/wire';
import { onAbort } from '../abort/on-abort.js';

// The delay arithmetic is shared with @wardrik/worker; the defaults and the wait are the runtime's.
export { backoffDelay, type RetryPolicy } from '@wardrik/core/wire';

export const defaultToolRetry: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 };
export const defaultModelRetry: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

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
