import type { StoreError } from '../errors.js';
import type { ParkDecision, ParkKind, StoredRecord } from '../journal/records.js';
import type {
  Allowance,
  Lease,
  ParkAnswerWrite,
  ParkFilter,
  ParkRow,
  RunFilter,
  RunRow,
  RunWrite,
} from './run-rows.js';

export type { Lease } from './run-rows.js';

/** Who asks for leases, and how long a lease lasts unless renewed. */
export interface LeaseTerms {
  readonly node: string;
  /**
   * This process's life as `node`: new at every start. Leases are held, renewed and kept by the
   * incarnation, not the name, so a node restarted under its old name never renews (nor writes
   * under) the leases its dead predecessor held: it takes those runs over, with the next epoch.
   */
  readonly incarnation: string;
  readonly leaseMs: number;
}

/** What is known of a node that held a run's lease (see `RunStore.leaseHolderState`). */
export type LeaseHolderState = 'alive' | 'stopped' | 'unknown';

/** How `claimRuns` looks for runs. */
export interface ClaimOptions {
  /** Only runs of these agents (a node takes only what it can drive). */
  readonly agents?: readonly string[];
  /**
   * Also take, at once, the runs whose live leases a predecessor of this node (the same name,
   * another incarnation) holds: a node does this as it starts. Otherwise they are taken once
   * their leases expire.
   */
  readonly predecessors?: boolean;
}

/** A person's answer sent while another node held the park's run: its holder journals it. */
export interface PendingAnswer {
  readonly parkId: string;
  readonly decision: ParkDecision;
  readonly by: string;
  readonly at: number;
}

/** What waits for a run's holder: answers to journal, and a cancel to act on. */
export interface RunRequests {
  readonly answers: readonly PendingAnswer[];
  readonly cancel?: { readonly reason: string; readonly at: number };
}

/**
 * Something another node (or this process) may have to act on:
 * - `requested`: an answer or a cancel waits for the run's holder (`requests`);
 * - `claimable`: the run needs driving and nobody holds it (it was released with a request
 *   waiting, or is new work for idle capacity);
 * - `appended`: the run's journal grew up to `seq` (for followers of its events).
 */
export interface RunSignal {
  readonly type: 'requested' | 'claimable' | 'appended';
  readonly runId: string;
  readonly seq?: number;
}

/**
 * Runs, their journals, parks and standing decisions, and who may write each run (leases).
 *
 * Durability: `write(w, { durable: true })` resolves once `w` and everything written before it
 * is on disk. `durable: false` may resolve before that; such writes reach disk with the next
 * durable write or group commit, in order. Reads see every write made before them.
 *
 * Ownership: a node drives a run only while it holds the run's lease. Stores of one process
 * (SQLite, memory) grant every lease to that process; a store shared by many nodes (PostgreSQL)
 * judges expiry by its own clock and fences every write by the lease's epoch.
 */
export interface RunStore {
  /** Creates or upgrades the schema. Safe to call on every start (and from nodes starting together). */
  migrate(): Promise<void>;
  /**
   * Throws `LeaseLostError` (for that write only) when `write.lease` is not the run's lease any
   * more. A non-durable write may resolve before its lease is checked; if it is then refused, every
   * later write naming that lease rejects with `LeaseLostError`, so the writer learns at its next
   * write. On a store shared by many nodes every write of a run must name its lease (a write that
   * names none is applied unfenced).
   */
  write(write: RunWrite, options: { durable: boolean }): Promise<void>;
  /**
   * Marks an open park answered and writes `write` (fenced by its lease), atomically and durably.
   * Throws `ParkAlreadyAnsweredError` if the park is not open any more, `ParkNotFoundError` if unknown.
   */
  answerPark(answer: ParkAnswerWrite): Promise<void>;
  getRun(runId: string): Promise<RunRow | undefined>;
  listRuns(filter?: RunFilter): Promise<RunRow[]>;
  /** The run's journal, in order, from `afterSeq` (exclusive). */
  loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]>;
  /** The seq of the run's last journal record (0 if none), read without parsing any record. */
  lastSeq(runId: string): Promise<number>;
  getPark(parkId: string): Promise<ParkRow | undefined>;
  listParks(filter?: ParkFilter): Promise<ParkRow[]>;
  /** How many parks are open, by kind (kinds with none left out), counted without reading them. */
  countOpenParks(): Promise<Partial<Record<ParkKind, number>>>;
  /** Records a standing decision, durably (replacing one for the same agent and tool). */
  putAllowance(allowance: Allowance): Promise<void>;
  listAllowances(): Promise<Allowance[]>;

  /**
   * Takes run `runId` for `terms.node` if nobody holds it (never claimed, released, or its lease
   * expired by the store's clock) or a predecessor of this node holds it (same name, another
   * incarnation) — with the next epoch — or returns the lease this incarnation holds already.
   * Undefined if another node holds it. Works for a run with no row yet: its node claims it
   * before writing its first record.
   */
  claimRun(runId: string, terms: LeaseTerms): Promise<Lease | undefined>;
  /**
   * Takes up to `limit` runs that need driving and nobody holds — `running` runs, and parked runs
   * with a request waiting — each with the next epoch (see `ClaimOptions`). A run is claimed by
   * one node only, however many ask at once.
   */
  claimRuns(terms: LeaseTerms, limit: number, options?: ClaimOptions): Promise<Lease[]>;
  /**
   * Extends every live lease this incarnation of `terms.node` holds by `terms.leaseMs` (one
   * statement, however many runs). Returns the runs it still holds: a lease that expired, was
   * taken over, or belongs to another incarnation of the node is not renewed.
   */
  renewLeases(terms: LeaseTerms): Promise<ReadonlySet<string>>;
  /** Gives a lease up (the run parked or ended, or the node stops), if it is still the run's lease. */
  releaseLease(lease: Lease): Promise<void>;
  /**
   * What is known of an incarnation of a node that held a run: `alive` while it holds a live
   * lease (it renews them); `stopped` when it can't be running (a store one process holds, such as
   * a SQLite file under its lock, and it is not this process); otherwise `unknown` (it may have
   * stopped, or be paused past its leases).
   */
  leaseHolderState(node: string, incarnation: string): Promise<LeaseHolderState>;
  /**
   * Records a person's answer while another node holds the park's run: the park is answered at
   * once, durably (a park takes one answer, checked against `callHash`), and its `park-answered`
   * record is left for the run's holder to journal (`requests`); a `requested` signal tells it.
   * Throws as `answerPark` does, and `StaleParkAnswerError` if `callHash` names another call.
   */
  requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void>;
  /** Records that a run held by another node should be cancelled, durably; a `requested` signal tells it. */
  requestCancel(runId: string, reason: string, at: number): Promise<void>;
  /** The requests waiting for the run's holder (cleared by the write that acts on them). */
  requests(runId: string): Promise<RunRequests>;
  /**
   * Calls `listener` on each run signal (see `RunSignal`): across nodes on a shared store. Signals
   * are hints: one sent while a node was reconnecting is not sent again, so what depends on them
   * also looks now and then (claim passes, followers of a run driven elsewhere).
   */
  onRunSignal(listener: (signal: RunSignal) => void): () => void;

  /**
   * Checks that the store answers (a readiness probe): one trivial read that waits for nothing
   * queued. Rejects with `StoreError` if it does not.
   */
  ping(): Promise<void>;
  /** Writes what is pending and releases the store. */
  close(): Promise<void>;
  /**
   * Calls `listener` once if the store fails: a write of runs could not be made durable (or its
   * outcome is unknown), so what was acknowledged may be lost and the store takes no more writes
   * (crash-only: reopen it, and recovery resumes the runs from what is on disk). A read or a lease
   * call that fails throws for that call only. Returns the function that stops listening.
   */
  onFailure(listener: (error: StoreError) => void): () => void;
  /**
   * Calls `listener` after each commit of run writes, for telemetry: how long it took, how many
   * writes, journal records and bytes of records it held. Stores that commit nothing of their own
   * (the memory store) leave it out. Returns the function that stops listening.
   */
  onCommit?(listener: (commit: CommitStats) => void): () => void;
  /**
   * Takes the store for this process's runtime, so that no other process drives (or recovers) the
   * same runs. Throws `StoreError` naming the store, and the holder where known, if another process
   * holds it. Released by `close()`. Stores shared by many nodes do nothing here: their runs are
   * claimed one by one (leases).
   */
  lockForRuntime(): Promise<void>;
}

/** One commit of run writes, as `onCommit` tells it. */
export interface CommitStats {
  readonly durationMs: number;
  readonly writes: number;
  readonly records: number;
  /** The size of the journal records, as stored (JSON). */
  readonly bytes: number;
}
