/*
 * Run signals across nodes on PostgreSQL (issue 13): NOTIFY, sent in the transaction that makes the
 * change, reaches every store listening on another connection; a store hears its own signals once;
 * a listening connection that drops is opened again.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { PostgresStore } from '../src/store/postgres/postgres-store.js';
import type { Lease, RunRow, RunSignal } from '../src/store/store.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

/** Stores ("nodes") on one fresh schema, migrated, each with its pool's configuration. */
async function nodes(...pools: pg.PoolConfig[]): Promise<PostgresStore[]> {
  const schema = testSchemaName();
  cleanup.push(() => dropTestSchema(schema));
  const stores = pools.map((pool) => openPostgresTestStore({ schema, keepSchema: true, pool }));
  for (const store of stores) cleanup.push(() => store.close());
  for (const store of stores) await store.migrate();
  return stores;
}

function row(id: string, status: RunRow['status'] = 'running'): RunRow {
  return { id, agent: 'support', principal: 'alice', status, createdAt: 1, updatedAt: 1, measures: {}, labels: [] };
}

function record(runId: string, seq: number) {
  return {
    runId,
    seq,
    record: { type: 'labels-released', v: 1, at: seq, labels: [], by: 'bob', reason: 'test' },
  } as const;
}

/** The signals `store` hears from now on. */
function heard(store: PostgresStore): RunSignal[] {
  const signals: RunSignal[] = [];
  const stop = store.onRunSignal((signal) => signals.push(signal));
  cleanup.push(async () => stop());
  return signals;
}

const has = (signals: readonly RunSignal[], type: RunSignal['type'], runId: string) =>
  signals.some((signal) => signal.type === type && signal.runId === runId);

const A = { node: 'node-a', incarnation: 'a1', leaseMs: 60_000 };

describe('PostgresStore signals', () => {
  it('requested, claimable and appended (a run parked or ended) reach another node; a store hears its own once', async () => {
    const [a, b, c] = await nodes({}, {}, {});
    if (!a || !b || !c) throw new Error('three nodes');
    const atA = heard(a);
    const atB = heard(b);
    await Promise.all([a.listening(), b.listening()]);

    const lease = (await a.claimRun('r1', A)) as Lease;
    // Two writes of one run in one flush, the last parking it: one `appended`, with the last seq.
    await Promise.all([
      a.write({ runId: 'r1', run: row('r1'), records: [record('r1', 1)], lease }, { durable: true }),
      a.write(
        { runId: 'r1', run: row('r1', 'parked'), records: [record('r1', 2), record('r1', 3)], lease },
        {
          durable: true,
        },
      ),
    ]);
    await until(() => has(atB, 'appended', 'r1'), 10_000);
    await b.requestCancel('r1', 'stop', 5);
    await until(() => has(atA, 'requested', 'r1'), 10_000);
    await a.releaseLease(lease); // a request waits: the run is claimable
    // A marker from a third node: heard after everything before it on each listening connection.
    await c.write(
      { runId: 'marker', run: row('marker', 'completed'), records: [record('marker', 1)] },
      { durable: true },
    );
    await until(() => has(atA, 'appended', 'marker') && has(atB, 'appended', 'marker'), 10_000);

    const expected: RunSignal[] = [
      { type: 'appended', runId: 'r1', seq: 3 },
      { type: 'requested', runId: 'r1' },
      { type: 'claimable', runId: 'r1' },
      { type: 'appended', runId: 'marker', seq: 1 },
    ];
    expect(atB).toEqual(expected);
    expect(atA).toEqual(expected);
  });

  it('a released run that needs nothing is not claimable; an answer request is heard', async () => {
    const [a, b] = await nodes({}, {});
    if (!a || !b) throw new Error('two nodes');
    const atB = heard(b);
    await b.listening();
    const lease = (await a.claimRun('r1', A)) as Lease;
    const park = {
      id: 'p1',
      runId: 'r1',
      kind: 'tool' as const,
      reason: 'ask',
      labels: [],
      callHash: 'h',
      createdAt: 2,
    };
    await a.write({ runId: 'r1', run: row('r1', 'parked'), records: [], parks: [park], lease }, { durable: true });
    await a.releaseLease(lease); // parked, nothing waiting: nobody needs to claim it
    await a.requestAnswer({ parkId: 'p1', decision: { type: 'retry' }, by: 'bob', at: 3, callHash: 'h' });
    await until(() => atB.length > 0, 10_000);
    expect(atB).toEqual([{ type: 'requested', runId: 'r1' }]);
    expect(await b.claimRuns(A, 10)).toEqual([{ runId: 'r1', node: 'node-a', epoch: 2 }]);
  });

  it('listens again after its connection drops', async () => {
    const applicationName = `wardrik_signals_${randomBytes(4).toString('hex')}`;
    const [a, b] = await nodes({}, { application_name: applicationName });
    if (!a || !b) throw new Error('two nodes');
    await a.write({ runId: 'r1', run: row('r1'), records: [] }, { durable: true });
    const atB = heard(b);
    await b.listening();

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    cleanup.push(() => admin.end());
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
       WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [applicationName],
    );
    expect(rows).toEqual([{ done: true }]);
    // Signals sent while it was down are lost; keep asking until one is heard on the new connection.
    await until(async () => {
      await a.requestCancel('r1', 'stop', 1);
      return atB.some((signal) => signal.type === 'requested');
    }, 15_000);
    const again = await admin.query(
      `SELECT count(*)::int AS listening FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [applicationName],
    );
    expect(again.rows).toEqual([{ listening: 1 }]);
  });
});
