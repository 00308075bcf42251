import type pg from 'pg';
import { type StateColumns, stateColumns } from '../columns.js';
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

/*
 * Sessions and state: each function is one transaction (durable when it resolves). A turn is
 * taken under the session row's lock (FOR UPDATE), so of two nodes starting a run in one session
 * at once, one wins.
 */

interface SessionColumns {
  readonly id: string;
  readonly agent: string;
  readonly app: string;
  readonly principal: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly runs: number;
  readonly last_run: string | null;
  readonly turn_at: string;
}

export async function createSession(client: pg.ClientBase, session: SessionRow): Promise<boolean> {
  const { rowCount } = await client.query({
    name: 'wardrik_create_session_v1',
    text: `INSERT INTO sessions (id, agent, app, principal, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (id) DO NOTHING`,
    values: [session.id, session.agent, session.app, session.principal, session.createdAt, session.updatedAt],
  });
  return rowCount === 1;
}

export async function getSession(client: pg.ClientBase, id: string): Promise<SessionRow | undefined> {
  const { rows } = await client.query<SessionColumns>({
    name: 'wardrik_get_session_v1',
    text: 'SELECT * FROM sessions WHERE id = $1',
    values: [id],
  });
  return rows[0] === undefined ? undefined : sessionFrom(rows[0]);
}

export async function listSessions(client: pg.ClientBase, filter: SessionFilter): Promise<SessionRow[]> {
  const { rows } = await client.query<SessionColumns>({
    text: `SELECT * FROM sessions
           WHERE ($1::text IS NULL OR agent = $1) AND ($2::text[] IS NULL OR agent = ANY($2))
             AND ($3::text IS NULL OR principal = $3)
           ORDER BY updated_at DESC, id DESC LIMIT $4`,
    values: [filter.agent ?? null, filter.agents ?? null, filter.principal ?? null, filter.limit ?? null],
  });
  return rows.map(sessionFrom);
}

export async function deleteSession(client: pg.ClientBase, id: string): Promise<boolean> {
  return transaction(client, async () => {
    const { rowCount } = await client.query('DELETE FROM sessions WHERE id = $1', [id]);
    if (rowCount === 0) return false;
    await client.query('DELETE FROM session_runs WHERE session_id = $1', [id]);
    await client.query('DELETE FROM state_values WHERE scope = $1', [`session:${id}`]);
    await client.query('DELETE FROM artifacts WHERE scope = $1', [`session:${id}`]);
    return true;
  });
}

export async function claimTurn(
  client: pg.ClientBase,
  sessionId: string,
  runId: string,
  at: number,
  startingMs: number,
): Promise<TurnClaim> {
  return transaction(client, async (): Promise<TurnClaim> => {
    const { rows } = await client.query<{ last_run: string | null; turn_at: string; status: string | null }>(
      `SELECT s.last_run, s.turn_at, r.status FROM sessions s LEFT JOIN runs r ON r.id = s.last_run
       WHERE s.id = $1 FOR UPDATE OF s`,
      [sessionId],
    );
    const session = rows[0];
    if (!session) return { claimed: false, missing: true };
    if (session.last_run === runId) return { claimed: true };
    if (session.last_run !== null) {
      const going =
        session.status === null
          ? at - Number(session.turn_at) < startingMs
          : session.status === 'running' || session.status === 'parked';
      if (going) return { claimed: false, activeRun: session.last_run };
    }
    await client.query(
      `UPDATE sessions SET last_run = $1, runs = runs + 1, updated_at = $2, turn_at = $2 WHERE id = $3`,
      [runId, at, sessionId],
    );
    await client.query(
      `INSERT INTO session_runs (session_id, position, run_id)
       VALUES ($1, (SELECT coalesce(max(position), 0) + 1 FROM session_runs WHERE session_id = $1), $2)`,
      [sessionId, runId],
    );
    return { claimed: true };
  });
}

export async function sessionRuns(client: pg.ClientBase, sessionId: string): Promise<string[]> {
  const { rows } = await client.query<{ run_id: string }>({
    name: 'wardrik_session_runs_v1',
    text: 'SELECT run_id FROM session_runs WHERE session_id = $1 ORDER BY position',
    values: [sessionId],
  });
  return rows.map((row) => row.run_id);
}

export async function loadState(client: pg.ClientBase, scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
  const { rows } = await client.query<{
    scope: string;
    key: string;
    value: string;
    labels: string;
    updated_at: string;
    updated_by: string;
  }>({
    name: 'wardrik_load_state_v1',
    text: 'SELECT * FROM state_values WHERE scope = ANY($1) ORDER BY scope, key',
    values: [scopes],
  });
  return rows.map((row) => ({
    scope: row.scope,
    key: row.key,
    value: JSON.parse(row.value),
    labels: JSON.parse(row.labels) as string[],
    updatedAt: Number(row.updated_at),
    updatedBy: row.updated_by,
  }));
}

/** Applies state writes in order, on a client inside the caller's transaction. */
export async function applyState(
  client: pg.ClientBase,
  writes: readonly StateColumns[],
  at: number,
  updatedBy: string,
): Promise<void> {
  for (const write of writes) {
    if (write.value === null) {
      await client.query({
        name: 'wardrik_delete_state_v1',
        text: 'DELETE FROM state_values WHERE scope = $1 AND key = $2',
        values: [write.scope, write.key],
      });
    } else {
      await client.query({
        name: 'wardrik_put_state_v1',
        text: `INSERT INTO state_values (scope, key, value, labels, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
               ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, labels = excluded.labels,
                 updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
        values: [write.scope, write.key, write.value, write.labels, at, updatedBy],
      });
    }
  }
}

export async function editState(client: pg.ClientBase, edit: StateEdit): Promise<void> {
  await transaction(client, async () => {
    const { rows } = await client.query<{ id: string }>("SELECT nextval('state_edit_ids') AS id");
    const id = Number(rows[0]?.id);
    for (const [scope, writes] of writesByScope(edit.writes)) {
      await client.query(
        'INSERT INTO state_edits (id, scope, at, edited_by, reason, writes) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, scope, edit.at, edit.by, edit.reason, JSON.stringify(writes)],
      );
    }
    await applyState(
      client,
      edit.writes.map((write) => stateColumns(write)),
      edit.at,
      `person:${edit.by}`,
    );
  });
}

export async function listStateEdits(client: pg.ClientBase, scope: StateScopeId): Promise<StoredStateEdit[]> {
  const { rows } = await client.query<{ id: string; at: string; edited_by: string; reason: string; writes: string }>(
    'SELECT id, at, edited_by, reason, writes FROM state_edits WHERE scope = $1 ORDER BY id',
    [scope],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    at: Number(row.at),
    by: row.edited_by,
    reason: row.reason,
    writes: JSON.parse(row.writes) as ScopedStateWrite[],
  }));
}

async function transaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (cause) {
    await client.query('ROLLBACK').catch(() => {});
    throw cause;
  }
}

function sessionFrom(row: SessionColumns): SessionRow {
  return {
    id: row.id,
    agent: row.agent,
    app: row.app,
    principal: row.principal,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    runs: row.runs,
    ...(row.last_run === null ? {} : { lastRun: row.last_run }),
  };
}
