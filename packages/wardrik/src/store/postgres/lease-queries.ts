import type pg from 'pg';
import type { ClaimOptions, Lease, LeaseHolderState, LeaseTerms } from '../run-store.js';
import type { SignalTarget } from './batch-write.js';

/*
 * Leases, judged by the database's clock: every expiry is `now() + leaseMs` and every check is
 * against `now()` in SQL, never a node's Date.now(), so a node whose clock runs ahead or behind
 * cannot keep a run it lost nor take one early. A released lease keeps its row (node null) and
 * its epoch, so the next holder gets a higher one.
 */

/** A run needs driving: running, or parked with a request (an answer or a cancel) waiting for its holder. */
const NEEDS_DRIVING = `
  SELECT runs.id AS run_id FROM runs WHERE runs.status = 'running'
  UNION
  SELECT p.run_id FROM parks p JOIN runs ON runs.id = p.run_id WHERE NOT p.recorded AND runs.status = 'parked'
  UNION
  SELECT c.run_id FROM run_cancels c JOIN runs ON runs.id = c.run_id WHERE runs.status = 'parked'
`;

/**
 * Takes the run if its lease is free (no row, released, or expired) or a predecessor of the node
 * holds it (same name, another incarnation), with the next epoch; or renews the lease this
 * incarnation holds already (same epoch). No row if another node holds it.
 */
const CLAIM_RUN = `
  INSERT INTO leases AS l (run_id, node, incarnation, epoch, expires_at)
  VALUES ($1, $2, $4, 1, now() + $3::double precision * interval '1 millisecond')
  ON CONFLICT (run_id) DO UPDATE
    SET node = excluded.node,
        incarnation = excluded.incarnation,
        epoch = CASE
          WHEN l.node = excluded.node AND l.incarnation = excluded.incarnation AND l.expires_at > now() THEN l.epoch
          ELSE l.epoch + 1 END,
        expires_at = excluded.expires_at
    WHERE l.node IS NULL OR l.expires_at <= now() OR l.node = excluded.node
  RETURNING l.epoch
`;

/**
 * Takes up to $2 runs that need driving and nobody holds. SKIP LOCKED: a lease another node is
 * taking (or a write is fencing) is left to it, so concurrent claimers never get the same run and
 * never wait for each other. The longest-free runs first.
 */
const CLAIM_RUNS = `
  WITH free AS (
    SELECT l.run_id FROM leases l
    WHERE l.run_id IN (${NEEDS_DRIVING})
      AND (l.node IS NULL OR l.expires_at <= now()
           OR ($6 AND l.node = $1 AND l.incarnation IS DISTINCT FROM $5))
      AND ($4::text[] IS NULL OR l.run_id IN (SELECT id FROM runs WHERE agent = ANY($4::text[])))
    ORDER BY l.expires_at, l.run_id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  UPDATE leases l SET node = $1, incarnation = $5, epoch = l.epoch + 1,
    expires_at = now() + $3::double precision * interval '1 millisecond'
  FROM free WHERE l.run_id = free.run_id
  RETURNING l.run_id, l.epoch
`;

/**
 * Extends every live lease of this incarnation of a node (never its predecessor's, held under the
 * same name): one statement however many runs. The rows are locked in run order first, the order
 * a batch write locks them in, so a renewal and a write never deadlock.
 */
const RENEW_LEASES = `
  UPDATE leases SET expires_at = now() + $2::double precision * interval '1 millisecond'
  WHERE run_id IN (
    SELECT run_id FROM leases WHERE node = $1 AND incarnation = $3 AND expires_at > now()
    ORDER BY run_id FOR UPDATE
  )
  RETURNING run_id
`;

/** Gives a lease up if it is still the run's lease, and says `claimable` if the run needs driving. */
const RELEASE_LEASE = `
  WITH released AS (
    UPDATE leases SET node = NULL, expires_at = '-infinity'
    WHERE run_id = $1 AND node = $2 AND epoch = $3
    RETURNING run_id
  ),
  claimable AS (
    SELECT pg_notify($4, json_build_object('type', 'claimable', 'runId', r.run_id, 'source', $5::text)::text)
    FROM released r WHERE r.run_id IN (${NEEDS_DRIVING})
  )
  SELECT (SELECT count(*) FROM released) AS released, (SELECT count(*) FROM claimable) AS claimable
`;

/** Takes `runId` for `terms.node` (see `RunStore.claimRun`); works for a run with no row yet. */
export async function claimRun(client: pg.ClientBase, runId: string, terms: LeaseTerms): Promise<Lease | undefined> {
  const { rows } = await client.query<{ epoch: number }>({
    name: 'wardrik_claim_run_v2',
    text: CLAIM_RUN,
    values: [runId, terms.node, terms.leaseMs, terms.incarnation],
  });
  const row = rows[0];
  return row === undefined ? undefined : { runId, node: terms.node, epoch: row.epoch };
}

/** Takes up to `limit` runs that need driving and nobody holds (see `RunStore.claimRuns`). */
export async function claimRuns(
  client: pg.ClientBase,
  terms: LeaseTerms,
  limit: number,
  options: ClaimOptions,
): Promise<Lease[]> {
  const { agents, predecessors = false } = options;
  const { rows } = await client.query<{ run_id: string; epoch: number }>({
    name: 'wardrik_claim_runs_v3',
    text: CLAIM_RUNS,
    values: [terms.node, limit, terms.leaseMs, agents ? [...agents] : null, terms.incarnation, predecessors],
  });
  return rows.map((row) => ({ runId: row.run_id, node: terms.node, epoch: row.epoch }));
}

/** Extends the node's live leases; returns the runs it still holds. */
export async function renewLeases(client: pg.ClientBase, terms: LeaseTerms): Promise<Set<string>> {
  const { rows } = await client.query<{ run_id: string }>({
    name: 'wardrik_renew_leases_v2',
    text: RENEW_LEASES,
    values: [terms.node, terms.leaseMs, terms.incarnation],
  });
  return new Set(rows.map((row) => row.run_id));
}

/** `alive` while the incarnation holds a live lease (by the database's clock), else `unknown`: it may be paused. */
export async function holderState(client: pg.ClientBase, node: string, incarnation: string): Promise<LeaseHolderState> {
  const { rows } = await client.query<{ alive: boolean }>({
    name: 'wardrik_lease_holder_alive_v1',
    text: 'SELECT EXISTS (SELECT 1 FROM leases WHERE node = $1 AND incarnation = $2 AND expires_at > now()) AS alive',
    values: [node, incarnation],
  });
  return rows[0]?.alive ? 'alive' : 'unknown';
}

/** Releases `lease` if it is still the run's lease. Returns whether it was, and whether the run is claimable. */
export async function releaseLease(
  client: pg.ClientBase,
  lease: Lease,
  signals: SignalTarget,
): Promise<{ released: boolean; claimable: boolean }> {
  const { rows } = await client.query<{ released: number; claimable: number }>({
    name: 'wardrik_release_lease_v1',
    text: RELEASE_LEASE,
    values: [lease.runId, lease.node, lease.epoch, signals.channel, signals.source],
  });
  return { released: (rows[0]?.released ?? 0) > 0, claimable: (rows[0]?.claimable ?? 0) > 0 };
}
