import type pg from 'pg';
import type { ParkDecision, ParkKind, StoredRecord } from '../../journal/records.js';
import {
  checkLimit,
  type ParkColumns,
  parkRowFrom,
  type RecordColumns,
  type RunColumns,
  runRowFrom,
  storedRecordFrom,
} from '../columns.js';
import type { PendingAnswer, RunRequests } from '../run-store.js';
import type { Allowance, ParkFilter, ParkRow, RunFilter, RunRow } from '../store.js';

/*
 * Reads of runs, journals, parks, standing decisions and requests: one statement each, with values
 * as parameters only (lists as arrays: `= ANY($n)`).
 */

/** A query built from a filter: its text and values. */
interface Built {
  readonly text: string;
  readonly values: unknown[];
}

/** Adds conditions to a query as filters ask for them, numbering the parameters. */
class Conditions {
  readonly #conditions: string[] = [];
  readonly values: unknown[] = [];

  add(condition: (parameter: string) => string, value: unknown): void {
    this.values.push(value);
    this.#conditions.push(condition(`$${this.values.length}`));
  }

  parameter(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  get where(): string {
    return this.#conditions.length === 0 ? '' : ` WHERE ${this.#conditions.join(' AND ')}`;
  }
}

export async function getRun(client: pg.ClientBase, runId: string): Promise<RunRow | undefined> {
  const { rows } = await client.query<RunColumns>({
    name: 'wardrik_get_run_v1',
    text: 'SELECT * FROM runs WHERE id = $1',
    values: [runId],
  });
  return rows[0] === undefined ? undefined : runRowFrom(rows[0]);
}

/** The listing query for `filter`, or undefined when it can match nothing (an empty list of statuses or agents). */
export function listRunsQuery(filter: RunFilter): Built | undefined {
  const limit = checkLimit(filter.limit);
  const conditions = new Conditions();
  if (filter.status !== undefined) {
    const statuses: readonly string[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
    if (statuses.length === 0) return undefined;
    conditions.add((parameter) => `status = ANY (${parameter}::text[])`, statuses);
  }
  if (filter.agent !== undefined) conditions.add((parameter) => `agent = ${parameter}`, filter.agent);
  if (filter.agents !== undefined) {
    if (filter.agents.length === 0) return undefined;
    conditions.add((parameter) => `agent = ANY (${parameter}::text[])`, filter.agents);
  }
  if (filter.principal !== undefined) conditions.add((parameter) => `principal = ${parameter}`, filter.principal);
  const where = conditions.where;
  const text = `SELECT * FROM runs${where} ORDER BY created_at DESC, id DESC LIMIT ${conditions.parameter(limit ?? null)}`;
  return { text, values: conditions.values };
}

export async function listRuns(client: pg.ClientBase, filter: RunFilter): Promise<RunRow[]> {
  const query = listRunsQuery(filter);
  if (query === undefined) return [];
  const { rows } = await client.query<RunColumns>(query.text, query.values);
  return rows.map(runRowFrom);
}

export async function loadJournal(client: pg.ClientBase, runId: string, afterSeq?: number): Promise<StoredRecord[]> {
  const { rows } = await client.query<RecordColumns>({
    name: 'wardrik_load_journal_v1',
    text: 'SELECT seq, record FROM journal WHERE run_id = $1 AND seq > $2 ORDER BY seq',
    values: [runId, afterSeq ?? Number.MIN_SAFE_INTEGER],
  });
  return rows.map((row) => storedRecordFrom(runId, row));
}

export async function lastSeq(client: pg.ClientBase, runId: string): Promise<number> {
  const { rows } = await client.query<{ seq: number | null }>({
    name: 'wardrik_last_seq_v1',
    text: 'SELECT max(seq) AS seq FROM journal WHERE run_id = $1',
    values: [runId],
  });
  return rows[0]?.seq ?? 0;
}

export async function getPark(client: pg.ClientBase, parkId: string): Promise<ParkRow | undefined> {
  const { rows } = await client.query<ParkColumns>({
    name: 'wardrik_get_park_v1',
    text: 'SELECT * FROM parks WHERE id = $1',
    values: [parkId],
  });
  return rows[0] === undefined ? undefined : parkRowFrom(rows[0]);
}

/** The listing query for `filter`, or undefined when it can match nothing (an empty list of agents). */
export function listParksQuery(filter: ParkFilter): Built | undefined {
  const limit = checkLimit(filter.limit);
  const conditions = new Conditions();
  if (filter.status !== undefined) conditions.add((parameter) => `status = ${parameter}`, filter.status);
  if (filter.runId !== undefined) conditions.add((parameter) => `run_id = ${parameter}`, filter.runId);
  if (filter.kind !== undefined) conditions.add((parameter) => `kind = ${parameter}`, filter.kind);
  if (filter.agents !== undefined) {
    if (filter.agents.length === 0) return undefined;
    conditions.add(
      (parameter) => `run_id IN (SELECT id FROM runs WHERE agent = ANY (${parameter}::text[]))`,
      filter.agents,
    );
  }
  if (filter.principal !== undefined) conditions.add((parameter) => `principal = ${parameter}`, filter.principal);
  const newest = filter.order === 'newest';
  const after = filter.after;
  if (after !== undefined) {
    const createdAt = conditions.parameter(after.createdAt);
    conditions.add((parameter) => `(created_at, id) ${newest ? '<' : '>'} (${createdAt}, ${parameter})`, after.id);
  }
  const where = conditions.where;
  const order = newest ? 'created_at DESC, id DESC' : 'created_at, id';
  const text = `SELECT * FROM ${parksSource(conditions, filter.handle)}${where} ORDER BY ${order} LIMIT ${conditions.parameter(limit ?? null)}`;
  return { text, values: conditions.values };
}

/**
 * The parks a listing reads: by handle, those the index parks_handle finds (same expression),
 * fenced off (OFFSET 0) so that the planner cannot trade it for the status index while the
 * table's statistics lag behind a burst of waits; otherwise all.
 */
function parksSource(conditions: Conditions, handle: string | undefined): string {
  if (handle === undefined) return 'parks';
  return `(SELECT * FROM parks WHERE (park::json ->> 'handle') = ${conditions.parameter(handle)} OFFSET 0) AS parks`;
}

export async function countOpenParks(client: pg.ClientBase): Promise<Partial<Record<ParkKind, number>>> {
  const { rows } = await client.query<{ kind: ParkKind; count: string }>({
    name: 'wardrik_count_open_parks_v1',
    text: "SELECT kind, count(*) AS count FROM parks WHERE status = 'open' GROUP BY kind",
  });
  return Object.fromEntries(rows.map((row) => [row.kind, Number(row.count)]));
}

export async function listParks(client: pg.ClientBase, filter: ParkFilter): Promise<ParkRow[]> {
  const query = listParksQuery(filter);
  if (query === undefined) return [];
  const { rows } = await client.query<ParkColumns>(query.text, query.values);
  return rows.map(parkRowFrom);
}

export async function putAllowance(client: pg.ClientBase, allowance: Allowance): Promise<void> {
  await client.query({
    name: 'wardrik_put_allowance_v1',
    text: `INSERT INTO allowances (agent, tool, decided_by, decided_at, park_id) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (agent, tool) DO UPDATE SET decided_by = excluded.decided_by,
             decided_at = excluded.decided_at, park_id = excluded.park_id`,
    values: [allowance.agent, allowance.tool, allowance.by, allowance.at, allowance.parkId],
  });
}

export async function listAllowances(client: pg.ClientBase): Promise<Allowance[]> {
  const { rows } = await client.query<{
    agent: string;
    tool: string;
    decided_by: string;
    decided_at: number;
    park_id: string;
  }>({ name: 'wardrik_list_allowances_v1', text: 'SELECT * FROM allowances ORDER BY agent, tool' });
  return rows.map((row) => ({
    agent: row.agent,
    tool: row.tool,
    by: row.decided_by,
    at: row.decided_at,
    parkId: row.park_id,
  }));
}

/** The answers waiting for the run's holder (oldest first) and its cancel, in one statement. */
export async function requests(client: pg.ClientBase, runId: string): Promise<RunRequests> {
  const { rows } = await client.query<{
    kind: 'answer' | 'cancel';
    park_id: string | null;
    decision: string | null;
    by: string | null;
    at: number;
    reason: string | null;
  }>({
    name: 'wardrik_requests_v1',
    text: `SELECT 'answer' AS kind, id AS park_id, decision, answered_by AS by, answered_at AS at, NULL AS reason
           FROM parks WHERE run_id = $1 AND NOT recorded
           UNION ALL
           SELECT 'cancel', NULL, NULL, NULL, requested_at, reason FROM run_cancels WHERE run_id = $1
           ORDER BY kind, at, park_id`,
    values: [runId],
  });
  const answers: PendingAnswer[] = [];
  let cancel: RunRequests['cancel'];
  for (const row of rows) {
    if (row.kind === 'cancel') cancel = { reason: row.reason ?? '', at: row.at };
    else {
      answers.push({
        parkId: row.park_id ?? '',
        decision: JSON.parse(row.decision ?? 'null') as ParkDecision,
        by: row.by ?? '',
        at: row.at,
      });
    }
  }
  return cancel === undefined ? { answers } : { answers, cancel };
}
