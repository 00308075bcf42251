import type { Lease, LeaseTerms, RunStore } from '../../store/store.js';

/** What the runtime is told by its `Ownership`. */
export interface OwnershipHooks {
  /** These runs' leases were lost (expired, taken over, or not renewed in time): stop driving them at once. */
  readonly lost: (runIds: readonly string[]) => void;
}

/**
 * The leases this node holds, and their upkeep: one `renewLeases` statement per heartbeat (a third
 * of the lease) for all of them, and the runs whose lease was not renewed reported lost. A lease
 * claimed while a renewal was under way is not judged by that renewal.
 *
 * @example
 * ```ts
 * const ownership = new Ownership(store, { node: 'node-a', incarnation: randomUUID(), leaseMs: 5_000 }, { lost: stopDriving })
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
  /** Whether a claim took the runs a predecessor of this node left held (done once, as it starts). */
  #tookPredecessors = false;
  /** When a renewal last succeeded (ms): past a lease without one, nothing held can be counted on. */
  #renewedAt = Date.now();

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

  /**
   * Takes up to `limit` runs of `agents` that need driving and nobody holds. The first time, also
   * the runs a predecessor of this node (the same name, before a restart) still holds: they are
   * taken over at once rather than after their leases expire.
   */
  async claimMany(limit: number, agents: readonly string[]): Promise<Lease[]> {
    if (limit <= 0 || agents.length === 0) return [];
    // A run whose lease this node is giving up is claimable once that is done: find it in this pass.
    await Promise.all(this.#releasing.values());
    const predecessors = !this.#tookPredecessors;
    const leases = await this.#store.claimRuns(this.terms, limit, { agents, predecessors });
    this.#tookPredecessors = true;
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

  /** Whether this node still holds `lease` (not given up, lost, or replaced by a newer one). */
  holds(lease: Lease): boolean {
    return this.#held.get(lease.runId)?.lease.epoch === lease.epoch;
  }

  /** Forgets a lease this node lost (a write under it was refused), unless a newer one replaced it. */
  forget(lease: Lease): void {
    if (this.holds(lease)) this.#held.delete(lease.runId);
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

  /**
   * Renews every lease held; reports those not renewed (claimed before the renewal began) as lost.
   * A renewal that fails or does not answer within a lease is no proof of anything: once a whole
   * lease has passed since the last one that succeeded, every run held is reported lost (the store
   * may be unreachable; the runs continue on whichever node claims them once it is back).
   */
  async renew(): Promise<void> {
    if (this.#renewing) return;
    if (this.#held.size === 0) {
      this.#renewedAt = Date.now();
      return;
    }
    this.#renewing = true;
    const began = Date.now();
    try {
      const kept = await withTimeout(this.#store.renewLeases(this.terms), this.terms.leaseMs);
      this.#renewedAt = began;
      this.#report([...this.#held].filter(([runId, held]) => held.since < began && !kept.has(runId)));
    } catch {
      if (Date.now() - this.#renewedAt >= this.terms.leaseMs) {
        this.#report([...this.#held].filter(([, held]) => held.since < began));
      }
    } finally {
      this.#renewing = false;
    }
  }

  #report(lost: ReadonlyArray<readonly [string, unknown]>): void {
    const runIds = lost.map(([runId]) => runId);
    for (const runId of runIds) this.#held.delete(runId);
    if (runIds.length > 0) this.#hooks.lost(runIds);
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

/** `promise`, or a rejection once `ms` have passed without it settling. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
