import { WardrikError } from '@wardrik/core';
import { LeaseLostError, ParkNotFoundError, StoreError } from '../../errors.js';
import type { ParkKind, StoredRecord } from '../../journal/records.js';
import { type ParkColumns, parkNotOpenError, type SerializedWrite, serializeWrite } from '../columns.js';
import type { RunMethods } from '../parts.js';
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
import { writeBatch } from './batch-write.js';
import { isStatementError, postgresFailure } from './postgres-errors.js';
import type { PostgresExecutor } from './postgres-executor.js';
import * as requestQueries from './request-queries.js';
import * as runs from './run-queries.js';
import { checkText } from './text.js';

/** Runs, journals, parks, standing decisions and requests on PostgreSQL: run writes ride the group commit, reads of run data wait for what this node queued. */
export class PostgresRuns implements RunMethods {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  write(write: RunWrite, options: { durable: boolean }): Promise<void> {
    let serialized: SerializedWrite;
    try {
      this.#executor.checkUsable();
      serialized = serializeWrite(write);
      checkText(serialized);
      if (serialized.lease && this.#executor.isLost(serialized.lease)) {
        const lease = serialized.lease;
        this.#executor.refused(1);
        throw new LeaseLostError(
          `run ${lease.runId}: node ${lease.node} no longer holds it (a write of its lease of epoch ${lease.epoch} was refused already)`,
        );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#executor.group.enqueue(serialized, serialized.records.length, options.durable);
  }

  async answerPark(answer: ParkAnswerWrite): Promise<void> {
    this.#executor.checkUsable();
    const write = serializeWrite(answer.write);
    checkText(write);
    await this.#executor.whenReady();
    await this.#executor.barrier();
    const client = await this.#executor.connect(`answering park ${answer.parkId}`);
    let broken: unknown;
    let committing = false;
    const began = performance.now();
    try {
      await client.query('BEGIN');
      if (write.lease) await this.#executor.checkLease(client, write);
      const answered = await client.query<{ run_id: string }>({
        name: 'wardrik_answer_park_v1',
        text: `UPDATE parks SET status = 'answered', decision = $1, answered_by = $2, answered_at = $3
               WHERE id = $4 AND status = 'open' RETURNING run_id`,
        values: [JSON.stringify(answer.decision), answer.by, answer.at, answer.parkId],
      });
      const runId = answered.rows[0]?.run_id;
      if (runId === undefined) {
        const { rows } = await client.query<ParkColumns>('SELECT * FROM parks WHERE id = $1', [answer.parkId]);
        if (rows[0] === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
        throw parkNotOpenError(answer.parkId, rows[0]);
      }
      if (runId !== write.runId) {
        throw new StoreError(`park ${answer.parkId} belongs to run ${runId}, not to run ${write.runId}`);
      }
      const [refused] = await writeBatch(client, [write], this.#executor.signalTarget);
      if (refused) throw refused;
      committing = true;
      await client.query('COMMIT');
    } catch (error) {
      if (!committing || isStatementError(error)) {
        // Nothing is committed: the server rolls an unfinished transaction back, if the connection broke too.
        if (isStatementError(error) || WardrikError.isInstance(error)) {
          await client.query('ROLLBACK').catch((rollback: unknown) => {
            broken = rollback;
          });
        } else broken = error;
        if (LeaseLostError.isInstance(error)) this.#executor.refused(1);
        throw postgresFailure(this.#executor.target, `answering park ${answer.parkId}`, error);
      }
      // The connection failed during COMMIT: the answer may or may not be committed, and this node can't know.
      broken = error;
      const failure = postgresFailure(
        this.#executor.target,
        `answering park ${answer.parkId} (whether it was committed is unknown, so the store fails)`,
        error,
      );
      this.#executor.fail(failure as StoreError);
      throw failure;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
    // Journaled outside the group commit, and told to commit listeners all the same.
    this.#executor.committedOutside(write, began);
  }

  async requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void> {
    this.#executor.checkUsable();
    await this.#executor.barrier();
    const runId = await this.#executor.call(
      `answering park ${answer.parkId}`,
      (client) => requestQueries.requestAnswer(client, answer, this.#executor.signalTarget),
      { retry: false },
    );
    this.#executor.signals.emit({ type: 'requested', runId });
  }

  async requestCancel(runId: string, reason: string, at: number): Promise<void> {
    this.#executor.checkUsable();
    await this.#executor.barrier();
    await this.#executor.call(
      `asking run ${runId} to cancel`,
      (client) => requestQueries.requestCancel(client, runId, reason, at, this.#executor.signalTarget),
      { retry: false },
    );
    this.#executor.signals.emit({ type: 'requested', runId });
  }

  async requests(runId: string): Promise<RunRequests> {
    return this.#executor.read(`reading the requests of run ${runId}`, (client) => runs.requests(client, runId));
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    return this.#executor.read(`reading run ${runId}`, (client) => runs.getRun(client, runId));
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    runs.listRunsQuery(filter); // checks the limit before anything else
    return this.#executor.read('listing runs', (client) => runs.listRuns(client, filter));
  }

  async loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]> {
    return this.#executor.read(`reading the journal of run ${runId}`, (client) =>
      runs.loadJournal(client, runId, afterSeq),
    );
  }

  async lastSeq(runId: string): Promise<number> {
    return this.#executor.read(`reading the journal of run ${runId}`, (client) => runs.lastSeq(client, runId));
  }

  async getPark(parkId: string): Promise<ParkRow | undefined> {
    return this.#executor.read(`reading park ${parkId}`, (client) => runs.getPark(client, parkId));
  }

  async countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    return this.#executor.read('counting open parks', (client) => runs.countOpenParks(client));
  }

  async listParks(filter: ParkFilter = {}): Promise<ParkRow[]> {
    runs.listParksQuery(filter);
    return this.#executor.read('listing parks', (client) => runs.listParks(client, filter));
  }

  async putAllowance(allowance: Allowance): Promise<void> {
    await this.#executor.call(
      `writing the allowance of ${allowance.tool} for ${allowance.agent}`,
      (client) => runs.putAllowance(client, allowance),
      { retry: false },
    );
  }

  async listAllowances(): Promise<Allowance[]> {
    return this.#executor.call('listing standing decisions', (client) => runs.listAllowances(client), { retry: true });
  }
}
