import { ParkNotFoundError, RunNotFoundError, StaleParkAnswerError, StoreError } from '../../errors.js';
import type { ParkKind, StoredRecord } from '../../journal/records.js';
import {
  checkLimit,
  type ParkColumns,
  parkNotOpenError,
  parkRowFrom,
  type RecordColumns,
  type RunColumns,
  runRowFrom,
  type SerializedWrite,
  type StateColumns,
  serializeWrite,
  storedRecordFrom,
} from '../columns.js';
import type { RunMethods } from '../parts.js';
import type { ProcessLeases } from '../process-leases.js';
import type { ProcessSessionStore } from '../process-session-store.js';
import { coversAgent, type PurgedRuns, type PurgeRunsQuery } from '../retention-store.js';
import type { ScopedStateWrite } from '../session-store.js';
import type {
  Allowance,
  ParkAnswerWrite,
  ParkFilter,
  ParkRow,
  PendingAnswer,
  RunFilter,
  RunRequests,
  RunRow,
  RunWrite,
} from '../store.js';

/** The index of the first entry (entries sorted by seq) whose seq is above `seq`, or at least `seq` if `inclusive`. */
function firstFrom(entries: readonly RecordColumns[], seq: number, inclusive: boolean): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const entrySeq = entries[middle]!.seq;
    if (entrySeq < seq || (!inclusive && entrySeq === seq)) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareRunsNewestFirst(left: RunColumns, right: RunColumns): number {
  if (left.created_at !== right.created_at) return right.created_at - left.created_at;
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0;
}

function compareParksOldestFirst(left: ParkColumns, right: ParkColumns): number {
  if (left.created_at !== right.created_at) return left.created_at - right.created_at;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

function stateWrite(columns: StateColumns): ScopedStateWrite {
  const labels = JSON.parse(columns.labels) as string[];
  return columns.value === null
    ? { scope: columns.scope, key: columns.key, deleted: true, labels }
    : { scope: columns.scope, key: columns.key, value: JSON.parse(columns.value), labels };
}

/** What a {@link MemoryRuns} needs from its store. */
export interface MemoryRunsOptions {
  /** Throws if the store is closed or failed. */
  readonly check: () => void;
  /** Fails the store (a write that clashes with what is stored is lost, as a failed flush's). */
  readonly fail: (error: StoreError) => void;
  readonly leases: ProcessLeases;
  /** Where state written with runs goes. */
  readonly sessions: ProcessSessionStore;
}

/**
 * Runs, journals, parks, standing decisions and requests in memory, kept as the SQLite store's
 * rows (JSON columns), so neither the objects written nor those read can change what it holds.
 */
export class MemoryRuns implements RunMethods {
  readonly #runs = new Map<string, RunColumns>();
  readonly #journals = new Map<string, RecordColumns[]>();
  readonly #parks = new Map<string, ParkColumns>();
  /** Answers sent while another node held the run, by run, waiting for its holder to journal them. */
  readonly #pendingAnswers = new Map<string, PendingAnswer[]>();
  readonly #pendingCancels = new Map<string, { reason: string; at: number }>();
  readonly #allowances = new Map<string, Allowance>();
  readonly #check: () => void;
  readonly #fail: (error: StoreError) => void;
  readonly #leases: ProcessLeases;
  readonly #sessions: ProcessSessionStore;

  constructor(options: MemoryRunsOptions) {
    this.#check = options.check;
    this.#fail = options.fail;
    this.#leases = options.leases;
    this.#sessions = options.sessions;
  }

  /** The status of a run, if it is stored. */
  statusOf(runId: string): string | undefined {
    return this.#runs.get(runId)?.status;
  }

  /** The runs that need driving, in the order they were first written (for `claimRuns`). */
  *runsToDrive(): Generator<{ id: string; agent: string }> {
    for (const row of this.#runs.values()) if (this.#needsDriving(row)) yield row;
  }

  /**
   * Deletes up to `query.limit` runs retention may purge (ended before `query.before`, not held
   * by a lease, a session's turn or a request), oldest first, with their journals and parks.
   */
  purge(query: PurgeRunsQuery, held: (runId: string) => boolean): PurgedRuns {
    const statuses: readonly string[] = query.statuses;
    const victims = [...this.#runs.values()]
      .filter(
        (row) =>
          statuses.includes(row.status) &&
          row.updated_at < query.before &&
          coversAgent(query.agents, row.agent) &&
          !held(row.id) &&
          !this.#pendingAnswers.has(row.id) &&
          !this.#pendingCancels.has(row.id),
      )
      .sort((a, b) => a.updated_at - b.updated_at || (a.id < b.id ? -1 : 1))
      .slice(0, query.limit);
    let records = 0;
    for (const { id } of victims) {
      records += this.#journals.get(id)?.length ?? 0;
      this.#journals.delete(id);
      for (const [parkId, park] of this.#parks) if (park.run_id === id) this.#parks.delete(parkId);
      this.#runs.delete(id);
    }
    return { runIds: victims.map((row) => row.id).sort(), records };
  }

  async write(write: RunWrite, _options: { durable: boolean }): Promise<void> {
    this.#check();
    const serialized = serializeWrite(write);
    if (serialized.lease) this.#leases.check(serialized.lease);
    const conflict = this.#findConflict(serialized);
    if (conflict !== undefined) {
      const failure = new StoreError(`writing to the memory store failed, so the write is lost: ${conflict}`);
      this.#fail(failure);
      throw failure;
    }
    this.#apply(serialized);
  }

  async answerPark(answer: ParkAnswerWrite): Promise<void> {
    this.#check();
    const write = serializeWrite(answer.write);
    const park = this.#parks.get(answer.parkId);
    if (park === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
    if (park.status !== 'open') throw parkNotOpenError(answer.parkId, park);
    if (park.run_id !== write.runId) {
      throw new StoreError(`park ${answer.parkId} belongs to run ${park.run_id}, not to run ${write.runId}`);
    }
    if (write.lease) this.#leases.check(write.lease);
    const conflict = this.#findConflict(write);
    if (conflict !== undefined) throw new StoreError(`answering park ${answer.parkId} failed: ${conflict}`);
    this.#parks.set(park.id, {
      ...park,
      status: 'answered',
      decision: JSON.stringify(answer.decision),
      answered_by: answer.by,
      answered_at: answer.at,
    });
    this.#apply(write);
  }

  async requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void> {
    this.#check();
    const park = this.#parks.get(answer.parkId);
    if (park === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
    if (park.status !== 'open') throw parkNotOpenError(answer.parkId, park);
    if (parkRowFrom(park).callHash !== answer.callHash) {
      throw new StaleParkAnswerError(
        `park ${answer.parkId} now holds another call than the one answered; look at it again`,
      );
    }
    this.#parks.set(park.id, {
      ...park,
      status: 'answered',
      decision: JSON.stringify(answer.decision),
      answered_by: answer.by,
      answered_at: answer.at,
    });
    const { callHash: _callHash, ...pending } = answer;
    const list = this.#pendingAnswers.get(park.run_id) ?? [];
    list.push(JSON.parse(JSON.stringify(pending)) as PendingAnswer);
    this.#pendingAnswers.set(park.run_id, list);
    this.#leases.signal({ type: 'requested', runId: park.run_id });
  }

  async requestCancel(runId: string, reason: string, at: number): Promise<void> {
    this.#check();
    if (!this.#runs.has(runId)) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    if (!this.#pendingCancels.has(runId)) this.#pendingCancels.set(runId, { reason, at });
    this.#leases.signal({ type: 'requested', runId });
  }

  async requests(runId: string): Promise<RunRequests> {
    this.#check();
    const cancel = this.#pendingCancels.get(runId);
    return { answers: [...(this.#pendingAnswers.get(runId) ?? [])], ...(cancel ? { cancel: { ...cancel } } : {}) };
  }

  /** Whether run `runId` needs a node to drive it: running, or parked with a request waiting. */
  needsDriving(runId: string): boolean {
    const row = this.#runs.get(runId);
    return row !== undefined && this.#needsDriving(row);
  }

  #needsDriving(row: RunColumns): boolean {
    if (row.status === 'running') return true;
    return row.status === 'parked' && (this.#pendingAnswers.has(row.id) || this.#pendingCancels.has(row.id));
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    this.#check();
    const row = this.#runs.get(runId);
    return row === undefined ? undefined : runRowFrom(row);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    this.#check();
    const limit = checkLimit(filter.limit);
    const statuses: readonly string[] | undefined = typeof filter.status === 'string' ? [filter.status] : filter.status;
    const rows = [...this.#runs.values()].filter(
      (row) =>
        (statuses === undefined || statuses.includes(row.status)) &&
        (filter.agent === undefined || row.agent === filter.agent) &&
        (filter.agents === undefined || filter.agents.includes(row.agent)) &&
        (filter.principal === undefined || row.principal === filter.principal),
    );
    return rows.sort(compareRunsNewestFirst).slice(0, limit).map(runRowFrom);
  }

  async loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]> {
    this.#check();
    const entries = this.#journals.get(runId) ?? [];
    const start = afterSeq === undefined ? 0 : firstFrom(entries, afterSeq, false);
    return entries.slice(start).map((entry) => storedRecordFrom(runId, entry));
  }

  async lastSeq(runId: string): Promise<number> {
    this.#check();
    return this.#journals.get(runId)?.at(-1)?.seq ?? 0;
  }

  async getPark(parkId: string): Promise<ParkRow | undefined> {
    this.#check();
    const row = this.#parks.get(parkId);
    return row === undefined ? undefined : parkRowFrom(row);
  }

  async listParks(filter: ParkFilter = {}): Promise<ParkRow[]> {
    this.#check();
    const limit = checkLimit(filter.limit);
    const rows = [...this.#parks.values()].filter(
      (row) =>
        (filter.status === undefined || row.status === filter.status) &&
        (filter.runId === undefined || row.run_id === filter.runId) &&
        (filter.kind === undefined || row.kind === filter.kind) &&
        (filter.handle === undefined || parkRowFrom(row).handle === filter.handle) &&
        (filter.agents === undefined || filter.agents.includes(this.#runs.get(row.run_id)?.agent ?? '')) &&
        (filter.principal === undefined || row.principal === filter.principal),
    );
    const newest = filter.order === 'newest';
    const after = filter.after;
    const sorted = rows.sort(newest ? (left, right) => compareParksOldestFirst(right, left) : compareParksOldestFirst);
    const paged =
      after === undefined
        ? sorted
        : sorted.filter((row) => {
            const position = compareParksOldestFirst(row, { created_at: after.createdAt, id: after.id } as ParkColumns);
            return newest ? position < 0 : position > 0;
          });
    return paged.slice(0, limit).map(parkRowFrom);
  }

  async countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    this.#check();
    const counts: Partial<Record<ParkKind, number>> = {};
    for (const row of this.#parks.values()) {
      const kind = row.kind as ParkKind;
      if (row.status === 'open') counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return counts;
  }

  async putAllowance(allowance: Allowance): Promise<void> {
    this.#check();
    this.#allowances.set(`${allowance.agent}\u0000${allowance.tool}`, { ...allowance });
  }

  async listAllowances(): Promise<Allowance[]> {
    this.#check();
    return [...this.#allowances.values()].map((allowance) => ({ ...allowance }));
  }

  /** What in `write` clashes with what is stored (or with itself), if anything. */
  #findConflict(write: SerializedWrite): string | undefined {
    const entries = this.#journals.get(write.runId) ?? [];
    const seqs = new Set<number>();
    for (const { seq } of write.records) {
      if (seqs.has(seq) || entries[firstFrom(entries, seq, true)]?.seq === seq) {
        return `run ${write.runId} already has a journal record with seq ${seq}`;
      }
      seqs.add(seq);
    }
    const parkIds = new Set<string>();
    for (const { id } of write.parks) {
      if (parkIds.has(id) || this.#parks.has(id)) return `a park with the id ${id} exists already`;
      parkIds.add(id);
    }
    return undefined;
  }

  #apply(write: SerializedWrite): void {
    const { runId } = write;
    if (write.run !== undefined) this.#runs.set(runId, write.run);
    if (write.recordedAnswers.length > 0) {
      const left = (this.#pendingAnswers.get(runId) ?? []).filter(
        (answer) => !write.recordedAnswers.includes(answer.parkId),
      );
      if (left.length > 0) this.#pendingAnswers.set(runId, left);
      else this.#pendingAnswers.delete(runId);
    }
    if (write.cancelTaken) this.#pendingCancels.delete(runId);
    if (write.state.length > 0) this.#sessions.applyState(write.state.map(stateWrite), write.stateAt, runId);
    const last = write.records.at(-1);
    if (last && this.#leases.listened) this.#leases.signal({ type: 'appended', runId, seq: last.seq });
    if (write.records.length > 0) {
      let entries = this.#journals.get(runId);
      if (entries === undefined) {
        entries = [];
        this.#journals.set(runId, entries);
      }
      for (const entry of write.records) {
        const last = entries.at(-1);
        if (last === undefined || last.seq < entry.seq) entries.push(entry);
        else entries.splice(firstFrom(entries, entry.seq, true), 0, entry);
      }
    }
    const principal = this.#runs.get(runId)?.principal ?? null;
    for (const park of write.parks) {
      this.#parks.set(park.id, {
        ...park,
        run_id: runId,
        status: 'open',
        principal,
        decision: null,
        answered_by: null,
        answered_at: null,
      });
    }
    for (const parkId of write.closeParks) {
      const park = this.#parks.get(parkId);
      if (park?.run_id === runId && park.status === 'open') this.#parks.set(parkId, { ...park, status: 'closed' });
    }
  }
}
