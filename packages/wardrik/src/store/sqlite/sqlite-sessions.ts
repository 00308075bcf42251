import type Database from 'better-sqlite3';
import { type StateColumns, stateColumns } from '../columns.js';
import type { SessionStore } from '../session-store.js';
import {
  type ScopedStateWrite,
  type SessionFilter,
  type SessionRow,
  type StateEdit,
  type StateScopeId,
  type StoredStateEdit,
  type StoredStateValue,
  type TurnClaim,
  writesByScope,
} from '../session-store.js';
import type { SqliteExecutor } from './sqlite-executor.js';
import { DELETE_STATE_VALUE, PUT_STATE_VALUE } from './write-ops.js';

interface SessionColumns {
  readonly id: string;
  readonly agent: string;
  readonly app: string;
  readonly principal: string;
  readonly created_at: number;
  readonly updated_at: number;
  readonly runs: number;
  readonly last_run: string | null;
  readonly turn_at: number;
}

interface StateValueColumns {
  readonly scope: string;
  readonly key: string;
  readonly value: string;
  readonly labels: string;
  readonly updated_at: number;
  readonly updated_by: string;
}

/** Sessions and state on SQLite: synchronous functions, run by the store inside its reads and writes. */
export interface SqliteSessions {
  createSession(session: SessionRow): boolean;
  getSession(id: string): SessionRow | undefined;
  listSessions(filter: SessionFilter): SessionRow[];
  deleteSession(id: string): boolean;
  claimTurn(sessionId: string, runId: string, at: number, startingMs: number): TurnClaim;
  sessionRuns(sessionId: string): string[];
  loadState(scopes: readonly StateScopeId[]): StoredStateValue[];
  editState(edit: StateEdit): void;
  listStateEdits(scope: StateScopeId): StoredStateEdit[];
}

/** Prepares the statements of sessions and state (the schema is migrated already). */
export function prepareSessions(database: Database.Database): SqliteSessions {
  const insertSession = database.prepare<[string, string, string, string, number, number]>(
    `INSERT INTO sessions (id, agent, app, principal, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
  );
  const getSession = database.prepare<[string], SessionColumns>('SELECT * FROM sessions WHERE id = ?');
  const runStatus = database.prepare<[string], { status: string }>('SELECT status FROM runs WHERE id = ?');
  const takeTurn = database.prepare<[string, number, number, string]>(
    'UPDATE sessions SET last_run = ?, runs = runs + 1, updated_at = ?, turn_at = ? WHERE id = ?',
  );
  const addRun = database.prepare<[string, string, string]>(
    `INSERT INTO session_runs (session_id, position, run_id)
     VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM session_runs WHERE session_id = ?), ?)`,
  );
  const runsOf = database.prepare<[string], { run_id: string }>(
    'SELECT run_id FROM session_runs WHERE session_id = ? ORDER BY position',
  );
  const deleteSession = database.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  const deleteRuns = database.prepare<[string]>('DELETE FROM session_runs WHERE session_id = ?');
  const deleteScope = database.prepare<[string]>('DELETE FROM state_values WHERE scope = ?');
  const deleteArtifacts = database.prepare<[string]>('DELETE FROM artifacts WHERE scope = ?');
  const valuesOf = database.prepare<[string], StateValueColumns>(
    'SELECT * FROM state_values WHERE scope = ? ORDER BY key',
  );
  const putValue = database.prepare<[string, string, string, string, number, string]>(PUT_STATE_VALUE);
  const deleteValue = database.prepare<[string, string]>(DELETE_STATE_VALUE);
  const nextEdit = database.prepare<[], { id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM state_edits');
  const insertEdit = database.prepare<[number, string, number, string, string, string]>(
    'INSERT INTO state_edits (id, scope, at, edited_by, reason, writes) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const editsOf = database.prepare<
    [string],
    { id: number; at: number; edited_by: string; reason: string; writes: string }
  >('SELECT id, at, edited_by, reason, writes FROM state_edits WHERE scope = ? ORDER BY id');

  const apply = (writes: readonly StateColumns[], at: number, updatedBy: string): void => {
    for (const write of writes) {
      if (write.value === null) deleteValue.run(write.scope, write.key);
      else putValue.run(write.scope, write.key, write.value, write.labels, at, updatedBy);
    }
  };

  const claimTurn = database.transaction(
    (sessionId: string, runId: string, at: number, startingMs: number): TurnClaim => {
      const session = getSession.get(sessionId);
      if (!session) return { claimed: false, missing: true };
      if (session.last_run === runId) return { claimed: true };
      if (session.last_run !== null) {
        const status = runStatus.get(session.last_run)?.status;
        const going =
          status === undefined ? at - session.turn_at < startingMs : status === 'running' || status === 'parked';
        if (going) return { claimed: false, activeRun: session.last_run };
      }
      takeTurn.run(runId, at, at, sessionId);
      addRun.run(sessionId, sessionId, runId);
      return { claimed: true };
    },
  );

  const listStatements = new Map<string, Database.Statement<unknown[], SessionColumns>>();
  return {
    createSession: (session) =>
      insertSession.run(session.id, session.agent, session.app, session.principal, session.createdAt, session.updatedAt)
        .changes === 1,
    getSession: (id) => sessionFrom(getSession.get(id)),
    listSessions: (filter) => {
      const conditions: string[] = [];
      const parameters: unknown[] = [];
      if (filter.agent !== undefined) {
        conditions.push('agent = ?');
        parameters.push(filter.agent);
      }
      if (filter.agents !== undefined) {
        conditions.push(`agent IN (${filter.agents.map(() => '?').join(', ') || 'NULL'})`);
        parameters.push(...filter.agents);
      }
      if (filter.principal !== undefined) {
        conditions.push('principal = ?');
        parameters.push(filter.principal);
      }
      const where = conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
      const sql = `SELECT * FROM sessions${where} ORDER BY updated_at DESC, id DESC LIMIT ?`;
      let statement = listStatements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (listStatements.size < 64) listStatements.set(sql, statement);
      }
      return statement.all(...parameters, filter.limit ?? -1).map((row) => sessionFrom(row) as SessionRow);
    },
    deleteSession: database.transaction((id: string): boolean => {
      if (deleteSession.run(id).changes === 0) return false;
      deleteRuns.run(id);
      deleteScope.run(`session:${id}`);
      deleteArtifacts.run(`session:${id}`);
      return true;
    }),
    claimTurn: (sessionId, runId, at, startingMs) => claimTurn.immediate(sessionId, runId, at, startingMs),
    sessionRuns: (sessionId) => runsOf.all(sessionId).map((row) => row.run_id),
    loadState: (scopes) => scopes.flatMap((scope) => valuesOf.all(scope).map(stateValueFrom)),
    editState: database.transaction((edit: StateEdit): void => {
      const id = (nextEdit.get() as { id: number }).id;
      for (const [scope, writes] of writesByScope(edit.writes)) {
        insertEdit.run(id, scope, edit.at, edit.by, edit.reason, JSON.stringify(writes));
      }
      apply(
        edit.writes.map((write) => stateColumns(write)),
        edit.at,
        `person:${edit.by}`,
      );
    }),
    listStateEdits: (scope) =>
      editsOf.all(scope).map((row) => ({
        id: row.id,
        at: row.at,
        by: row.edited_by,
        reason: row.reason,
        writes: JSON.parse(row.writes) as ScopedStateWrite[],
      })),
  };
}

function sessionFrom(row: SessionColumns | undefined): SessionRow | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    agent: row.agent,
    app: row.app,
    principal: row.principal,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    runs: row.runs,
    ...(row.last_run === null ? {} : { lastRun: row.last_run }),
  };
}

function stateValueFrom(row: StateValueColumns): StoredStateValue {
  return {
    scope: row.scope,
    key: row.key,
    value: JSON.parse(row.value),
    labels: JSON.parse(row.labels) as string[],
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
  };
}

/**
 * Sessions and state on SQLite, as the store's part: reads wait for queued run writes (state rides
 * on them), writes are small ones of their own after the queue.
 */
export class SqliteSessionStore implements SessionStore {
  readonly #executor: SqliteExecutor;
  readonly #statements: () => SqliteSessions;

  constructor(executor: SqliteExecutor) {
    this.#executor = executor;
    this.#statements = executor.statements(prepareSessions);
  }

  createSession(session: SessionRow): Promise<boolean> {
    return this.#executor.writeNowResult('creating a session', () => this.#statements().createSession(session));
  }

  async getSession(id: string): Promise<SessionRow | undefined> {
    return this.#executor.read('reading a session', () => this.#statements().getSession(id));
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    return this.#executor.read('listing sessions', () => this.#statements().listSessions(filter));
  }

  deleteSession(id: string): Promise<boolean> {
    return this.#executor.writeNowResult('deleting a session', () => this.#statements().deleteSession(id));
  }

  claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim> {
    return this.#executor.writeNowResult("taking a session's turn", () =>
      this.#statements().claimTurn(sessionId, runId, at, startingMs),
    );
  }

  async sessionRuns(sessionId: string): Promise<string[]> {
    return this.#executor.read("listing a session's runs", () => this.#statements().sessionRuns(sessionId));
  }

  async loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
    // Every run reads its state once: without state writes queued, it need not commit the queue first.
    const query = () => this.#statements().loadState(scopes);
    const executor = this.#executor;
    return executor.commits.holdsStateWrites
      ? executor.read('reading state', query)
      : executor.readNow('reading state', query);
  }

  editState(edit: StateEdit): Promise<void> {
    return this.#executor.writeNowResult('editing state', () => this.#statements().editState(edit));
  }

  async listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]> {
    return this.#executor.read('listing state edits', () => this.#statements().listStateEdits(scope));
  }
}
