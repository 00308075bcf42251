import type { LeaseMethods } from './parts.js';
import type { ProcessLeases } from './process-leases.js';
import type { ClaimOptions, Lease, LeaseHolderState, LeaseTerms, RunSignal } from './run-store.js';

/** A run that may need a node, as `claimRuns` looks at it. */
interface Candidate {
  readonly id: string;
  readonly agent: string;
}

/** What a {@link ProcessLeaseStore} needs from its store. */
export interface ProcessLeaseStoreOptions {
  /** Throws if the store is closed or failed. */
  readonly check: () => void;
  /**
   * The runs that need driving (running, or parked with a request waiting), in the order to claim
   * them: at once from a store in memory, after a read from a store on disk.
   */
  readonly runsToDrive: () => Iterable<Candidate> | Promise<Iterable<Candidate>>;
  /** Whether a run whose lease was just released still needs a node (a request waits for it). */
  readonly needsDriving: (runId: string) => boolean | Promise<boolean>;
}

/**
 * The lease methods of a store whose data lives in one process (SQLite under its runtime lock, or
 * memory), over its {@link ProcessLeases}: the part both adapters share.
 */
export class ProcessLeaseStore implements LeaseMethods {
  readonly #leases: ProcessLeases;
  readonly #options: ProcessLeaseStoreOptions;

  constructor(leases: ProcessLeases, options: ProcessLeaseStoreOptions) {
    this.#leases = leases;
    this.#options = options;
  }

  async claimRun(runId: string, terms: LeaseTerms): Promise<Lease | undefined> {
    this.#options.check();
    return this.#leases.claim(runId, terms);
  }

  async claimRuns(terms: LeaseTerms, limit: number, options: ClaimOptions = {}): Promise<Lease[]> {
    this.#options.check();
    const { agents, predecessors } = options;
    const found = this.#options.runsToDrive();
    // A store in memory answers at once: no turn of the event loop between looking and claiming.
    const candidates = found instanceof Promise ? await found : found;
    const claimed: Lease[] = [];
    for (const { id, agent } of candidates) {
      if (claimed.length >= limit) break;
      if (agents && !agents.includes(agent)) continue;
      if (!this.#leases.isClaimable(id, terms, predecessors)) continue;
      const lease = this.#leases.claim(id, terms);
      if (lease) claimed.push(lease);
    }
    return claimed;
  }

  async renewLeases(terms: LeaseTerms): Promise<ReadonlySet<string>> {
    this.#options.check();
    return this.#leases.renew(terms);
  }

  async leaseHolderState(node: string, incarnation: string): Promise<LeaseHolderState> {
    this.#options.check();
    return this.#leases.holderState(node, incarnation);
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#options.check();
    if (!this.#leases.release(lease)) return;
    const needed = this.#options.needsDriving(lease.runId);
    if (needed instanceof Promise ? await needed : needed) {
      this.#leases.signal({ type: 'claimable', runId: lease.runId });
    }
  }

  onRunSignal(listener: (signal: RunSignal) => void): () => void {
    return this.#leases.onSignal(listener);
  }
}
