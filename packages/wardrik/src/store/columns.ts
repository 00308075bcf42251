import type { Label, Measures } from '@wardrik/core';
import { InvalidInputError, ParkAlreadyAnsweredError, RunNeedsAttentionError, StoreError } from '../errors.js';
import type { JournalRecord, Park, ParkDecision, StoredRecord } from '../journal/records.js';
import type { ScopedStateWrite } from './session-store.js';
import type { Lease, ParkRow, RunRow, RunStatus, RunWrite } from './store.js';

/*
 * The column format every store keeps (SQLite tables, the in-memory maps): what a `RunWrite`
 * becomes on its way in, and how rows come back out. JSON is made once, when a write is
 * accepted, so a later change to the caller's objects cannot reach the store.
 */

/** A `runs` row. */
export interface RunColumns {
  readonly id: string;
  readonly agent: string;
  readonly principal: string;
  readonly status: string;
  readonly created_at: number;
  readonly updated_at: number;
  /** JSON of {@link RunSummary}. */
  readonly summary: string;
}

/** A `parks` row. */
export interface ParkColumns {
  readonly id: string;
  readonly run_id: string;
  readonly kind: string;
  readonly status: string;
  /** The run's principal when the park was written (null if the run had no row yet). */
  readonly principal: string | null;
  readonly created_at: number;
  /** JSON of the {@link Park}. */
  readonly park: string;
  /** JSON of the {@link ParkDecision}, once answered. */
  readonly decision: string | null;
  readonly answered_by: string | null;
  readonly answered_at: number | null;
}

/** The part of a run row kept as JSON. */
interface RunSummary {
  readonly measures: Measures;
  readonly labels: readonly Label[];
  readonly output?: string;
  readonly error?: string;
  readonly attention?: string;
}

/** A journal record ready to store. */
export interface RecordColumns {
  readonly seq: number;
  readonly record: string;
}

/** A new park ready to store (its principal is copied from the run row when written). */
export interface NewParkColumns {
  readonly id: string;
  readonly kind: string;
  readonly created_at: number;
  readonly park: string;
}

/** A `RunWrite` checked and turned into columns. */
export interface SerializedWrite {
  readonly runId: string;
  readonly records: readonly RecordColumns[];
  readonly run: RunColumns | undefined;
  readonly parks: readonly NewParkColumns[];
  readonly closeParks: readonly string[];
  readonly lease: Lease | undefined;
  readonly recordedAnswers: readonly string[];
  readonly cancelTaken: boolean;
  /** State writes, their values as JSON (null for a deletion). */
  readonly state: readonly StateColumns[];
  readonly stateAt: number;
}

/** A state write as columns. */
export interface StateColumns {
  readonly scope: string;
  readonly key: string;
  readonly value: string | null;
  readonly labels: string;
}

/** What a write without parks, closed parks, answers or state has of each: one shared empty list, made once (a write is made at every step). */
const NONE: readonly never[] = Object.freeze([]);

/** `value` as JSON; `what` names it in the error, and is only made if there is one (this runs for every record). */
function toJson(value: unknown, what: () => string): string {
  try {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError('it has no JSON form');
    return json;
  } catch (cause) {
    throw new StoreError(`${what()} cannot be stored as JSON: ${(cause as Error).message}`, { cause });
  }
}

/**
 * Checks a write (every record, the run row and every park belong to `write.runId`; seqs are
 * integers) and turns it into columns. Throws `StoreError` naming the problem.
 */
export function serializeWrite(write: RunWrite): SerializedWrite {
  const { runId } = write;
  if (typeof runId !== 'string' || runId === '') throw new StoreError('a write needs a runId');
  const records = write.records.map((stored): RecordColumns => {
    if (stored.runId !== runId) {
      throw new StoreError(`record seq ${stored.seq} belongs to run ${stored.runId}, not to run ${runId}`);
    }
    if (!Number.isSafeInteger(stored.seq)) {
      throw new StoreError(`run ${runId}: a record's seq must be an integer, got ${stored.seq}`);
    }
    return { seq: stored.seq, record: toJson(stored.record, () => `run ${runId} record ${stored.seq}`) };
  });
  const parks = write.parks?.length ? write.parks.map((park) => newParkColumns(park, runId)) : NONE;
  if (write.lease !== undefined && write.lease.runId !== runId) {
    throw new StoreError(`the lease of run ${write.lease.runId} was named by a write of run ${runId}`);
  }
  return {
    runId,
    records,
    run: write.run === undefined ? undefined : runColumns(write.run, runId),
    parks,
    closeParks: write.closeParks ?? NONE,
    lease: write.lease,
    recordedAnswers: write.recordedAnswers ?? NONE,
    cancelTaken: write.cancelTaken === true,
    state:
      write.state === undefined ? NONE : write.state.writes.map((each) => stateColumns(each, `run ${runId} state`)),
    stateAt: write.state?.at ?? 0,
  };
}

function newParkColumns(park: Park, runId: string): NewParkColumns {
  if (park.runId !== runId) throw new StoreError(`park ${park.id} belongs to run ${park.runId}, not to run ${runId}`);
  return { id: park.id, kind: park.kind, created_at: park.createdAt, park: toJson(park, () => `park ${park.id}`) };
}

/** A state write as columns: its value as JSON (null for a deletion), its labels as JSON. */
export function stateColumns(write: ScopedStateWrite, what = 'state'): StateColumns {
  return {
    scope: write.scope,
    key: write.key,
    value: write.deleted ? null : toJson(write.value, () => `${what} ${JSON.stringify(write.key)}`),
    labels: toJson(write.labels, () => `${what} ${JSON.stringify(write.key)} labels`),
  };
}

function runColumns(run: RunRow, runId: string): RunColumns {
  if (run.id !== runId) throw new StoreError(`the run row of run ${run.id} was written with run ${runId}`);
  const summary: RunSummary = {
    measures: run.measures,
    labels: run.labels,
    output: run.output,
    error: run.error,
    attention: run.attention,
  };
  return {
    id: run.id,
    agent: run.agent,
    principal: run.principal,
    status: run.status,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    summary: toJson(summary, () => `the row of run ${run.id}`),
  };
}

/** A `runs` row as a `RunRow`. A summary that is not JSON marks the row as needing attention (listing others goes on). */
export function runRowFrom(columns: RunColumns): RunRow {
  let summary: RunSummary;
  try {
    summary = JSON.parse(columns.summary) as RunSummary;
  } catch (cause) {
    summary = { measures: {}, labels: [], attention: `its row's summary is not JSON (${(cause as Error).message})` };
  }
  return {
    id: columns.id,
    agent: columns.agent,
    principal: columns.principal,
    status: columns.status as RunStatus,
    createdAt: columns.created_at,
    updatedAt: columns.updated_at,
    measures: summary.measures,
    labels: summary.labels,
    ...(summary.output === undefined ? {} : { output: summary.output }),
    ...(summary.error === undefined ? {} : { error: summary.error }),
    ...(summary.attention === undefined ? {} : { attention: summary.attention }),
  };
}

/** A `parks` row as a `ParkRow`. */
export function parkRowFrom(columns: ParkColumns): ParkRow {
  const park = JSON.parse(columns.park) as Park;
  return {
    ...park,
    status: columns.status as ParkRow['status'],
    ...(columns.decision === null ? {} : { decision: JSON.parse(columns.decision) as ParkDecision }),
    ...(columns.answered_by === null ? {} : { answeredBy: columns.answered_by }),
    ...(columns.answered_at === null ? {} : { answeredAt: columns.answered_at }),
  };
}

/** A journal row as a `StoredRecord`. A record that is not JSON is that run's problem: `RunNeedsAttentionError`. */
export function storedRecordFrom(runId: string, columns: RecordColumns): StoredRecord {
  try {
    return { runId, seq: columns.seq, record: JSON.parse(columns.record) as JournalRecord };
  } catch (cause) {
    throw new RunNeedsAttentionError(
      `run ${runId}, record ${columns.seq}: not JSON (${(cause as Error).message}); the journal is left as it is`,
      { cause },
    );
  }
}

/** The error for answering a park that is no longer open: says which state it is in, and since when. */
export function parkNotOpenError(
  parkId: string,
  state: Pick<ParkColumns, 'status' | 'answered_at' | 'answered_by'>,
): ParkAlreadyAnsweredError {
  if (state.status === 'answered') {
    const by = state.answered_by === null ? '' : ` by ${state.answered_by}`;
    const at = state.answered_at === null ? '' : ` at ${new Date(state.answered_at).toISOString()}`;
    return new ParkAlreadyAnsweredError(`park ${parkId} was already answered${by}${at}; a park takes one answer`);
  }
  return new ParkAlreadyAnsweredError(
    `park ${parkId} is ${state.status} (its run was cancelled) and can no longer be answered`,
  );
}

/** Checks a listing limit: undefined (no limit) or a non-negative integer. */
export function checkLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidInputError(`limit must be a non-negative integer, got ${String(limit)}`);
  }
  return limit;
}
