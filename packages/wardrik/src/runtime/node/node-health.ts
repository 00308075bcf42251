import { InvalidInputError, StoreError } from '../../errors.js';
import { NodeStoppingError } from '../drain.js';

/**
 * Whether this node takes work: open, closed, draining, or failed (its store failed). Crash-only:
 * once the store failed, nothing in memory can be trusted; every part of the node stops (they
 * said how with `onFail`), waiters hear the error, and the process should restart.
 */
export class NodeHealth {
  #failure: StoreError | undefined;
  #closed = false;
  #draining = false;
  /** The node's own parts, stopped first when the store fails. */
  readonly #stops: Array<(error: StoreError) => void> = [];
  /** Those told through `Wardrik.onFailure`. */
  readonly #listeners = new Set<(error: StoreError) => void>();

  get failure(): StoreError | undefined {
    return this.#failure;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Closed, failed or draining: the node takes up no new work (no claims, no take-overs). */
  get takesNoWork(): boolean {
    return this.#closed || this.#failure !== undefined || this.#draining;
  }

  close(): void {
    this.#closed = true;
  }

  drain(): void {
    this.#draining = true;
  }

  /** A part of the node that stops when the store fails (registered once, at construction). */
  onFail(stop: (error: StoreError) => void): void {
    this.#stops.push(stop);
  }

  /** Calls `listener` once if the store fails (at once if it has). Returns the function that stops listening. */
  listen(listener: (error: StoreError) => void): () => void {
    if (this.#failure) {
      const failure = this.#failure;
      queueMicrotask(() => listener(failure));
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The store failed: what was acknowledged may not be on disk, so nothing in memory can be
   * trusted. Stop every part, take no more work, tell the listeners (crash-only: the process
   * restarts and recovery resumes the runs from the store).
   */
  fail(error: StoreError): void {
    if (this.#failure) return;
    this.#failure = error;
    for (const stop of this.#stops) stop(error);
    for (const listener of [...this.#listeners]) {
      try {
        listener(error);
      } catch {
        // A listener's failure must not keep the others from hearing.
      }
    }
  }

  /** `fail` if `thrown` is a store failure (then rethrow it as it is). */
  failIfStore(thrown: unknown): void {
    if (StoreError.isInstance(thrown)) this.fail(thrown);
  }

  /** Awaits a write; a store failure fails the node (crash-only) before it is rethrown. */
  async guard<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (thrown) {
      this.failIfStore(thrown);
      throw thrown;
    }
  }

  /** Throws if the node takes no more work: closed, or its store failed. */
  checkOpen(): void {
    if (this.#closed) throw new InvalidInputError('this Wardrik is closed');
    this.checkUsable();
  }

  /** `checkOpen`, and refuses new runs and answers once the node drains. */
  checkTakingWork(): void {
    this.checkOpen();
    if (this.#draining) {
      throw new NodeStoppingError(
        'this node is stopping: it takes no new runs or answers; send them to another node, or again once it has restarted',
      );
    }
  }

  /** Throws the store's failure, if it failed. */
  checkUsable(): void {
    if (this.#failure) {
      throw new StoreError(
        `the store failed, so this Wardrik takes no more work; restart it to recover the runs: ${this.#failure.message}`,
        { cause: this.#failure },
      );
    }
  }
}
