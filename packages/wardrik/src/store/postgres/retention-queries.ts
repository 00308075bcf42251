import type pg from 'pg';
import type {
  AgentSelection,
  AppSelection,
  PurgeArtifactsQuery,
  PurgedRuns,
  PurgeMemoriesQuery,
  PurgeRunsQuery,
  PurgeSessionsQuery,
} from '../retention-store.js';

/*
 * Retention's queries: each batch is one statement (one transaction) that picks its rows with
 * FOR UPDATE SKIP LOCKED — a row another node is writing or purging is left to the next batch —
 * and deletes them with everything that belongs to them. A run is picked only if no node holds a
 * live lease on it and no answer or cancel waits for it (a node may be about to drive it).
 */

/** `$n` and `$n+1`: one agent, or every agent except some (both null: every agent). */
function agentParameters(selection: AgentSelection | undefined): [string | null, string[] | null] {
  if (selection === undefined) return [null, null];
  return 'agent' in selection ? [selection.agent, null] : [null, [...selection.exceptAgents]];
}

function appParameters(selection: AppSelection | undefined): [string | null, string[] | null] {
  if (selection === undefined) return [null, null];
  return 'app' in selection ? [selection.app, null] : [null, [...selection.exceptApps]];
}

const PURGE_RUNS = `
  WITH victims AS (
    SELECT r.id FROM runs r
    WHERE r.status = ANY($1::text[]) AND r.updated_at < $2
      AND ($3::text IS NULL OR r.agent = $3)
      AND ($4::text[] IS NULL OR NOT (r.agent = ANY($4::text[])))
      AND NOT EXISTS (SELECT 1 FROM session_runs sr WHERE sr.run_id = r.id)
      AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.run_id = r.id AND l.node IS NOT NULL AND l.expires_at > now())
      AND NOT EXISTS (SELECT 1 FROM parks p WHERE p.run_id = r.id AND NOT p.recorded)
      AND NOT EXISTS (SELECT 1 FROM run_cancels c WHERE c.run_id = r.id)
    ORDER BY r.updated_at, r.id
    LIMIT $5
    FOR UPDATE SKIP LOCKED
  ),
  records AS (DELETE FROM journal j USING victims v WHERE j.run_id = v.id RETURNING 1),
  parks AS (DELETE FROM parks p USING victims v WHERE p.run_id = v.id),
  cancels AS (DELETE FROM run_cancels c USING victims v WHERE c.run_id = v.id),
  leases AS (DELETE FROM leases l USING victims v WHERE l.run_id = v.id),
  artifacts AS (DELETE FROM artifacts a USING victims v WHERE a.scope = 'run:' || v.id),
  deleted AS (DELETE FROM runs r USING victims v WHERE r.id = v.id RETURNING r.id)
  SELECT coalesce((SELECT array_agg(id ORDER BY id) FROM deleted), '{}') AS ids,
         (SELECT count(*) FROM records) AS records
`;

/** Purges a batch of runs (see `RetentionStore.purgeRuns`). */
export async function purgeRuns(client: pg.ClientBase, query: PurgeRunsQuery): Promise<PurgedRuns> {
  const { rows } = await client.query<{ ids: string[]; records: string }>({
    name: 'wardrik_purge_runs_v1',
    text: PURGE_RUNS,
    values: [[...query.statuses], query.before, ...agentParameters(query.agents), query.limit],
  });
  return { runIds: rows[0]?.ids ?? [], records: Number(rows[0]?.records ?? 0) };
}

const PURGE_SESSIONS = `
  WITH victims AS (
    SELECT s.id FROM sessions s
    WHERE s.updated_at < $1
      AND ($2::text IS NULL OR s.agent = $2)
      AND ($3::text[] IS NULL OR NOT (s.agent = ANY($3::text[])))
      AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.last_run AND r.status IN ('running', 'parked'))
    ORDER BY s.updated_at, s.id
    LIMIT $4
    FOR UPDATE SKIP LOCKED
  ),
  runs AS (DELETE FROM session_runs sr USING victims v WHERE sr.session_id = v.id),
  state_values AS (DELETE FROM state_values sv USING victims v WHERE sv.scope = 'session:' || v.id),
  state_edits AS (DELETE FROM state_edits se USING victims v WHERE se.scope = 'session:' || v.id),
  artifacts AS (DELETE FROM artifacts a USING victims v WHERE a.scope = 'session:' || v.id),
  deleted AS (DELETE FROM sessions s USING victims v WHERE s.id = v.id RETURNING 1)
  SELECT count(*) AS purged FROM deleted
`;

/** Purges a batch of idle sessions (see `RetentionStore.purgeSessions`). */
export async function purgeSessions(client: pg.ClientBase, query: PurgeSessionsQuery): Promise<number> {
  const { rows } = await client.query<{ purged: string }>({
    name: 'wardrik_purge_sessions_v1',
    text: PURGE_SESSIONS,
    values: [query.idleBefore, ...agentParameters(query.agents), query.limit],
  });
  return Number(rows[0]?.purged ?? 0);
}

const PURGE_MEMORIES = `
  WITH victims AS (
    SELECT id FROM memories
    WHERE at < $1 AND ($2::text IS NULL OR app = $2) AND ($3::text[] IS NULL OR NOT (app = ANY($3::text[])))
    ORDER BY at
    LIMIT $4
    FOR UPDATE SKIP LOCKED
  )
  DELETE FROM memories m USING victims v WHERE m.id = v.id
`;

/** Purges a batch of memories (see `RetentionStore.purgeMemories`). */
export async function purgeMemories(client: pg.ClientBase, query: PurgeMemoriesQuery): Promise<number> {
  const { rowCount } = await client.query({
    name: 'wardrik_purge_memories_v1',
    text: PURGE_MEMORIES,
    values: [query.before, ...appParameters(query.apps), query.limit],
  });
  return rowCount ?? 0;
}

/** The app of an artifact scope: `user:<app>:…`'s, a session's app, null for a run's. */
const SCOPE_APP = `(CASE
  WHEN left(scope, 5) = 'user:' THEN split_part(scope, ':', 2)
  WHEN left(scope, 8) = 'session:' THEN (SELECT app FROM sessions WHERE id = substr(scope, 9))
END)`;

const PURGE_ARTIFACT_VERSIONS = `
  WITH scoped AS (
    SELECT scope, name, version, ${SCOPE_APP} AS app FROM artifacts
  ),
  ranked AS (
    SELECT scope, name, version, max(version) OVER (PARTITION BY scope, name) AS newest FROM scoped
    WHERE ($2::text IS NULL OR app = $2) AND ($3::text[] IS NULL OR app IS NULL OR NOT (app = ANY($3::text[])))
  ),
  victims AS (SELECT scope, name, version FROM ranked WHERE version <= newest - $1 LIMIT $4)
  DELETE FROM artifacts a USING victims v WHERE a.scope = v.scope AND a.name = v.name AND a.version = v.version
`;

/** Purges a batch of old artifact versions (see `RetentionStore.purgeArtifactVersions`). */
export async function purgeArtifactVersions(client: pg.ClientBase, query: PurgeArtifactsQuery): Promise<number> {
  const { rowCount } = await client.query({
    name: 'wardrik_purge_artifact_versions_v1',
    text: PURGE_ARTIFACT_VERSIONS,
    values: [query.keepVersions, ...appParameters(query.apps), query.limit],
  });
  return rowCount ?? 0;
}

/** Takes (or extends) the retention sweep for `holder` unless another holder's claim is live. */
export async function claimSweep(client: pg.ClientBase, holder: string, ttlMs: number): Promise<boolean> {
  const { rows } = await client.query<{ holder: string }>({
    name: 'wardrik_claim_sweep_v1',
    text: `INSERT INTO retention_sweeps AS s (name, holder, expires_at)
           VALUES ('retention', $1, now() + $2::double precision * interval '1 millisecond')
           ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE s.holder = excluded.holder OR s.expires_at <= now()
           RETURNING holder`,
    values: [holder, ttlMs],
  });
  return rows.length > 0;
}

/** Gives the sweep up, if `holder` has it. */
export async function releaseSweep(client: pg.ClientBase, holder: string): Promise<void> {
  await client.query({
    name: 'wardrik_release_sweep_v1',
    text: `UPDATE retention_sweeps SET expires_at = '-infinity' WHERE name = 'retention' AND holder = $1`,
    values: [holder],
  });
}
