// The SQL of a batch write (see batch-write.ts, which chooses one and gives it its values).

/*
 * One statement applies a whole batch of writes (a group commit, or the write of a park answer):
 * it locks the leases the writes name (FOR SHARE, in run order, so that no node can take one of
 * those runs over until the transaction ends), keeps only the writes whose lease is still the
 * run's lease (node and epoch), applies those — run rows, journal records, parks, closed parks,
 * journaled answers, taken cancels, state writes (the last write of each key in the batch wins:
 * its value, or its deletion) — with one INSERT or UPDATE per table over arrays, and
 * notifies the last seq of each run that parked or ended (`appended`, delivered at commit: what
 * other nodes' waiters need at once; followers of a run's other records look every second, since a
 * NOTIFY in every commit serializes the commits of all nodes in PostgreSQL). It returns the writes it
 * refused and the leases it found for them. One round trip; run alone, it is its own transaction.
 *
 * The data-modifying parts of one statement do not see each other's rows, so a park inserted
 * and closed by the same batch is inserted closed, and a park's principal is taken from the
 * batch's own run rows (the latest one written up to that park's write) before the table's.
 */
export const BATCH_SQL = `
WITH writes AS (
  SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::bigint[]) AS w (i, run_id, node, epoch)
),
held AS (
  SELECT l.run_id, l.node, l.epoch FROM leases l
  WHERE l.run_id IN (SELECT w.run_id FROM writes w WHERE w.node IS NOT NULL)
  ORDER BY l.run_id
  FOR SHARE
),
applied AS (
  SELECT w.i, w.run_id, w.node IS NULL AS unleased FROM writes w
  WHERE w.node IS NULL
     OR EXISTS (SELECT 1 FROM held h WHERE h.run_id = w.run_id AND h.node = w.node AND h.epoch = w.epoch)
),
run_rows AS (
  SELECT r.* FROM unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::text[])
    AS r (i, id, agent, principal, status, created_at, updated_at, summary)
  WHERE r.i IN (SELECT a.i FROM applied a)
),
upserted_runs AS (
  INSERT INTO runs (id, agent, principal, status, created_at, updated_at, summary)
  SELECT DISTINCT ON (id) id, agent, principal, status, created_at, updated_at, summary
  FROM run_rows ORDER BY id, i DESC
  ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, principal = excluded.principal,
    status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at,
    summary = excluded.summary
),
free_leases AS (
  INSERT INTO leases (run_id, node, epoch, expires_at)
  SELECT DISTINCT r.id, NULL::text, 0, '-infinity'::timestamptz
  FROM run_rows r JOIN applied a ON a.i = r.i WHERE a.unleased
  ORDER BY r.id
  ON CONFLICT (run_id) DO NOTHING
),
records AS (
  SELECT a.run_id, j.seq, j.record FROM unnest($13::int[], $14::bigint[], $15::text[]) AS j (i, seq, record)
  JOIN applied a ON a.i = j.i
),
appended AS (
  INSERT INTO journal (run_id, seq, record) SELECT run_id, seq, record FROM records
),
closing AS (
  SELECT a.i, a.run_id, c.park_id FROM unnest($16::int[], $17::text[]) AS c (i, park_id)
  JOIN applied a ON a.i = c.i
),
new_parks AS (
  INSERT INTO parks (id, run_id, kind, status, principal, created_at, park)
  SELECT p.id, a.run_id, p.kind,
    CASE WHEN EXISTS (SELECT 1 FROM closing c WHERE c.park_id = p.id AND c.run_id = a.run_id AND c.i >= p.i)
      THEN 'closed' ELSE 'open' END,
    coalesce(
      (SELECT r.principal FROM run_rows r WHERE r.id = a.run_id AND r.i <= p.i ORDER BY r.i DESC LIMIT 1),
      (SELECT runs.principal FROM runs WHERE runs.id = a.run_id)),
    p.created_at, p.park
  FROM unnest($18::int[], $19::text[], $20::text[], $21::bigint[], $22::text[]) AS p (i, id, kind, created_at, park)
  JOIN applied a ON a.i = p.i
),
closed AS (
  UPDATE parks SET status = 'closed' FROM closing c
  WHERE parks.id = c.park_id AND parks.run_id = c.run_id AND parks.status = 'open'
),
recorded AS (
  UPDATE parks SET recorded = true
  FROM unnest($23::int[], $24::text[]) AS m (i, park_id) JOIN applied a ON a.i = m.i
  WHERE parks.id = m.park_id AND parks.run_id = a.run_id AND NOT parks.recorded
),
cancels_taken AS (
  DELETE FROM run_cancels WHERE run_id IN (SELECT a.run_id FROM applied a WHERE a.i = ANY ($25::int[]))
),
state_rows AS (
  SELECT a.run_id, t.i, t.ord, t.scope, t.key, t.value, t.labels, t.at
  FROM unnest($28::int[], $29::int[], $30::text[], $31::text[], $32::text[], $33::text[], $34::bigint[])
    AS t (i, ord, scope, key, value, labels, at)
  JOIN applied a ON a.i = t.i
),
state_last AS (
  SELECT DISTINCT ON (scope, key) * FROM state_rows ORDER BY scope, key, i DESC, ord DESC
),
state_put AS (
  INSERT INTO state_values (scope, key, value, labels, updated_at, updated_by)
  SELECT scope, key, value, labels, at, run_id FROM state_last WHERE value IS NOT NULL
  ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, labels = excluded.labels,
    updated_at = excluded.updated_at, updated_by = excluded.updated_by
),
state_deleted AS (
  DELETE FROM state_values v USING state_last d
  WHERE d.value IS NULL AND v.scope = d.scope AND v.key = d.key
),
notified AS (
  SELECT pg_notify($26, json_build_object('type', 'appended', 'runId', rec.run_id, 'seq', max(rec.seq), 'source', $27::text)::text)
  FROM records rec
  WHERE rec.run_id IN (SELECT r.id FROM run_rows r WHERE r.status <> 'running')
  GROUP BY rec.run_id
)
SELECT
  ARRAY(SELECT w.i FROM writes w WHERE w.i NOT IN (SELECT a.i FROM applied a) ORDER BY w.i) AS refused,
  (SELECT coalesce(json_agg(json_build_object('runId', h.run_id, 'node', h.node, 'epoch', h.epoch)), '[]')
     FROM held h) AS leases,
  (SELECT count(*) FROM notified) AS notified
`;

/** The batch statement's name: prepared once per connection. */
export const BATCH_STATEMENT = 'wardrik_batch_write_v3';

/*
 * The statement for a batch whose writes only append journal records (no run row, park, closed
 * park, journaled answer, taken cancel or state): the steady state of a run between parks, and most
 * flushes. The same fencing as BATCH_SQL (the leases the writes name locked FOR SHARE in run
 * order; only the records of writes whose lease is still the run's are inserted; it returns the
 * leases it found, which tell the writes refused) and nothing else: no run row is written, so no
 * run parked or ended, and there is nothing to notify. It costs about what a bare INSERT of the
 * records does, where the full statement's many parts took twice that to plan and run.
 */
export const APPEND_SQL = `
WITH held AS (
  SELECT l.run_id, l.node, l.epoch FROM leases l
  WHERE l.run_id = ANY ($1::text[])
  ORDER BY l.run_id
  FOR SHARE
),
appended AS (
  INSERT INTO journal (run_id, seq, record)
  SELECT j.run_id, j.seq, j.record
  FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[]) AS j (run_id, node, epoch, seq, record)
  WHERE j.node IS NULL
     OR EXISTS (SELECT 1 FROM held h WHERE h.run_id = j.run_id AND h.node = j.node AND h.epoch = j.epoch)
)
SELECT h.run_id AS "runId", h.node, h.epoch FROM held h
`;

/** The append statement's name: prepared once per connection. */
export const APPEND_STATEMENT = 'wardrik_append_write_v1';

/*
 * The append statement when every write of the batch names one and the same lease, and they hold
 * records (a run driven alone, between parks: the latency of each of its steps): the lease row
 * locked FOR SHARE only if it is still the run's lease, and the records inserted only if it was.
 * All or nothing, so the count of rows inserted tells whether the writes were applied; nothing is
 * returned, which spares the round of describing and parsing a result.
 */
export const SINGLE_LEASE_SQL = `
WITH held AS (
  SELECT 1 FROM leases l WHERE l.run_id = $1 AND l.node = $2 AND l.epoch = $3 FOR SHARE
)
INSERT INTO journal (run_id, seq, record)
SELECT $1, j.seq, j.record FROM unnest($4::bigint[], $5::text[]) AS j (seq, record)
WHERE EXISTS (SELECT 1 FROM held)
`;

/** The single-lease statement's name: prepared once per connection. */
export const SINGLE_LEASE_STATEMENT = 'wardrik_append_lease_v1';
