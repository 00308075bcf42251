import { LeaseLostError } from '../errors.js';
import type { Lease, LeaseHolderState, LeaseTerms, RunSignal } from './run-store.js';

interface Held {
  readonly node: string;
  readonly incarnation: string;
  readonly epoch: number;
  expiresAt: number;
}

/**
 * The leases of a store whose data lives in one process (in memory, or a SQLite file one process
 * holds): kept in a map, with the same rules a shared store keeps in its rows — a lease is free,
 * held until it expires (by `now()`), or released; each take-over bumps the run's epoch; a write
 * naming a lease that is not the run's lease any more is refused. Several runtimes sharing one
 * memory store (nodes in one process) take runs from each other exactly as nodes on PostgreSQL do.
 *
 * @example
 * ```ts
 * const leases = new ProcessLeases()
 * const lease = leases.claim('run_1', { node: 'a', leaseMs: 5_000 })   // { runId, node: 'a', epoch: 1 }
 * leases.claim('run_1', { node: 'b', leaseMs: 5_000 })                 // undefined: 'a' holds it
 * leases.check(lease)                                                  // fine; after a take-over it throws
 * ```
 */
export class ProcessLeases {
  readonly #held = new Map<string, Held>();
  /** The last epoch given for each run (kept after a release: the next holder gets a higher one). */
  readonly #epochs = new Map<string, number>();
  readonly #now: () => number;
  readonly #signalListeners = new Set<(signal: RunSignal) => void>();

  readonly #expire: boolean;

  /**
   * @param options.now the clock leases are judged by.
   * @param options.expire whether leases expire (default true). A store that one process holds
   *   for itself (a SQLite file under its runtime lock) has nobody to hand a run to, so its leases
   *   only change hands when released: a busy event loop that renews late loses nothing.
   */
  constructor(options: { now?: () => number; expire?: boolean } = {}) {
    this.#now = options.now ?? Date.now;
    this.#expire = options.expire ?? true;
  }

  /**
   * Takes the run for `terms.node` if it is free or expired (next epoch), or returns the lease it
   * holds. A run with no row yet can be claimed: its node claims it before writing its first record.
   */
  claim(runId: string, terms: LeaseTerms): Lease | undefined {
    const held = this.#held.get(runId);
    const now = this.#now();
    if (held && this.#alive(held, now)) {
      if (held.node !== terms.node) return undefined;
      if (held.incarnation === terms.incarnation) {
        held.expiresAt = now + terms.leaseMs;
        return { runId, node: held.node, epoch: held.epoch };
      }
      // A predecessor of this node (same name, another life) holds it: taken over, next epoch.
    }
    const epoch = (this.#epochs.get(runId) ?? 0) + 1;
    this.#epochs.set(runId, epoch);
    this.#held.set(runId, { node: terms.node, incarnation: terms.incarnation, epoch, expiresAt: now + terms.leaseMs });
    return { runId, node: terms.node, epoch };
  }

  /**
   * Whether `claimRuns` may take the run for `terms`: nobody holds it now (never claimed,
   * released, or expired), or, with `predecessors`, a predecessor of the node holds it.
   */
  isClaimable(runId: string, terms: LeaseTerms, predecessors = false): boolean {
    const held = this.#held.get(runId);
    if (held === undefined || !this.#alive(held, this.#now())) return true;
    return predecessors && held.node === terms.node && held.incarnation !== terms.incarnation;
  }

  #alive(held: Held, now: number): boolean {
    return !this.#expire || held.expiresAt > now;
  }

  /** Extends every lease this incarnation of `terms.node` holds that has not expired; returns those runs. */
  renew(terms: LeaseTerms): Set<string> {
    const now = this.#now();
    const kept = new Set<string>();
    for (const [runId, held] of this.#held) {
      if (held.node !== terms.node || held.incarnation !== terms.incarnation || !this.#alive(held, now)) continue;
      held.expiresAt = now + terms.leaseMs;
      kept.add(runId);
    }
    return kept;
  }

  /**
   * `alive` while `incarnation` of `node` holds a live lease here; otherwise `stopped` when leases
   * do not expire (one process holds the store: any other incarnation is gone), else `unknown`.
   */
  holderState(node: string, incarnation: string): LeaseHolderState {
    const now = this.#now();
    for (const held of this.#held.values()) {
      if (held.node === node && held.incarnation === incarnation && this.#alive(held, now)) return 'alive';
    }
    return this.#expire ? 'unknown' : 'stopped';
  }

  /** Whether a node holds the run's lease now (retention leaves such a run alone). */
  isHeld(runId: string): boolean {
    const held = this.#held.get(runId);
    return held !== undefined && this.#alive(held, this.#now());
  }

  /** Forgets a run that was purged: its lease and its last epoch. */
  forget(runId: string): void {
    this.#held.delete(runId);
    this.#epochs.delete(runId);
  }

  /** Gives the lease up if it is still the run's lease. Returns whether it was. */
  release(lease: Lease): boolean {
    const held = this.#held.get(lease.runId);
    if (!held || held.node !== lease.node || held.epoch !== lease.epoch) return false;
    this.#held.delete(lease.runId);
    return true;
  }

  /**
   * Throws `LeaseLostError` unless `lease` is the run's lease (a lease that expired counts as
   * long as nobody took the run over: its holder renews it next).
   */
  check(lease: Lease): void {
    const held = this.#held.get(lease.runId);
    if (held && held.node === lease.node && held.epoch === lease.epoch) return;
    throw new LeaseLostError(
      `run ${lease.runId}: node ${lease.node} no longer holds it (its lease of epoch ${lease.epoch} was ` +
        `${held ? `taken over by ${held.node}, epoch ${held.epoch}` : 'released or expired'})`,
    );
  }

  /** Listens to run signals; returns the function that stops listening. */
  onSignal(listener: (signal: RunSignal) => void): () => void {
    this.#signalListeners.add(listener);
    return () => this.#signalListeners.delete(listener);
  }

  /** Whether anyone listens to run signals (so that a write can skip making one). */
  get listened(): boolean {
    return this.#signalListeners.size > 0;
  }

  /** Tells every listener, after the current task (a listener never runs inside a store call). */
  signal(signal: RunSignal): void {
    if (this.#signalListeners.size === 0) return;
    queueMicrotask(() => {
      for (const listener of [...this.#signalListeners]) {
        try {
          listener(signal);
        } catch {
          // One listener's failure must not keep the others from hearing.
        }
      }
    });
  }
}
