/**
 * How long runs may keep the event loop to themselves, in ms, before they let it turn.
 *
 * A step whose model and tools answer at once (a cached model, a tool that only computes) never
 * waits for I/O: a run of such steps is one long chain of promise callbacks, and many of them
 * together would keep the event loop from HTTP requests, worker pings and timers for as long as
 * they go on. So every run checks before each model step, and once the runs of this process have
 * had the loop for a slice, they all wait for it to turn once (a `setImmediate`) and go on.
 */
const SLICE_MS = 2;

let sliceStarted = performance.now();
/** The turn being waited for, shared by every run that reached its check meanwhile. */
let turn: Promise<void> | undefined;

/**
 * Undefined while the slice lasts (nothing to await, nothing allocated); once it is over, the
 * promise of the event loop's next turn.
 *
 * @example
 * ```ts
 * const turn = nextTurnIfSliceOver()
 * if (turn) await turn
 * ```
 */
export function nextTurnIfSliceOver(): Promise<void> | undefined {
  if (turn) return turn;
  if (performance.now() - sliceStarted < SLICE_MS) return undefined;
  turn = new Promise((resolve) =>
    setImmediate(() => {
      turn = undefined;
      sliceStarted = performance.now();
      resolve();
    }),
  );
  return turn;
}
