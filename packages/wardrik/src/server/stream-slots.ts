import type { Principal } from '../auth/types.js';
import { ApiProblem, RETRY_AFTER_SECONDS } from './problem.js';
import { SERVER_LIMIT_DEFAULTS } from './server-settings.js';

/**
 * Counts the open event streams of each principal (in this process) and refuses one over the
 * limit with a 429 problem naming the limit and the setting that raises it.
 *
 * @example
 * ```ts
 * const slots = new StreamSlots(2)
 * const release = slots.take(principal) // throws a 429 ApiProblem for the third
 * stream.onAbort(release)
 * ```
 */
export class StreamSlots {
  readonly #limit: number;
  readonly #open = new Map<string, number>();
  #total = 0;

  constructor(limit: number = SERVER_LIMIT_DEFAULTS.maxStreamsPerPrincipal) {
    this.#limit = limit;
  }

  /** How many streams are open, of every principal. */
  get total(): number {
    return this.#total;
  }

  /** How many streams `principalId` has open. */
  openFor(principalId: string): number {
    return this.#open.get(principalId) ?? 0;
  }

  /** Takes a slot for one more stream of `principal`, or throws a 429 problem. Returns the function that gives it back (once). */
  take(principal: Principal): () => void {
    const open = this.openFor(principal.id);
    if (open >= this.#limit) throw tooManyStreams(principal, this.#limit);
    this.#open.set(principal.id, open + 1);
    this.#total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = this.openFor(principal.id) - 1;
      if (left > 0) this.#open.set(principal.id, left);
      else this.#open.delete(principal.id);
    };
  }
}

function tooManyStreams(principal: Principal, limit: number): ApiProblem {
  return new ApiProblem(
    429,
    'too_many_streams',
    'Too many event streams',
    `${principal.name} has ${limit} event streams open, the most one principal may ` +
      `(setting maxStreamsPerPrincipal, server.maxStreamsPerPrincipal in the config); close one, or retry later`,
    undefined,
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  );
}
