import type Database from 'better-sqlite3';
import { ParkNotFoundError, RunNotFoundError, StaleParkAnswerError, StoreError } from '../../errors.js';
import type { ParkDecision, ParkKind, StoredRecord } from '../../journal/records.js';
import {
  checkLimit,
  type ParkColumns,
  parkNotOpenError,
  parkRowFrom,
  type RecordColumns,
  type RunColumns,
  runRowFrom,
  type SerializedWrite,
  serializeWrite,
  storedRecordFrom,
} from '../columns.js';
import type { RunMethods } from '../parts.js';
import type { ProcessLeases } from '../process-leases.js';
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
import { sqliteFailure } from './sqlite-errors.js';
import type { SqliteExecutor } from './sqlite-executor.js';
import { prepareWriteStatements, runWriteOps, writeOps } from './write-ops.js';

type RunRecordColumns = Pick<RecordColumns, 'seq' | 'record'>;
type ParkState = Pick<ParkColumns, 'status' | 'answered_at' | 'answered_by'>;

function where(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

function prepareRuns(database: Database.Database) {
  const statements = {
    runsToDrive: database.prepare<[], { id: string; agent: string }>(
      `SELECT id, agent FROM runs WHERE status = 'running'
       UNION SELECT r.id, r.agent FROM parks p JOIN runs r ON r.id = p.run_id WHERE p.recorded = 0 AND r.status = 'parked'
       UNION SELECT r.id, r.agent FROM run_cancels c JOIN runs r ON r.id = c.run_id WHERE r.status = 'parked'`,
    ),
    unrecordedAnswers: database.prepare<
      [string],
      { id: string; decision: string; answered_by: string; answered_at: number }
    >(
      'SELECT id, decision, answered_by, answered_at FROM parks WHERE run_id = ? AND recorded = 0 ORDER BY answered_at, id',
    ),
    cancelOf: database.prepare<[string], { reason: string; requested_at: number }>(
      'SELECT reason, requested_at FROM run_cancels WHERE run_id = ?',
    ),
    requestCancel: database.prepare<[string, string, number]>(
      'INSERT INTO run_cancels (run_id, reason, requested_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING',
    ),
    markUnrecorded: database.prepare<[string]>('UPDATE parks SET recorded = 0 WHERE id = ?'),
    answerPark: database.prepare<[string, string, number, string], { run_id: string }>(
      `UPDATE parks SET status = 'answered', decision = ?, answered_by = ?, answered_at = ?
       WHERE id = ? AND status = 'open' RETURNING run_id`,
    ),
    parkState: database.prepare<[string], ParkState>('SELECT status, answered_at, answered_by FROM parks WHERE id = ?'),
    getRun: database.prepare<[string], RunColumns>('SELECT * FROM runs WHERE id = ?'),
    getPark: database.prepare<[string], ParkColumns>('SELECT * FROM parks WHERE id = ?'),
    countOpenParks: database.prepare<[], { kind: ParkKind; count: number }>(
      "SELECT kind, count(*) AS count FROM parks WHERE status = 'open' GROUP BY kind",
    ),
    lastSeq: database.prepare<[string], { seq: number | null }>('SELECT max(seq) AS seq FROM journal WHERE run_id = ?'),
    loadJournal: database.prepare<[string, number], RunRecordColumns>(
      'SELECT seq, record FROM journal WHERE run_id = ? AND seq > ? ORDER BY seq',
    ),
  };
  const writeStatements = prepareWriteStatements(database);
  const requestAnswer = database.transaction(
    (request: PendingAnswer & { readonly callHash: string }, decision: string): string => {
      const row = statements.getPark.get(request.parkId);
      if (row === undefined) throw new ParkNotFoundError(`no park has the id ${request.parkId}`);
      if (row.status !== 'open') throw parkNotOpenError(request.parkId, row);
      if (parkRowFrom(row).callHash !== request.callHash) {
        throw new StaleParkAnswerError(
          `park ${request.parkId} now holds another call than the one answered; look at it again`,
        );
      }
      statements.answerPark.get(decision, request.by, request.at, request.parkId);
      statements.markUnrecorded.run(request.parkId);
      return row.run_id;
    },
  );
  const answer = database.transaction((answer: ParkAnswerWrite, decision: string, write: SerializedWrite) => {
    const answered = statements.answerPark.get(decision, answer.by, answer.at, answer.parkId);
    if (answered === undefined) {
      const state = statements.parkState.get(answer.parkId);
      if (state === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
      throw parkNotOpenError(answer.parkId, state);
    }
    if (answered.run_id !== write.runId) {
      throw new StoreError(`park ${answer.parkId} belongs to run ${answered.run_id}, not to run ${write.runId}`);
    }
    runWriteOps(writeStatements, writeOps([write]));
  });
  return { ...statements, requestAnswer, answer };
}

/** Runs, journals, parks, standing decisions and requests on SQLite (the lease methods are `ProcessLeaseStore`'s). */
export class SqliteRuns implements RunMethods {
  readonly #executor: SqliteExecutor;
  readonly #leases: ProcessLeases;
  readonly #statements: () => ReturnType<typeof prepareRuns>;

  constructor(executor: SqliteExecutor, leases: ProcessLeases) {
    this.#executor = executor;
    this.#leases = leases;
    this.#statements = executor.statements(prepareRuns);
  }

  write(write: RunWrite, options: { durable: boolean }): Promise<void> {
    let serialized: SerializedWrite;
    try {
      this.#executor.ready();
      serialized = serializeWrite(write);
      if (serialized.lease) this.#leases.check(serialized.lease);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#executor.commits.enqueue(serialized, options.durable);
  }

  async answerPark(answer: ParkAnswerWrite): Promise<void> {
    const statements = this.#statements();
    const write = serializeWrite(answer.write);
    if (write.lease) this.#leases.check(write.lease);
    const decision = JSON.stringify(answer.decision);
    const commits = this.#executor.commits;
    await commits.drain();
    const began = performance.now();
    try {
      statements.answer.immediate(answer, decision, write);
    } catch (cause) {
      throw sqliteFailure(this.#executor.path, `answering park ${answer.parkId}`, cause);
    }
    // Journaled outside the queue, and counted (and told to commit listeners) all the same.
    await commits.committedHere({ writes: [write], began });
  }

  /** The runs that need driving (running, or parked with a request waiting), for `claimRuns`. */
  async runsToDrive(): Promise<{ id: string; agent: string }[]> {
    const statements = this.#statements();
    return this.#executor.read('finding runs to drive', () => statements.runsToDrive.all());
  }

  async requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void> {
    const statements = this.#statements();
    await this.#executor.commits.drain();
    let runId: string;
    try {
      runId = statements.requestAnswer.immediate(answer, JSON.stringify(answer.decision));
    } catch (cause) {
      throw sqliteFailure(this.#executor.path, `answering park ${answer.parkId}`, cause);
    }
    await this.#executor.commits.committedHere();
    this.#leases.signal({ type: 'requested', runId });
  }

  async requestCancel(runId: string, reason: string, at: number): Promise<void> {
    const statements = this.#statements();
    if ((await this.getRun(runId)) === undefined) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    await this.#executor.writeNow(`asking run ${runId} to cancel`, () =>
      statements.requestCancel.run(runId, reason, at),
    );
    this.#leases.signal({ type: 'requested', runId });
  }

  async requests(runId: string): Promise<RunRequests> {
    const statements = this.#statements();
    return this.#executor.read(`reading the requests of run ${runId}`, () => {
      const answers = statements.unrecordedAnswers.all(runId).map(
        (row): PendingAnswer => ({
          parkId: row.id,
          decision: JSON.parse(row.decision) as ParkDecision,
          by: row.answered_by,
          at: row.answered_at,
        }),
      );
      const cancel = statements.cancelOf.get(runId);
      return { answers, ...(cancel ? { cancel: { reason: cancel.reason, at: cancel.requested_at } } : {}) };
    });
  }

  /** Whether answers or a cancel wait for the run's holder. */
  async hasRequests(runId: string): Promise<boolean> {
    const requests = await this.requests(runId);
    return requests.answers.length > 0 || requests.cancel !== undefined;
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    const statements = this.#statements();
    const row = await this.#executor.read(`reading run ${runId}`, () => statements.getRun.get(runId));
    return row === undefined ? undefined : runRowFrom(row);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    const limit = checkLimit(filter.limit);
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (filter.status !== undefined) {
      const statuses: readonly string[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
      if (statuses.length === 0) return [];
      conditions.push(`status IN (${statuses.map(() => '?').join(', ')})`);
      parameters.push(...statuses);
    }
    if (filter.agent !== undefined) {
      conditions.push('agent = ?');
      parameters.push(filter.agent);
    }
    if (filter.agents !== undefined) {
      if (filter.agents.length === 0) return [];
      conditions.push(`agent IN (${filter.agents.map(() => '?').join(', ')})`);
      parameters.push(...filter.agents);
    }
    if (filter.principal !== undefined) {
      conditions.push('principal = ?');
      parameters.push(filter.principal);
    }
    parameters.push(limit ?? -1);
    const sql = `SELECT * FROM runs${where(conditions)} ORDER BY created_at DESC, id DESC LIMIT ?`;
    const executor = this.#executor;
    const rows = await executor.read(
      'listing runs',
      () => executor.listStatement(sql).all(...parameters) as RunColumns[],
    );
    return rows.map(runRowFrom);
  }

  async loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]> {
    const statements = this.#statements();
    const rows = await this.#executor.read(`reading the journal of run ${runId}`, () =>
      statements.loadJournal.all(runId, afterSeq ?? Number.MIN_SAFE_INTEGER),
    );
    return rows.map((row) => storedRecordFrom(runId, row));
  }

  async lastSeq(runId: string): Promise<number> {
    const statements = this.#statements();
    const row = await this.#executor.read(`reading the journal of run ${runId}`, () => statements.lastSeq.get(runId));
    return row?.seq ?? 0;
  }

  async getPark(parkId: string): Promise<ParkRow | undefined> {
    const statements = this.#statements();
    const row = await this.#executor.read(`reading park ${parkId}`, () => statements.getPark.get(parkId));
    return row === undefined ? undefined : parkRowFrom(row);
  }

  async countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    const statements = this.#statements();
    const rows = await this.#executor.read('counting open parks', () => statements.countOpenParks.all());
    return Object.fromEntries(rows.map((row) => [row.kind, row.count]));
  }

  async listParks(filter: ParkFilter = {}): Promise<ParkRow[]> {
    const limit = checkLimit(filter.limit);
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (filter.status !== undefined) {
      conditions.push('status = ?');
      parameters.push(filter.status);
    }
    if (filter.runId !== undefined) {
      conditions.push('run_id = ?');
      parameters.push(filter.runId);
    }
    if (filter.kind !== undefined) {
      conditions.push('kind = ?');
      parameters.push(filter.kind);
    }
    // The same expression as the index parks_handle, named: the planner would rather use status's.
    const byHandle = filter.handle !== undefined;
    if (byHandle) {
      conditions.push("json_extract(park, '$.handle') = ?");
      parameters.push(filter.handle);
    }
    if (filter.agents !== undefined) {
      if (filter.agents.length === 0) return [];
      conditions.push(`run_id IN (SELECT id FROM runs WHERE agent IN (${filter.agents.map(() => '?').join(', ')}))`);
      parameters.push(...filter.agents);
    }
    if (filter.principal !== undefined) {
      conditions.push('principal = ?');
      parameters.push(filter.principal);
    }
    const newest = filter.order === 'newest';
    if (filter.after !== undefined) {
      conditions.push(`(created_at, id) ${newest ? '<' : '>'} (?, ?)`);
      parameters.push(filter.after.createdAt, filter.after.id);
    }
    parameters.push(limit ?? -1);
    const order = newest ? 'created_at DESC, id DESC' : 'created_at, id';
    const sql = `SELECT * FROM parks${byHandle ? ' INDEXED BY parks_handle' : ''}${where(conditions)} ORDER BY ${order} LIMIT ?`;
    const executor = this.#executor;
    const rows = await executor.read(
      'listing parks',
      () => executor.listStatement(sql).all(...parameters) as ParkColumns[],
    );
    return rows.map(parkRowFrom);
  }

  async putAllowance(allowance: Allowance): Promise<void> {
    const database = this.#executor.database;
    this.#executor.ready();
    await this.#executor.writeNow(`writing the allowance of ${allowance.tool} for ${allowance.agent}`, () => {
      database
        .prepare(
          'INSERT INTO allowances (agent, tool, decided_by, decided_at, park_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent, tool) DO UPDATE SET decided_by = excluded.decided_by, decided_at = excluded.decided_at, park_id = excluded.park_id',
        )
        .run(allowance.agent, allowance.tool, allowance.by, allowance.at, allowance.parkId);
    });
  }

  async listAllowances(): Promise<Allowance[]> {
    this.#executor.ready();
    const database = this.#executor.database;
    const rows = (await this.#executor.read('listing standing decisions', () =>
      database.prepare('SELECT * FROM allowances ORDER BY agent, tool').all(),
    )) as Array<{
      agent: string;
      tool: string;
      decided_by: string;
      decided_at: number;
      park_id: string;
    }>;
    return rows.map((row) => ({
      agent: row.agent,
      tool: row.tool,
      by: row.decided_by,
      at: row.decided_at,
      parkId: row.park_id,
    }));
  }
}
