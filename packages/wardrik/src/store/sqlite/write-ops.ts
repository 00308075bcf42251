import type Database from 'better-sqlite3';
import type { SerializedWrite } from '../columns.js';

/*
 * The statements a group commit runs, and a write as a flat list of them: `[statement, ...its
 * parameters, statement, ...]`. A flat array of strings and numbers is what crosses to the commit
 * thread cheaply (see `CommitThread`), and the event loop runs the same list when it commits itself.
 */

/** A state value written (scope, key, value, labels, updated_at, updated_by): by runs and by people's edits. */
export const PUT_STATE_VALUE = `INSERT INTO state_values (scope, key, value, labels, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, labels = excluded.labels,
       updated_at = excluded.updated_at, updated_by = excluded.updated_by`;
/** A state value deleted (scope, key). */
export const DELETE_STATE_VALUE = 'DELETE FROM state_values WHERE scope = ? AND key = ?';

/** Each statement's SQL and how many parameters it takes, by index (the `op` in the list). */
export const WRITE_STATEMENTS: ReadonlyArray<{ readonly sql: string; readonly parameters: number }> = [
  {
    sql: `INSERT INTO runs (id, agent, principal, status, created_at, updated_at, summary) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, principal = excluded.principal,
         status = excluded.status, created_at = excluded.created_at, updated_at = excluded.updated_at,
         summary = excluded.summary`,
    parameters: 7,
  },
  { sql: 'INSERT INTO journal (run_id, seq, record) VALUES (?, ?, ?)', parameters: 3 },
  {
    sql: `INSERT INTO parks (id, run_id, kind, status, created_at, park, principal)
       VALUES (?, ?, ?, 'open', ?, ?, (SELECT principal FROM runs WHERE id = ?))`,
    parameters: 6,
  },
  { sql: `UPDATE parks SET status = 'closed' WHERE id = ? AND run_id = ? AND status = 'open'`, parameters: 2 },
  { sql: 'UPDATE parks SET recorded = 1 WHERE id = ? AND run_id = ?', parameters: 2 },
  { sql: 'DELETE FROM run_cancels WHERE run_id = ?', parameters: 1 },
  { sql: DELETE_STATE_VALUE, parameters: 2 },
  { sql: PUT_STATE_VALUE, parameters: 6 },
];

const UPSERT_RUN = 0;
const INSERT_RECORD = 1;
const INSERT_PARK = 2;
const CLOSE_PARK = 3;
const MARK_RECORDED = 4;
const TAKE_CANCEL = 5;
const DELETE_VALUE = 6;
const PUT_VALUE = 7;

/** The writes as one flat list of statements and their parameters, in order. */
export function writeOps(writes: readonly SerializedWrite[]): Array<string | number> {
  const ops: Array<string | number> = [];
  for (const write of writes) {
    const runId = write.runId;
    const run = write.run;
    if (run !== undefined) {
      ops.push(UPSERT_RUN, run.id, run.agent, run.principal, run.status, run.created_at, run.updated_at, run.summary);
    }
    for (const record of write.records) ops.push(INSERT_RECORD, runId, record.seq, record.record);
    for (const park of write.parks) ops.push(INSERT_PARK, park.id, runId, park.kind, park.created_at, park.park, runId);
    for (const parkId of write.closeParks) ops.push(CLOSE_PARK, parkId, runId);
    for (const parkId of write.recordedAnswers) ops.push(MARK_RECORDED, parkId, runId);
    if (write.cancelTaken) ops.push(TAKE_CANCEL, runId);
    for (const value of write.state) {
      if (value.value === null) ops.push(DELETE_VALUE, value.scope, value.key);
      else ops.push(PUT_VALUE, value.scope, value.key, value.value, value.labels, write.stateAt, runId);
    }
  }
  return ops;
}

/** Prepares `WRITE_STATEMENTS` on a connection. */
export function prepareWriteStatements(database: Database.Database): Database.Statement[] {
  return WRITE_STATEMENTS.map((statement) => database.prepare(statement.sql));
}

/** Runs a list made by `writeOps` (the caller wraps it in a transaction). */
export function runWriteOps(statements: readonly Database.Statement[], ops: ReadonlyArray<string | number>): void {
  let index = 0;
  while (index < ops.length) {
    const op = ops[index] as number;
    const count = (WRITE_STATEMENTS[op] as { parameters: number }).parameters;
    const statement = statements[op] as Database.Statement;
    const at = index + 1;
    // A journal record (3 parameters) without a copy of its parameters: most of what is committed.
    if (count === 3) statement.run(ops[at], ops[at + 1], ops[at + 2]);
    else statement.run(ops.slice(at, at + count));
    index = at + count;
  }
}
