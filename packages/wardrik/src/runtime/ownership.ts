import { StoreError } from '../errors.js';
import type { Lease, LeaseTerms, RunStore } from '../store/store.js';

/** What the runtime is told by its `Ownership`. */
export interface OwnershipHooks {
  /** These runs' leases were lost (expired, or taken over): stop driving them at once. */
  readonly lost: (runIds: readonly string[]) => void;
  /** Renewing failed: the store failed (crash-only). */
  readonly failed: (error: StoreError) => void;
}

/**
 * The leases this node holds, and their upkeep: one `renewLeases` statement per heartbeat (a third
 * of the lease) for all of them, and the runs whose lease was not renewed reported lost. A lease
 * claimed while a renewal was under way is not judged by that renewal.
 *
 * @example
 * ```ts
 * const ownership = new Ownership(store, { node: 'node-a', leaseMs: 5_000 }, { lost: stopDriving, failed })
 * const lease = await ownership.claim(runId)       // undefined: another node holds the run
 * ownership.start()                                // renew every leaseMs / 3
 * await ownership.release(lease)
 * ```
 */
export class Ownership {
  readonly terms: LeaseTerms;
  readonly #store: RunStore;
  readonly #hooks: OwnershipHooks;
  /** Leases held, by run, with when each was claimed (ms). */
  readonly #held = new Map<string, { readonly lease: Lease; readonly since: number }>();
  /** Releases under way, by run: a claim of the same run waits for its release to finish. */
  readonly #releasing = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #renewing = false;

  constructor(store: RunStore, terms: LeaseTerms, hooks: OwnershipHooks) {
    this.#store = store;
    this.terms = terms;
    this.#hooks = hooks;
  }

  /** Takes the run's lease for this node (or returns the one it holds); undefined if another node holds it. */
  async claim(runId: string): Promise<Lease | undefined> {
    await this.#releasing.get(runId);
    const lease = await this.#store.claimRun(runId, this.terms);
    if (lease) this.#hold(lease);
    return lease;
  }

  /** Takes up to `limit` runs that need driving and nobody holds. */
  async claimMany(limit: number): Promise<Lease[]> {
    if (limit <= 0) return [];
    const leases = await this.#store.claimRuns(this.terms, limit);
    for (const lease of leases) this.#hold(lease);
    return leases;
  }

  /** Gives the lease up, if this node still holds it. */
  async release(lease: Lease): Promise<void> {
    const held = this.#held.get(lease.runId);
    if (held?.lease.epoch !== lease.epoch) return;
    this.#held.delete(lease.runId);
    const releasing = this.#store.releaseLease(lease).finally(() => {
      if (this.#releasing.get(lease.runId) === releasing) this.#releasing.delete(lease.runId);
    });
    this.#releasing.set(lease.runId, releasing);
    await releasing;
  }

  /** Forgets a lease this node lost (a write for it was refused). */
  forget(runId: string): void {
    this.#held.delete(runId);
  }

  /** Renews every `leaseMs / 3` until `stop()`. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.terms.leaseMs / 3)));
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Renews every lease held; reports those not renewed (claimed before the renewal began) as lost. */
  async renew(): Promise<void> {
    if (this.#renewing || this.#held.size === 0) return;
    this.#renewing = true;
    const began = Date.now();
    try {
      const kept = await this.#store.renewLeases(this.terms);
      const lost: string[] = [];
      for (const [runId, held] of this.#held) {
        if (held.since < began && !kept.has(runId)) lost.push(runId);
      }
      for (const runId of lost) this.#held.delete(runId);
      if (lost.length > 0) this.#hooks.lost(lost);
    } catch (thrown) {
      if (StoreError.isInstance(thrown)) this.#hooks.failed(thrown);
    } finally {
      this.#renewing = false;
    }
  }

  /** Releases every lease still held (the node stops): other nodes may take the runs over at once. */
  async releaseAll(): Promise<void> {
    const leases = [...this.#held.values()].map((held) => held.lease);
    this.#held.clear();
    await Promise.allSettled(leases.map((lease) => this.#store.releaseLease(lease)));
  }

  #hold(lease: Lease): void {
    const held = this.#held.get(lease.runId);
    if (held?.lease.epoch === lease.epoch) return;
    this.#held.set(lease.runId, { lease, since: Date.now() });
  }
}
