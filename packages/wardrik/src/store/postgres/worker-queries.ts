import type pg from 'pg';
import type { Principal } from '../../auth/types.js';
import { StoreError } from '../../errors.js';
import type { Heartbeat, NodeMessage, OfferList, Pulse, StoredOffer, WorkerOffer } from '../worker-store.js';
import type { SignalTarget } from './batch-write.js';

/*
 * The nodes' worker registry and mail (see `WorkerStore`). Liveness is judged by the database's
 * clock (`now()`), never a node's; a connection time is the database's `clock_timestamp()`. Each
 * change another node must hear of notifies in the statement that makes it (delivered at commit).
 */

/** How long a dead node's row, offers and mail are kept before they are forgotten (ms). */
const FORGET_DEAD_NODES_MS = 60_000;

/** A node's beat: alive for $3 ms more; its workers' loads ($4); forgets nodes dead for $5 ms and what they left. */
const BEAT = `
  WITH prev AS (
    SELECT expires_at > now() AS alive FROM worker_nodes WHERE id = $1
  ),
  me AS (
    INSERT INTO worker_nodes (id, name, expires_at)
    VALUES ($1, $2, now() + $3::double precision * interval '1 millisecond')
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, expires_at = excluded.expires_at
    RETURNING id
  ),
  loads AS (
    UPDATE worker_offers o SET load = l.value::integer
    FROM json_each_text($4::json) l
    WHERE o.node_id = $1 AND o.worker_id = l.key
    RETURNING o.worker_id
  ),
  gone AS (
    DELETE FROM worker_nodes
    WHERE id <> $1 AND expires_at < now() - $5::double precision * interval '1 millisecond'
    RETURNING id
  ),
  gone_offers AS (
    DELETE FROM worker_offers WHERE node_id IN (SELECT id FROM gone) RETURNING worker_id
  ),
  gone_mail AS (
    DELETE FROM worker_mail m
    WHERE m.posted_at < now() - $5::double precision * interval '1 millisecond'
      AND (m.to_node IN (SELECT id FROM gone) OR NOT EXISTS (SELECT 1 FROM worker_nodes n WHERE n.id = m.to_node))
    RETURNING m.id
  )
  SELECT
    coalesce((SELECT alive FROM prev), false) AS continued,
    coalesce(
      (SELECT json_agg(json_build_array(n.id, n.name)) FROM worker_nodes n WHERE n.expires_at > now() AND n.id <> $1),
      '[]'::json
    ) AS nodes,
    coalesce(
      (SELECT json_agg(json_build_array(o.worker_id, o.load))
       FROM worker_offers o JOIN worker_nodes n ON n.id = o.node_id
       WHERE n.expires_at > now() AND o.node_id <> $1 AND o.load > 0),
      '[]'::json
    ) AS loads,
    (SELECT version::text FROM worker_registry) AS version
`;

const PUT_OFFER = `
  WITH up AS (
    INSERT INTO worker_offers AS o (worker_id, node_id, node_name, principal, tools, rejected, revision, connected_at, load)
    VALUES ($1, $2, $3, $4, $5, $6, $7, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, 0)
    ON CONFLICT (worker_id) DO UPDATE
      SET node_name = excluded.node_name, principal = excluded.principal, tools = excluded.tools,
          rejected = excluded.rejected, revision = excluded.revision
      WHERE o.node_id = excluded.node_id
    RETURNING o.connected_at
  ),
  bumped AS (
    UPDATE worker_registry SET version = version + 1 WHERE EXISTS (SELECT 1 FROM up) RETURNING version
  ),
  notified AS (
    SELECT pg_notify($8, json_build_object('type', 'workers-changed', 'from', $2::text, 'source', $9::text)::text)
    FROM up
  )
  SELECT (SELECT connected_at FROM up) AS connected_at, (SELECT count(*) FROM notified) AS notified
`;

const REMOVE_OFFER = `
  WITH gone AS (
    DELETE FROM worker_offers WHERE worker_id = $1 RETURNING node_id
  ),
  bumped AS (
    UPDATE worker_registry SET version = version + 1 WHERE EXISTS (SELECT 1 FROM gone) RETURNING version
  ),
  notified AS (
    SELECT pg_notify($2, json_build_object('type', 'workers-changed', 'from', node_id, 'source', $3::text)::text)
    FROM gone
  )
  SELECT (SELECT count(*) FROM notified) AS removed
`;

const LEAVE = `
  WITH node AS (
    DELETE FROM worker_nodes WHERE id = $1 RETURNING id
  ),
  gone AS (
    DELETE FROM worker_offers WHERE node_id = $1 RETURNING worker_id
  ),
  bumped AS (
    UPDATE worker_registry SET version = version + 1 WHERE EXISTS (SELECT 1 FROM gone) RETURNING version
  ),
  notified AS (
    SELECT pg_notify($2, json_build_object('type', 'workers-changed', 'from', $1::text, 'source', $3::text)::text)
    WHERE EXISTS (SELECT 1 FROM gone)
  )
  SELECT (SELECT count(*) FROM notified) AS notified, (SELECT count(*) FROM node) AS left_nodes
`;

/** The offers of live nodes, oldest first, with the registry's version in the same snapshot (one row with nulls if none). */
const LIST_OFFERS = `
  SELECT r.version::text AS version, o.worker_id, o.node_id, o.node_name, o.principal, o.tools, o.rejected,
         o.revision, o.connected_at, o.load
  FROM worker_registry r
  LEFT JOIN (worker_offers o JOIN worker_nodes n ON n.id = o.node_id AND n.expires_at > now()) ON true
  ORDER BY o.connected_at, o.worker_id
`;

const POST = `
  WITH target AS (
    SELECT id FROM worker_nodes WHERE id = $2 AND expires_at > now()
  ),
  posted AS (
    INSERT INTO worker_mail (id, to_node, from_node, body) SELECT $1, id, $3, $4 FROM target RETURNING to_node
  ),
  notified AS (
    SELECT pg_notify($5, json_build_object('type', 'mail', 'to', to_node, 'source', $6::text)::text) FROM posted
  )
  SELECT (SELECT count(*) FROM posted) AS posted, (SELECT count(*) FROM notified) AS notified
`;

/** At most this many messages are taken at once (the caller takes again while a batch is full). */
export const TAKE_BATCH = 1_000;

const TAKE_MAIL = `
  DELETE FROM worker_mail WHERE id IN (
    SELECT id FROM worker_mail WHERE to_node = $1 ORDER BY seq LIMIT ${TAKE_BATCH} FOR UPDATE SKIP LOCKED
  )
  RETURNING id, from_node, body, seq
`;

const WITHDRAW = 'DELETE FROM worker_mail WHERE id = $1 RETURNING id';

const NOTE = `SELECT pg_notify($1, json_build_object('type', 'note', 'to', $2::text, 'body', $3::text, 'source', $4::text)::text)`;

/** Keeps a node alive and says who else is (see `WorkerStore.beat`). */
export async function beat(client: pg.ClientBase, heartbeat: Heartbeat): Promise<Pulse> {
  const { rows } = await client.query<{
    continued: boolean;
    nodes: Array<[string, string]>;
    loads: Array<[string, number]>;
    version: string;
  }>({
    name: 'wardrik_worker_beat_v1',
    text: BEAT,
    values: [
      heartbeat.node.id,
      heartbeat.node.name,
      heartbeat.ttlMs,
      JSON.stringify(heartbeat.loads ?? {}),
      FORGET_DEAD_NODES_MS,
    ],
  });
  const row = rows[0];
  if (row === undefined) throw new StoreError('the beat returned no row');
  return {
    continued: row.continued,
    nodes: new Map(row.nodes),
    offersVersion: row.version,
    loads: new Map(row.loads),
  };
}

/** The node stops: its row and offers go (see `WorkerStore.leave`). */
export async function leave(client: pg.ClientBase, nodeId: string, signals: SignalTarget): Promise<void> {
  await client.query({
    name: 'wardrik_worker_leave_v1',
    text: LEAVE,
    values: [nodeId, signals.channel, signals.source],
  });
}

/** Writes a worker's offer; returns its connection time (see `WorkerStore.putOffer`). */
export async function putOffer(client: pg.ClientBase, offer: WorkerOffer, signals: SignalTarget): Promise<number> {
  const { rows } = await client.query<{ connected_at: number | null }>({
    name: 'wardrik_worker_put_offer_v1',
    text: PUT_OFFER,
    values: [
      offer.workerId,
      offer.node.id,
      offer.node.name,
      JSON.stringify(offer.principal),
      JSON.stringify(offer.tools),
      JSON.stringify(offer.rejected),
      offer.revision,
      signals.channel,
      signals.source,
    ],
  });
  const connectedAt = rows[0]?.connected_at;
  if (connectedAt === null || connectedAt === undefined) {
    throw new StoreError(`worker ${offer.workerId} is offered by another node`);
  }
  return connectedAt;
}

/** Removes a worker's offer, if any. */
export async function removeOffer(client: pg.ClientBase, workerId: string, signals: SignalTarget): Promise<void> {
  await client.query({
    name: 'wardrik_worker_remove_offer_v1',
    text: REMOVE_OFFER,
    values: [workerId, signals.channel, signals.source],
  });
}

interface OfferColumns {
  version: string;
  worker_id: string | null;
  node_id: string;
  node_name: string;
  principal: string;
  tools: string;
  rejected: string;
  revision: number;
  connected_at: number;
  load: number;
}

/**
 * The offers of live nodes. A row whose JSON does not parse is left out (a node's bad write must
 * not keep the others from routing); the hub checks every field of what is returned.
 */
export async function listOffers(client: pg.ClientBase): Promise<OfferList> {
  const { rows } = await client.query<OfferColumns>({ name: 'wardrik_worker_list_offers_v1', text: LIST_OFFERS });
  const offers: StoredOffer[] = [];
  for (const row of rows) {
    if (row.worker_id === null) continue;
    try {
      offers.push({
        workerId: row.worker_id,
        node: { id: row.node_id, name: row.node_name },
        principal: JSON.parse(row.principal) as Principal,
        tools: JSON.parse(row.tools) as unknown[],
        rejected: JSON.parse(row.rejected) as StoredOffer['rejected'],
        revision: row.revision,
        connectedAt: row.connected_at,
        load: row.load,
      });
    } catch {
      // Not JSON: left out.
    }
  }
  return { version: rows[0]?.version ?? '0', offers };
}

/** Leaves a message for a live node; false if it is not alive. */
export async function post(
  client: pg.ClientBase,
  to: string,
  message: NodeMessage,
  signals: SignalTarget,
): Promise<boolean> {
  const { rows } = await client.query<{ posted: number }>({
    name: 'wardrik_worker_post_v1',
    text: POST,
    values: [message.id, to, message.from, message.body, signals.channel, signals.source],
  });
  return (rows[0]?.posted ?? 0) > 0;
}

/** Takes up to `TAKE_BATCH` messages left for a node, oldest first. */
export async function takeMail(client: pg.ClientBase, nodeId: string): Promise<NodeMessage[]> {
  const { rows } = await client.query<{ id: string; from_node: string; body: string; seq: number }>({
    name: 'wardrik_worker_take_mail_v1',
    text: TAKE_MAIL,
    values: [nodeId],
  });
  return rows.sort((a, b) => a.seq - b.seq).map((row) => ({ id: row.id, from: row.from_node, body: row.body }));
}

/** Removes a message not taken yet; whether it was there. */
export async function withdraw(client: pg.ClientBase, messageId: string): Promise<boolean> {
  const { rowCount } = await client.query({ name: 'wardrik_worker_withdraw_v1', text: WITHDRAW, values: [messageId] });
  return (rowCount ?? 0) > 0;
}

/** Sends a `note` signal to a node. */
export async function note(client: pg.ClientBase, to: string, body: string, signals: SignalTarget): Promise<void> {
  await client.query({
    name: 'wardrik_worker_note_v1',
    text: NOTE,
    values: [signals.channel, to, body, signals.source],
  });
}
