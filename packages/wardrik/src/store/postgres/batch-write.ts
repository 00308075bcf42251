import type pg from 'pg';
import { LeaseLostError, StoreError } from '../../errors.js';
import type { SerializedWrite } from '../columns.js';
import type { Lease } from '../store.js';
import {
  APPEND_SQL,
  APPEND_STATEMENT,
  BATCH_SQL,
  BATCH_STATEMENT,
  SINGLE_LEASE_SQL,
  SINGLE_LEASE_STATEMENT,
} from './batch-statements.js';
import type { Outcomes } from './group-commit.js';

/** A lease as the statements find it. */
interface Held {
  readonly runId: string;
  readonly node: string | null;
  readonly epoch: number;
}

interface BatchResult {
  readonly refused: number[];
  readonly leases: Held[];
}

/** Where the batch's signals go. */
export interface SignalTarget {
  readonly channel: string;
  /** This store's id, so that it can tell its own notifications from other nodes'. */
  readonly source: string;
}

/** The statement's values: one array per column, every row tagged with the index of its write. */
function batchValues(writes: readonly SerializedWrite[], signals: SignalTarget): unknown[] {
  const w = { i: [] as number[], run: [] as string[], node: [] as (string | null)[], epoch: [] as (number | null)[] };
  const r = {
    i: [] as number[],
    id: [] as string[],
    agent: [] as string[],
    principal: [] as string[],
    status: [] as string[],
    created: [] as number[],
    updated: [] as number[],
    summary: [] as string[],
  };
  const j = { i: [] as number[], seq: [] as number[], record: [] as string[] };
  const c = { i: [] as number[], park: [] as string[] };
  const p = {
    i: [] as number[],
    id: [] as string[],
    kind: [] as string[],
    created: [] as number[],
    park: [] as string[],
  };
  const m = { i: [] as number[], park: [] as string[] };
  const cancels: number[] = [];
  const t = {
    i: [] as number[],
    ord: [] as number[],
    scope: [] as string[],
    key: [] as string[],
    value: [] as (string | null)[],
    labels: [] as string[],
    at: [] as number[],
  };
  writes.forEach((write, i) => {
    w.i.push(i);
    w.run.push(write.runId);
    w.node.push(write.lease?.node ?? null);
    w.epoch.push(write.lease?.epoch ?? null);
    if (write.run) {
      r.i.push(i);
      r.id.push(write.run.id);
      r.agent.push(write.run.agent);
      r.principal.push(write.run.principal);
      r.status.push(write.run.status);
      r.created.push(write.run.created_at);
      r.updated.push(write.run.updated_at);
      r.summary.push(write.run.summary);
    }
    for (const record of write.records) {
      j.i.push(i);
      j.seq.push(record.seq);
      j.record.push(record.record);
    }
    for (const parkId of write.closeParks) {
      c.i.push(i);
      c.park.push(parkId);
    }
    for (const park of write.parks) {
      p.i.push(i);
      p.id.push(park.id);
      p.kind.push(park.kind);
      p.created.push(park.created_at);
      p.park.push(park.park);
    }
    for (const parkId of write.recordedAnswers) {
      m.i.push(i);
      m.park.push(parkId);
    }
    if (write.cancelTaken) cancels.push(i);
    write.state.forEach((each, ord) => {
      t.i.push(i);
      t.ord.push(ord);
      t.scope.push(each.scope);
      t.key.push(each.key);
      t.value.push(each.value);
      t.labels.push(each.labels);
      t.at.push(write.stateAt);
    });
  });
  return [
    w.i,
    w.run,
    w.node,
    w.epoch,
    r.i,
    r.id,
    r.agent,
    r.principal,
    r.status,
    r.created,
    r.updated,
    r.summary,
    j.i,
    j.seq,
    j.record,
    c.i,
    c.park,
    p.i,
    p.id,
    p.kind,
    p.created,
    p.park,
    m.i,
    m.park,
    cancels,
    signals.channel,
    signals.source,
    t.i,
    t.ord,
    t.scope,
    t.key,
    t.value,
    t.labels,
    t.at,
  ];
}

/** Whether a write only appends journal records (what {@link APPEND_SQL} can apply). */
function appendsOnly(write: SerializedWrite): boolean {
  return (
    write.run === undefined &&
    write.parks.length === 0 &&
    write.closeParks.length === 0 &&
    write.recordedAnswers.length === 0 &&
    !write.cancelTaken &&
    write.state.length === 0
  );
}

/**
 * The append statement's values: the runs whose leases the writes name, then every record with
 * its run and the lease its write names (so that the statement keeps the records of writes whose
 * lease is the run's, and nothing else).
 */
function appendValues(writes: readonly SerializedWrite[]): unknown[] {
  const leased = new Set<string>();
  const j = {
    run: [] as string[],
    node: [] as (string | null)[],
    epoch: [] as (number | null)[],
    seq: [] as number[],
    record: [] as string[],
  };
  for (const write of writes) {
    const node = write.lease?.node ?? null;
    const epoch = write.lease?.epoch ?? null;
    if (write.lease) leased.add(write.runId);
    for (const record of write.records) {
      j.run.push(write.runId);
      j.node.push(node);
      j.epoch.push(epoch);
      j.seq.push(record.seq);
      j.record.push(record.record);
    }
  }
  return [[...leased], j.run, j.node, j.epoch, j.seq, j.record];
}

/** The lease every write of `writes` names, if they name one and the same lease and hold records. */
function singleLease(writes: readonly SerializedWrite[]): Lease | undefined {
  const lease = writes[0]?.lease;
  if (lease === undefined) return undefined;
  let records = 0;
  for (const write of writes) {
    const named = write.lease;
    if (named === undefined || named.runId !== lease.runId || named.node !== lease.node) return undefined;
    if (named.epoch !== lease.epoch || write.runId !== lease.runId) return undefined;
    records += write.records.length;
  }
  return records > 0 ? lease : undefined;
}

/** The single-lease statement's values: the lease, then the records' seqs and JSON. */
function singleLeaseValues(writes: readonly SerializedWrite[], lease: Lease): unknown[] {
  const seqs: number[] = [];
  const records: string[] = [];
  for (const write of writes) {
    for (const record of write.records) {
      seqs.push(record.seq);
      records.push(record.record);
    }
  }
  return [lease.runId, lease.node, lease.epoch, seqs, records];
}

/** What the append statement applied: every write whose lease is the run's (or that names none). */
function appendOutcomes(writes: readonly SerializedWrite[], held: readonly Held[]): Outcomes {
  const current = new Map(held.map((lease) => [lease.runId, lease]));
  return writes.map((write) => {
    if (write.lease === undefined) return undefined;
    const lease = current.get(write.runId);
    if (lease?.node === write.lease.node && lease.epoch === write.lease.epoch) return undefined;
    return leaseLost(write, lease);
  });
}

/** Why a write was refused: its lease is not the run's lease any more. */
export function leaseLost(
  write: SerializedWrite,
  current: { node: string | null; epoch: number } | undefined,
): LeaseLostError {
  const lease = write.lease;
  if (lease === undefined) throw new StoreError(`run ${write.runId}: a write without a lease was refused`);
  const now =
    current === undefined
      ? 'never claimed'
      : current.node === null
        ? 'released'
        : current.node === lease.node && current.epoch !== lease.epoch
          ? `taken again by ${current.node} with epoch ${current.epoch}`
          : `taken over by ${current.node}, epoch ${current.epoch}`;
  return new LeaseLostError(
    `run ${lease.runId}: node ${lease.node} no longer holds it (its lease of epoch ${lease.epoch} was ${now})`,
  );
}

/**
 * Applies `writes` in one statement on `client` (the lean one when they only append records), inside
 * the caller's transaction if any.
 * Resolves with each write's outcome: undefined if applied, `LeaseLostError` if its lease was
 * not the run's lease any more. Rejects if the statement failed (then nothing of it was applied).
 */
export async function writeBatch(
  client: pg.ClientBase,
  writes: readonly SerializedWrite[],
  signals: SignalTarget,
): Promise<Outcomes> {
  if (!writes.every(appendsOnly)) return fullBatch(client, writes, signals);
  const lease = singleLease(writes);
  if (lease !== undefined) {
    const values = singleLeaseValues(writes, lease);
    const { rowCount } = await client.query({ name: SINGLE_LEASE_STATEMENT, text: SINGLE_LEASE_SQL, values });
    if (rowCount === (values[3] as number[]).length) return writes.map(() => undefined);
    // Refused, all of them (inserted all or none): the lease found now says by whom.
    const { rows } = await client.query<Held>('SELECT run_id AS "runId", node, epoch FROM leases WHERE run_id = $1', [
      lease.runId,
    ]);
    return writes.map((write) => leaseLost(write, rows[0]));
  }
  const { rows } = await client.query<Held>({
    name: APPEND_STATEMENT,
    text: APPEND_SQL,
    values: appendValues(writes),
  });
  return appendOutcomes(writes, rows);
}

/** Applies `writes` with the full batch statement. */
async function fullBatch(
  client: pg.ClientBase,
  writes: readonly SerializedWrite[],
  signals: SignalTarget,
): Promise<Outcomes> {
  const { rows } = await client.query<BatchResult>({
    name: BATCH_STATEMENT,
    text: BATCH_SQL,
    values: batchValues(writes, signals),
  });
  const result = rows[0];
  const outcomes: (Error | undefined)[] = writes.map(() => undefined);
  if (result === undefined || result.refused.length === 0) return outcomes;
  const current = new Map(result.leases.map((lease) => [lease.runId, lease]));
  for (const index of result.refused) {
    const write = writes[index];
    if (write) outcomes[index] = leaseLost(write, current.get(write.runId));
  }
  return outcomes;
}
