import type { Label, Measures } from '@wardrik/core';
import type { Principal, TokenInfo } from '../auth/types.js';
import type { StoreError } from '../errors.js';
import type { Park, ParkDecision, StoredRecord } from '../journal/records.js';

/** Where a run stands. */
export type RunStatus = 'running' | 'parked' | 'completed' | 'failed' | 'cancelled';

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
  readonly runId?: string;
  /** Only parks of runs of these agents (a principal's scope); applied before `limit`. */
  readonly agents?: readonly string[];
  readonly principal?: string;
  readonly limit?: number;
}

/**
 * Where runs, journals and parks are kept. One async interface, several adapters
 * (SQLite, PostgreSQL, in-memory for tests).
 *
 * Durability: `write(w, { durable: true })` resolves once `w` and everything written before it
 * is on disk. `durable: false` may resolve before that; such writes reach disk with the next
 * durable write or group commit, in order. Reads see every write made before them.
 */
export interface Store {
  /** Creates or upgrades the schema. Safe to call on every start. */
  migrate(): Promise<void>;
  write(write: RunWrite, options: { durable: boolean }): Promise<void>;
  /**
   * Marks an open park answered and writes `write`, atomically and durably.
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
  /** Records a standing decision, durably (replacing one for the same agent and tool). */
  putAllowance(allowance: Allowance): Promise<void>;
  listAllowances(): Promise<Allowance[]>;
  /** Writes what is pending and releases the store. */
  close(): Promise<void>;
  /**
   * Calls `listener` once if the store fails: a write could not be made durable, so what was
   * acknowledged may be lost and the store takes no more writes (crash-only: reopen it, and
   * recovery resumes the runs from what is on disk). Returns the function that stops listening.
   */
  onFailure(listener: (error: StoreError) => void): () => void;
  /**
   * Takes the store for this process's runtime, so that no other process drives (or recovers) the
   * same runs. Throws `StoreError` naming the store, and the holder where known, if another process
   * holds it. Released by `close()`. Stores shared by many nodes may do nothing here (their runs
   * are claimed one by one).
   */
  lockForRuntime(): Promise<void>;

  /*
   * Principals and tokens. These writes are small and rare: each is on disk when it resolves.
   * Their reads never wait for queued run writes, so authenticating a request costs no flush.
   */

  /**
   * Inserts a principal, or replaces the one with its id. Throws `InvalidInputError` if another
   * principal has its name, `StoreError` if it is malformed.
   */
  putPrincipal(principal: Principal): Promise<void>;
  getPrincipal(id: string): Promise<Principal | undefined>;
  /** Every principal, by name. */
  listPrincipals(): Promise<Principal[]>;
  /**
   * Adds a token, stored by the hash of its secret (never the secret). Throws
   * `PrincipalNotFoundError` if its principal is unknown, `StoreError` if its id or hash exists.
   */
  putToken(token: TokenInfo & { readonly hash: string }): Promise<void>;
  /**
   * The token with this hash and its principal. Revoked tokens are returned too, with
   * `revokedAt`, so that the caller can say why one is refused.
   */
  findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined>;
  /**
   * Marks a token revoked at `at` (a token revoked already keeps its first `revokedAt`).
   * @returns false if no token has this id.
   */
  revokeToken(id: string, at: number): Promise<boolean>;
  /** Tokens (all, or one principal's), oldest first; never their secrets or hashes. */
  listTokens(principalId?: string): Promise<TokenInfo[]>;
}
