import type { Label, Measures } from '@wardrik/core';
import type { Park, ParkDecision, ParkKind, StoredRecord } from '../journal/records.js';
import type { RunStatus } from '../journal/run-status.js';
import type { ScopedStateWrite } from './session-store.js';

// What the run store keeps and takes: a run's row, its parks, one commit's write, a lease, the
// filters of its listings. Their own file, below `RunStore` and `Store`, which both use them.

/**
 * A node's right to write one run. The epoch grows at each take-over, and every write of the run
 * names its lease: a node that lost the run (paused, partitioned, its lease expired) can never
 * append after another node took it over.
 */
export interface Lease {
  readonly runId: string;
  readonly node: string;
  readonly epoch: number;
}

/** The summary row of a run (its journal holds the rest). */
export interface RunRow {
  readonly id: string;
  readonly agent: string;
  readonly principal: string;
  readonly status: RunStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Set when the run parks or ends. */
  readonly measures: Measures;
  readonly labels: readonly Label[];
  readonly output?: string;
  readonly error?: string;
  /**
   * Set when this Wardrik could not load the run's journal (a record of a newer format, a corrupt
   * record): why. The run is left as it is on disk; a person can cancel it, or run a Wardrik that
   * reads it. Cleared by the run's next write.
   */
  readonly attention?: string;
}

/** A park as stored, with its answer once given. */
export interface ParkRow extends Park {
  readonly status: 'open' | 'answered' | 'closed';
  readonly decision?: ParkDecision;
  readonly answeredBy?: string;
  readonly answeredAt?: number;
}

/** What one commit writes for one run, atomically with everything else in its group. */
export interface RunWrite {
  readonly runId: string;
  /** Appended to the run's journal at the given seq numbers. */
  readonly records: readonly StoredRecord[];
  /** Inserts or replaces the run's row. */
  readonly run?: RunRow;
  /** New parks. */
  readonly parks?: readonly Park[];
  /** Parks closed without an answer (the run was cancelled). */
  readonly closeParks?: readonly string[];
  /**
   * The writer's lease on the run (see `RunStore.claimRun`): a store shared by many nodes applies
   * the write only while the run's lease is still this one, and otherwise refuses it with
   * `LeaseLostError` (another node took the run over). A write creating the run's row gives it this
   * lease. Stores of one process may ignore it.
   */
  readonly lease?: Lease;
  /** Answers sent while another node held the run (`RunStore.requestAnswer`) now journaled by this write. */
  readonly recordedAnswers?: readonly string[];
  /** The cancel requested while another node held the run (`RunStore.requestCancel`) is now acted on. */
  readonly cancelTaken?: boolean;
  /** State written by the calls answered in this write, applied in order with it (see `SessionStore`). */
  readonly state?: { readonly at: number; readonly writes: readonly ScopedStateWrite[] };
}

/** Answering a park: checked and written in one transaction. */
export interface ParkAnswerWrite {
  readonly parkId: string;
  readonly decision: ParkDecision;
  readonly by: string;
  readonly at: number;
  /** The rest of the write, e.g. the `park-answered` record and the run row. */
  readonly write: RunWrite;
}

/** A person's standing decision: calls of `tool` by `agent` run without asking again. */
export interface Allowance {
  readonly agent: string;
  readonly tool: string;
  readonly by: string;
  readonly at: number;
  /** The park whose answer made it. */
  readonly parkId: string;
}

/** Filters for listing runs. */
export interface RunFilter {
  readonly status?: RunStatus | readonly RunStatus[];
  readonly agent?: string;
  /** Only runs of these agents (a principal's scope); applied before `limit`. */
  readonly agents?: readonly string[];
  readonly principal?: string;
  readonly limit?: number;
}

/** Filters for listing parks. */
export interface ParkFilter {
  readonly status?: ParkRow['status'];
  readonly kind?: ParkKind;
  readonly runId?: string;
  /**
   * Only the parks waiting for this work: the `handle` a long-running tool's `started` answer gave
   * (a wait on a child run has one too). Found through an index, however many parks are open.
   */
  readonly handle?: string;
  /** Only parks of runs of these agents (a principal's scope); applied before `limit`. */
  readonly agents?: readonly string[];
  readonly principal?: string;
  readonly limit?: number;
  /** `oldest` first (the default) or `newest` first; ties in `createdAt` go by id. */
  readonly order?: 'oldest' | 'newest';
  /** Only parks that come after this one in the listing's order (a page's last park: the next page). */
  readonly after?: { readonly createdAt: number; readonly id: string };
}
