// Helpers every layer may use (toolsets/, workers/ and runtime/ alike): they import nothing of Wardrik's.

/** The callbacks waiting on each signal, behind the one listener each signal gets. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` when `signal` aborts; returns the function that stops waiting. However many
 * callbacks wait on one signal (a run's signal is shared by every call of a step, every retry and
 * every model call), the signal gets a single listener: adding one costs O(1), and a step with many
 * concurrent calls draws no `MaxListenersExceededWarning`. If the signal has aborted already the
 * callback is not called: check `signal.aborted` first.
 *
 * @example
 * ```ts
 * const stop = onAbort(runSignal, () => clearTimeout(timer))
 * try { await work() } finally { stop() }
 * ```
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = waiting.get(signal);
  if (!callbacks) {
    const created = new Set<() => void>();
    callbacks = created;
    waiting.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(signal);
        for (const each of [...created]) each();
      },
      { once: true },
    );
  }
  const set = callbacks;
  set.add(callback);
  return () => {
    set.delete(callback);
  };
}
