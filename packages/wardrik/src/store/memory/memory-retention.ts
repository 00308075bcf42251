import type { ProcessArtifacts } from '../process-artifacts.js';
import type { ProcessLeases } from '../process-leases.js';
import type { ProcessMemories } from '../process-memories.js';
import type { ProcessSessionStore } from '../process-session-store.js';
import type { ProcessSweepLock } from '../process-sweep-lock.js';
import {
  artifactScopeApp,
  checkBatch,
  checkKeepVersions,
  checkPurgeRunsQuery,
  checkTime,
  type PurgeArtifactsQuery,
  type PurgedRuns,
  type PurgeMemoriesQuery,
  type PurgeRunsQuery,
  type PurgeSessionsQuery,
  type RetentionStore,
} from '../retention-store.js';
import type { MemoryRuns } from './memory-runs.js';

/** The parts of the memory store retention deletes from. */
export interface MemoryRetentionParts {
  readonly check: () => void;
  readonly runs: MemoryRuns;
  readonly leases: ProcessLeases;
  readonly sessions: ProcessSessionStore;
  readonly memories: ProcessMemories;
  readonly artifacts: ProcessArtifacts;
  readonly sweepLock: ProcessSweepLock;
}

/** What retention deletes from the memory store: each purge asks the part that holds the data. */
export class MemoryRetention implements RetentionStore {
  readonly #parts: MemoryRetentionParts;

  constructor(parts: MemoryRetentionParts) {
    this.#parts = parts;
  }

  async purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns> {
    const { check, runs, leases, sessions, artifacts } = this.#parts;
    check();
    checkPurgeRunsQuery(query);
    const purged = runs.purge(query, (runId) => sessions.holdsRun(runId) || leases.isHeld(runId));
    for (const id of purged.runIds) {
      artifacts.deleteScope(`run:${id}`);
      leases.forget(id);
    }
    return purged;
  }

  async purgeSessions(query: PurgeSessionsQuery): Promise<number> {
    checkTime(query.idleBefore, 'idleBefore');
    checkBatch(query.limit);
    const ids = this.#parts.sessions.purgeIdle(query);
    for (const id of ids) this.#parts.artifacts.deleteScope(`session:${id}`);
    return ids.length;
  }

  async purgeMemories(query: PurgeMemoriesQuery): Promise<number> {
    checkTime(query.before, 'before');
    checkBatch(query.limit);
    return this.#parts.memories.purgeBefore(query);
  }

  async purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number> {
    checkKeepVersions(query.keepVersions);
    checkBatch(query.limit);
    const { artifacts, sessions } = this.#parts;
    return artifacts.purgeVersions(query, (scope) => artifactScopeApp(scope, (sessionId) => sessions.appOf(sessionId)));
  }

  async claimSweep(holder: string, ttlMs: number): Promise<boolean> {
    this.#parts.check();
    return this.#parts.sweepLock.claim(holder, ttlMs);
  }

  async releaseSweep(holder: string): Promise<void> {
    this.#parts.sweepLock.release(holder);
  }
}
