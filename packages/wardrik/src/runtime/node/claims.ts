import { RunNeedsAttentionError } from '../../errors.js';
import type { Lease, Store } from '../../store/store.js';
import type { RunDriver } from '../run/run-driver.js';
import type { HeldRuns } from './held-runs.js';
import type { NodeHealth } from './node-health.js';
import type { Ownership } from './ownership.js';
import type { RunLoader } from './run-loader.js';

/** How many interrupted runs recovery loads before it starts driving them. */
const RECOVERY_BATCH = 1_000;

/** What is recovered by a claim pass. */
export interface ClaimCounts {
  readonly resumed: number;
  readonly needAttention: number;
}

/** What taking runs over needs from the node. */
export interface ClaimsDeps {
  readonly store: Store;
  readonly ownership: Ownership;
  readonly held: HeldRuns;
  readonly loader: RunLoader;
  readonly health: NodeHealth;
  /** The agents this node defines: the runs it may take over. */
  readonly agentNames: readonly string[];
  /** The most runs this node drives at once. */
  readonly maxRuns: number;
  /** How often to look for runs to take over (ms). */
  readonly intervalMs: number;
  /** Loads the standing decisions again (another node may have added some). */
  readonly loadAllowances: () => Promise<void>;
  /** Tells those waiting here for a run driven elsewhere if it has settled (a signal may have been missed). */
  readonly settleFromStore: (runId: string) => void;
}

/**
 * Takes over the runs that need driving and nobody holds: at start (recovery), whenever the store
 * signals one, and every `intervalMs` — a batch at a time, up to `maxRuns` driven at once.
 */
export class Claims {
  readonly #deps: ClaimsDeps;
  #timer: NodeJS.Timeout | undefined;
  /** The claim pass under way, if any (passes never overlap). */
  #claiming: Promise<ClaimCounts> | undefined;
  #again = false;

  constructor(deps: ClaimsDeps) {
    this.#deps = deps;
  }

  /** The pass under way, if any (awaited by `close`). */
  get underWay(): Promise<ClaimCounts> | undefined {
    return this.#claiming;
  }

  /** A first pass now, then one every `intervalMs`. */
  async recover(): Promise<ClaimCounts> {
    const counts = await this.#pass();
    if (!this.#timer && !this.#deps.health.closed) {
      this.#timer = setInterval(() => this.soon(), this.#deps.intervalMs);
      this.#timer.unref();
    }
    return counts;
  }

  /** Stops looking for runs to take over. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Starts a claim pass, or asks the one under way to go round once more. */
  soon(): void {
    if (this.#deps.health.takesNoWork) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    // A failed pass is tried again at the next tick (a store that failed says so through onFailure).
    this.#pass().catch(() => {});
  }

  /**
   * Takes over the runs that need driving and nobody holds, a batch at a time, until none is left
   * or `maxRuns` are driven. A batch is loaded before it is driven: reads flush pending writes, so
   * loading while the runs already taken are writing would cost a commit per run. Each run's lock
   * is held from its load to its drive, so an answer or a cancel meanwhile waits, then finds it driven.
   */
  #pass(): Promise<ClaimCounts> {
    if (this.#claiming) return this.#claiming;
    const pass = (async () => {
      let resumed = 0;
      let needAttention = 0;
      do {
        this.#again = false;
        const counts = await this.#claimAll();
        resumed += counts.resumed;
        needAttention += counts.needAttention;
        await this.#deps.loadAllowances();
        // Waited for here but driven elsewhere: in case a signal of its end was missed.
        const held = this.#deps.held;
        for (const runId of held.waiters.runIds()) if (!held.drivers.has(runId)) this.#deps.settleFromStore(runId);
      } while (this.#again && !this.#deps.health.closed);
      return { resumed, needAttention };
    })();
    this.#claiming = pass;
    return pass.finally(() => {
      this.#claiming = undefined;
    });
  }

  /** Claims batches until one comes back short or there is no room left. */
  async #claimAll(): Promise<ClaimCounts> {
    let resumed = 0;
    let needAttention = 0;
    for (;;) {
      const room = Math.min(RECOVERY_BATCH, this.#deps.maxRuns - this.#deps.held.drivers.size);
      // Only runs of agents this node defines: a node takes what it can drive.
      const leases = await this.#deps.ownership.claimMany(room, this.#deps.agentNames);
      const counts = await this.#takeOver(leases);
      resumed += counts.resumed;
      needAttention += counts.needAttention;
      if (leases.length < room || room <= 0) return { resumed, needAttention };
    }
  }

  /** Loads the runs just claimed, acts on their requests, and drives those that can go on. */
  async #takeOver(leases: readonly Lease[]): Promise<ClaimCounts> {
    const held = this.#deps.held;
    const loaded: RunDriver[] = [];
    const releases: Array<() => void> = [];
    let needAttention = 0;
    let failure: unknown;
    let resumed = 0;
    try {
      for (const lease of leases) {
        releases.push(await held.locks.acquire(lease.runId));
        const taken = await this.#takeOne(lease, loaded);
        if (taken === 'needs-attention') needAttention += 1;
        else if (taken !== 'ok') failure ??= taken.failure;
      }
      for (const driver of loaded) {
        if (this.#deps.health.failure) break; // the store failed: nothing can be driven here any more
        if (held.drivers.has(driver.runId)) continue;
        held.drive(driver);
        resumed += 1;
      }
    } finally {
      for (const release of releases) release();
    }
    if (failure !== undefined) throw failure;
    return { resumed, needAttention };
  }

  /**
   * Loads one run just claimed (its lock held) into `loaded` if it can go on. Anything but a run that
   * needs attention (a store that failed, a lease lost meanwhile) is handed back as the pass's
   * failure, told once the runs loaded before it are driven all the same.
   */
  async #takeOne(lease: Lease, loaded: RunDriver[]): Promise<'ok' | 'needs-attention' | { failure: unknown }> {
    const held = this.#deps.held;
    const current = held.drivers.get(lease.runId);
    // Taken up here meanwhile (an answer this node journaled): driven under this very lease.
    if (current?.lease?.epoch === lease.epoch) return 'ok';
    if (current) {
      // Still stopping, a driver under a lease that was lost (the store had none live for the
      // run; a write of it may hang): the run goes on under the new lease once it has stopped.
      held.takeUpAfter(current);
      return 'ok';
    }
    try {
      const driver = await this.#deps.loader.bringUp(lease.runId, { lease });
      if (!driver.ended && driver.state.openParks === 0) loaded.push(driver);
      else held.afterLockedWrite(driver);
      return 'ok';
    } catch (thrown) {
      if (RunNeedsAttentionError.isInstance(thrown)) {
        // One run that can't be loaded must not keep the others from being recovered. Its lease
        // stays with this node, so that nodes don't take turns failing to load it.
        const row = await this.#deps.store.getRun(lease.runId);
        if (row && row.attention === undefined) await this.#deps.loader.markAttention(row, thrown.message, lease);
        return 'needs-attention';
      }
      // This run's lease was given back (see RunLoader.bringUp).
      this.#deps.health.failIfStore(thrown);
      return { failure: thrown };
    }
  }
}
