import type Database from 'better-sqlite3';
import type { ProcessLeases } from '../process-leases.js';
import type { ProcessSweepLock } from '../process-sweep-lock.js';
import type {
  AgentSelection,
  AppSelection,
  PurgeArtifactsQuery,
  PurgeMemoriesQuery,
  PurgeRunsQuery,
  PurgeSessionsQuery,
} from '../retention-store.js';
import {
  checkBatch,
  checkKeepVersions,
  checkPurgeRunsQuery,
  checkTime,
  type PurgedRuns,
  type RetentionStore,
} from '../retention-store.js';
import type { SqliteExecutor } from './sqlite-executor.js';

/**
 * Retention's queries on SQLite: synchronous, each batch one transaction, run by the store after
 * its queue of run writes is committed (`writeNow`). Their candidates are read through indexes
 * (runs by status and time, sessions by time, memories by time), so that a batch costs what it
 * deletes, not the size of the tables.
 */
export interface SqliteRetention {
  /** The runs a batch would purge (before the store leaves out those whose lease is held). */
  runCandidates(query: PurgeRunsQuery): string[];
  /** Deletes these runs and what belongs to them; resolves to the journal records deleted. */
  deleteRuns(runIds: readonly string[]): number;
  purgeSessions(query: PurgeSessionsQuery): number;
  purgeMemories(query: PurgeMemoriesQuery): number;
  purgeArtifactVersions(query: PurgeArtifactsQuery): number;
}

/** The app of an artifact scope, in SQL: `user:<app>:…`'s, a session's app, null for `run:<id>`. */
const SCOPE_APP = `(CASE
  WHEN substr(scope, 1, 5) = 'user:' THEN substr(scope, 6, instr(substr(scope, 6), ':') - 1)
  WHEN substr(scope, 1, 8) = 'session:' THEN (SELECT app FROM sessions WHERE id = substr(scope, 9))
END)`;

/** Prepares retention's statements (the schema is migrated already); `statement` caches the dynamic ones. */
export function prepareRetention(
  database: Database.Database,
  statement: (sql: string) => Database.Statement<unknown[], unknown>,
): SqliteRetention {
  const deleteJournal = database.prepare<[string]>('DELETE FROM journal WHERE run_id = ?');
  const deleteParks = database.prepare<[string]>('DELETE FROM parks WHERE run_id = ?');
  const deleteCancel = database.prepare<[string]>('DELETE FROM run_cancels WHERE run_id = ?');
  const deleteRunArtifacts = database.prepare<[string]>("DELETE FROM artifacts WHERE scope = 'run:' || ?");
  const deleteRun = database.prepare<[string]>('DELETE FROM runs WHERE id = ?');
  const deleteRuns = database.transaction((runIds: readonly string[]): number => {
    let records = 0;
    for (const runId of runIds) {
      records += deleteJournal.run(runId).changes;
      deleteParks.run(runId);
      deleteCancel.run(runId);
      deleteRunArtifacts.run(runId);
      deleteRun.run(runId);
    }
    return records;
  });

  const deleteSession = database.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  const deleteSessionRuns = database.prepare<[string]>('DELETE FROM session_runs WHERE session_id = ?');
  const deleteValues = database.prepare<[string]>('DELETE FROM state_values WHERE scope = ?');
  const deleteEdits = database.prepare<[string]>('DELETE FROM state_edits WHERE scope = ?');
  const deleteScopeArtifacts = database.prepare<[string]>('DELETE FROM artifacts WHERE scope = ?');
  const purgeSessions = database.transaction((query: PurgeSessionsQuery): number => {
    const { sql, parameters } = agentCondition(query.agents, 's.agent');
    const ids = statement(
      `SELECT s.id FROM sessions s WHERE s.updated_at < ?${sql}
         AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.last_run AND r.status IN ('running', 'parked'))
       ORDER BY s.updated_at, s.id LIMIT ?`,
    )
      .pluck()
      .all(query.idleBefore, ...parameters, query.limit) as string[];
    for (const id of ids) {
      deleteSession.run(id);
      deleteSessionRuns.run(id);
      deleteValues.run(`session:${id}`);
      deleteEdits.run(`session:${id}`);
      deleteScopeArtifacts.run(`session:${id}`);
    }
    return ids.length;
  });

  const unindexMemory = database.prepare<[number]>('DELETE FROM memories_fts WHERE rowid = ?');
  const deleteMemory = database.prepare<[number]>('DELETE FROM memories WHERE rowid = ?');
  const purgeMemories = database.transaction((query: PurgeMemoriesQuery): number => {
    const { sql, parameters } = appCondition(query.apps, 'app');
    const rowids = statement(`SELECT rowid FROM memories WHERE at < ?${sql} ORDER BY at LIMIT ?`)
      .pluck()
      .all(query.before, ...parameters, query.limit) as number[];
    for (const rowid of rowids) {
      unindexMemory.run(rowid);
      deleteMemory.run(rowid);
    }
    return rowids.length;
  });

  const deleteVersion = database.prepare<[string, string, number]>(
    'DELETE FROM artifacts WHERE scope = ? AND name = ? AND version = ?',
  );
  const purgeArtifactVersions = database.transaction((query: PurgeArtifactsQuery): number => {
    const { sql, parameters } = appCondition(query.apps, SCOPE_APP);
    const versions = statement(
      `SELECT scope, name, version FROM artifacts a
       WHERE version <= (SELECT max(version) FROM artifacts b WHERE b.scope = a.scope AND b.name = a.name) - ?${sql}
       LIMIT ?`,
    ).all(query.keepVersions, ...parameters, query.limit) as { scope: string; name: string; version: number }[];
    for (const version of versions) deleteVersion.run(version.scope, version.name, version.version);
    return versions.length;
  });

  return {
    runCandidates(query) {
      const { sql, parameters } = agentCondition(query.agents, 'agent');
      return statement(
        `SELECT id FROM runs WHERE status IN (${query.statuses.map(() => '?').join(', ')}) AND updated_at < ?${sql}
           AND NOT EXISTS (SELECT 1 FROM session_runs WHERE run_id = runs.id)
           AND NOT EXISTS (SELECT 1 FROM parks WHERE run_id = runs.id AND recorded = 0)
           AND NOT EXISTS (SELECT 1 FROM run_cancels WHERE run_id = runs.id)
         ORDER BY updated_at, id LIMIT ?`,
      )
        .pluck()
        .all(...query.statuses, query.before, ...parameters, query.limit) as string[];
    },
    deleteRuns: (runIds) => deleteRuns.immediate(runIds),
    purgeSessions: (query) => purgeSessions.immediate(query),
    purgeMemories: (query) => purgeMemories.immediate(query),
    purgeArtifactVersions: (query) => purgeArtifactVersions.immediate(query),
  };
}

/** ` AND …` narrowing a query to the selected agents (none: every agent). */
function agentCondition(
  selection: AgentSelection | undefined,
  column: string,
): { sql: string; parameters: readonly string[] } {
  if (selection === undefined) return { sql: '', parameters: [] };
  if ('agent' in selection) return { sql: ` AND ${column} = ?`, parameters: [selection.agent] };
  if (selection.exceptAgents.length === 0) return { sql: '', parameters: [] };
  return {
    sql: ` AND ${column} NOT IN (${selection.exceptAgents.map(() => '?').join(', ')})`,
    parameters: selection.exceptAgents,
  };
}

/** ` AND …` narrowing a query to the selected apps; `expression` gives a row's app (null: no app). */
function appCondition(
  selection: AppSelection | undefined,
  expression: string,
): { sql: string; parameters: readonly string[] } {
  if (selection === undefined) return { sql: '', parameters: [] };
  if ('app' in selection) return { sql: ` AND ${expression} = ?`, parameters: [selection.app] };
  if (selection.exceptApps.length === 0) return { sql: '', parameters: [] };
  return {
    sql: ` AND (${expression} IS NULL OR ${expression} NOT IN (${selection.exceptApps.map(() => '?').join(', ')}))`,
    parameters: selection.exceptApps,
  };
}

/**
 * What retention deletes on SQLite, as the store's part: each batch a write of its own after the
 * queue. One process holds the file, so the sweep's lock and the leases live in memory.
 */
export class SqliteRetentionStore implements RetentionStore {
  readonly #executor: SqliteExecutor;
  readonly #leases: ProcessLeases;
  readonly #sweepLock: ProcessSweepLock;
  readonly #statements: () => SqliteRetention;

  constructor(executor: SqliteExecutor, leases: ProcessLeases, sweepLock: ProcessSweepLock) {
    this.#executor = executor;
    this.#leases = leases;
    this.#sweepLock = sweepLock;
    this.#statements = executor.statements((database) =>
      prepareRetention(database, (sql) => executor.listStatement(sql)),
    );
  }

  async purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns> {
    checkPurgeRunsQuery(query);
    const retention = this.#statements();
    let purged: PurgedRuns = { runIds: [], records: 0 };
    await this.#executor.writeNow('purging runs', () => {
      // A run whose lease is held is being driven or given up right now: the next sweep takes it.
      const runIds = retention.runCandidates(query).filter((runId) => !this.#leases.isHeld(runId));
      const records = runIds.length === 0 ? 0 : retention.deleteRuns(runIds);
      for (const runId of runIds) this.#leases.forget(runId);
      purged = { runIds, records };
    });
    return purged;
  }

  async purgeSessions(query: PurgeSessionsQuery): Promise<number> {
    checkTime(query.idleBefore, 'idleBefore');
    checkBatch(query.limit);
    const retention = this.#statements();
    return this.#executor.writeNowResult('purging sessions', () => retention.purgeSessions(query));
  }

  async purgeMemories(query: PurgeMemoriesQuery): Promise<number> {
    checkTime(query.before, 'before');
    checkBatch(query.limit);
    const retention = this.#statements();
    return this.#executor.writeNowResult('purging memories', () => retention.purgeMemories(query));
  }

  async purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number> {
    checkKeepVersions(query.keepVersions);
    checkBatch(query.limit);
    const retention = this.#statements();
    return this.#executor.writeNowResult('purging artifact versions', () => retention.purgeArtifactVersions(query));
  }

  async claimSweep(holder: string, ttlMs: number): Promise<boolean> {
    this.#executor.checkUsable();
    return this.#sweepLock.claim(holder, ttlMs);
  }

  async releaseSweep(holder: string): Promise<void> {
    this.#sweepLock.release(holder);
  }
}
