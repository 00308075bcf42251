import { StoreError } from '../../errors.js';
import type { RetentionStore } from '../retention-store.js';
import {
  checkBatch,
  checkKeepVersions,
  checkPurgeRunsQuery,
  checkTime,
  type PurgeArtifactsQuery,
  type PurgedRuns,
  type PurgeMemoriesQuery,
  type PurgeRunsQuery,
  type PurgeSessionsQuery,
} from '../retention-store.js';
import type { PostgresExecutor } from './postgres-executor.js';
import * as retention from './retention-queries.js';

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new StoreError(`ttlMs must be a positive number of ms, got ${String(ttlMs)}`);
  }
}

/** What retention deletes on PostgreSQL, and the sweep's lock shared by the nodes. */
export class PostgresRetention implements RetentionStore {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns> {
    checkPurgeRunsQuery(query);
    // Reads of run data wait for what this node queued: a run ending now is on disk before it is judged.
    await this.#executor.barrier();
    return this.#executor.call('purging runs', (client) => retention.purgeRuns(client, query), { retry: true });
  }

  async purgeSessions(query: PurgeSessionsQuery): Promise<number> {
    checkTime(query.idleBefore, 'idleBefore');
    checkBatch(query.limit);
    return this.#executor.call('purging sessions', (client) => retention.purgeSessions(client, query), { retry: true });
  }

  async purgeMemories(query: PurgeMemoriesQuery): Promise<number> {
    checkTime(query.before, 'before');
    checkBatch(query.limit);
    return this.#executor.call('purging memories', (client) => retention.purgeMemories(client, query), { retry: true });
  }

  async purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number> {
    checkKeepVersions(query.keepVersions);
    checkBatch(query.limit);
    return this.#executor.call(
      'purging artifact versions',
      (client) => retention.purgeArtifactVersions(client, query),
      {
        retry: true,
      },
    );
  }

  async claimSweep(holder: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    return this.#executor.call(
      'claiming the retention sweep',
      (client) => retention.claimSweep(client, holder, ttlMs),
      {
        retry: true,
      },
    );
  }

  async releaseSweep(holder: string): Promise<void> {
    await this.#executor.call('releasing the retention sweep', (client) => retention.releaseSweep(client, holder), {
      retry: true,
    });
  }
}
