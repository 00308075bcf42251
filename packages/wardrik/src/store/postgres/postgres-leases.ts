import { InvalidInputError, StoreError } from '../../errors.js';
import type { LeaseMethods } from '../parts.js';
import type { ClaimOptions, Lease, LeaseHolderState, LeaseTerms, RunSignal } from '../store.js';
import * as leases from './lease-queries.js';
import type { PostgresExecutor } from './postgres-executor.js';
import { isRunSignal } from './signals.js';

function checkTerms(terms: LeaseTerms): void {
  if (typeof terms.node !== 'string' || terms.node === '') throw new StoreError('a lease needs a node name');
  if (typeof terms.incarnation !== 'string' || terms.incarnation === '') {
    throw new StoreError('a lease needs the incarnation of its node');
  }
  if (!Number.isFinite(terms.leaseMs) || terms.leaseMs <= 0) {
    throw new StoreError(`leaseMs must be a positive number of ms, got ${String(terms.leaseMs)}`);
  }
}

/** Leases on PostgreSQL, judged by the database's clock, and the run signals (NOTIFY). */
export class PostgresLeases implements LeaseMethods {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async claimRun(runId: string, terms: LeaseTerms): Promise<Lease | undefined> {
    checkTerms(terms);
    return this.#executor.call(`claiming run ${runId}`, (client) => leases.claimRun(client, runId, terms), {
      retry: true,
    });
  }

  async claimRuns(terms: LeaseTerms, limit: number, options: ClaimOptions = {}): Promise<Lease[]> {
    checkTerms(terms);
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new InvalidInputError(`limit must be a non-negative integer, got ${String(limit)}`);
    }
    if (limit === 0) {
      this.#executor.checkUsable();
      return [];
    }
    // Not tried again after a dropped connection: the runs it took may be held without being known.
    return this.#executor.call('claiming runs', (client) => leases.claimRuns(client, terms, limit, options), {
      retry: false,
    });
  }

  async renewLeases(terms: LeaseTerms): Promise<ReadonlySet<string>> {
    checkTerms(terms);
    return this.#executor.call(`renewing the leases of ${terms.node}`, (client) => leases.renewLeases(client, terms), {
      retry: true,
    });
  }

  async leaseHolderState(node: string, incarnation: string): Promise<LeaseHolderState> {
    return this.#executor.call(
      `asking whether ${node} holds leases`,
      (client) => leases.holderState(client, node, incarnation),
      {
        retry: true,
      },
    );
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#executor.checkUsable();
    await this.#executor.barrier(); // what this node queued for the run lands while it still holds it
    const { claimable } = await this.#executor.call(
      `releasing the lease of run ${lease.runId}`,
      (client) => leases.releaseLease(client, lease, this.#executor.signalTarget),
      { retry: true },
    );
    if (claimable) this.#executor.signals.emit({ type: 'claimable', runId: lease.runId });
  }

  onRunSignal(listener: (signal: RunSignal) => void): () => void {
    return this.#executor.signals.on((signal) => {
      if (isRunSignal(signal)) listener(signal);
    });
  }
}
