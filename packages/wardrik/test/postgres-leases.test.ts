/*
 * Leases on PostgreSQL (issue 13): nodes are stores with pools of their own on one schema. A run
 * is claimed by one node however many ask at once; expiry is judged by the database's clock; a
 * take-over waits for a write that holds the lease, so a paused node can never append after it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaseLostError } from '../src/errors.js';
import type { PostgresStore } from '../src/store/postgres/postgres-store.js';
import type { Lease, LeaseTerms, RunRow } from '../src/store/store.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

/** `count` stores ("nodes") on one fresh schema, migrated. */
async function nodes(count: number, pool: pg.PoolConfig = {}): Promise<PostgresStore[]> {
  const schema = testSchemaName();
  cleanup.push(() => dropTestSchema(schema));
  const stores = Array.from({ length: count }, () => openPostgresTestStore({ schema, keepSchema: true, pool }));
  for (const store of stores) cleanup.push(() => store.close());
  for (const store of stores) await store.migrate();
  return stores;
}

async function peek(schema: string | undefined): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  cleanup.unshift(() => client.end());
  await client.query(`SET search_path TO "${schema}"`);
  return client;
}

function row(id: string): RunRow {
  return {
    id,
    agent: 'support',
    principal: 'alice',
    status: 'running',
    createdAt: 1,
    updatedAt: 1,
    measures: {},
    labels: [],
  };
}

/** Writes `count` running runs nobody holds. */
async function freeRuns(store: PostgresStore, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `run-${String(index).padStart(4, '0')}`);
  await Promise.all(ids.map((id) => store.write({ runId: id, run: row(id), records: [] }, { durable: true })));
  return ids;
}

/** The real clock (tests below make Date.now run ahead or behind). */
const realNow = Date.now;

const terms = (node: string, leaseMs = 60_000): LeaseTerms => ({ node, incarnation: `${node}-1`, leaseMs });

describe('PostgresStore leases across nodes', () => {
  it('two nodes claiming the same runs at once never both get one', async () => {
    const [a, b] = await nodes(2);
    if (!a || !b) throw new Error('two nodes');
    const ids = await freeRuns(a, 200);
    const byA: Lease[] = [];
    const byB: Lease[] = [];
    for (let round = 0; round < 20 && byA.length + byB.length < ids.length; round += 1) {
      const [fromA, fromB] = await Promise.all([
        a.claimRuns(terms('node-a'), 17),
        b.claimRuns(terms('node-b'), 23),
        a.claimRuns(terms('node-a'), 0),
      ]);
      expect(fromA?.length).toBeLessThanOrEqual(17);
      byA.push(...(fromA ?? []));
      byB.push(...(fromB ?? []));
    }
    const claimed = [...byA, ...byB].map((lease) => lease.runId);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual(ids);
    for (const lease of [...byA, ...byB]) expect(lease.epoch).toBe(1);
    expect(await a.renewLeases(terms('node-a'))).toEqual(new Set(byA.map((lease) => lease.runId)));
    expect(await b.renewLeases(terms('node-b'))).toEqual(new Set(byB.map((lease) => lease.runId)));

    // claimRun of one run by both at once: one of them gets it.
    const contested = 'run-0000';
    const ofA = byA.find((each) => each.runId === contested);
    const ofB = byB.find((each) => each.runId === contested);
    if (ofA) await a.releaseLease(ofA);
    if (ofB) await b.releaseLease(ofB);
    const both = await Promise.all([a.claimRun(contested, terms('node-a')), b.claimRun(contested, terms('node-b'))]);
    expect(both.filter((each) => each !== undefined)).toHaveLength(1);
  });

  it('judges expiry by the database clock: a lease lasts leaseMs of its now(), whatever the node thinks', async () => {
    const [a, b] = await nodes(2);
    if (!a || !b) throw new Error('two nodes');
    const client = await peek(a.schema);
    const remaining = async (runId: string) => {
      const { rows } = await client.query<{ ms: number }>(
        'SELECT extract(epoch FROM expires_at - now()) * 1000 AS ms FROM leases WHERE run_id = $1',
        [runId],
      );
      return Number(rows[0]?.ms);
    };
    // Node A's clock runs a day ahead: its leases still last a minute of the database's time.
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 86_400_000);
    await a.claimRun('ahead', terms('node-a'));
    expect(await remaining('ahead')).toBeGreaterThan(50_000);
    expect(await remaining('ahead')).toBeLessThanOrEqual(60_000);
    // ...and it cannot take a run whose lease is live by the database's clock.
    await b.claimRun('held', terms('node-b'));
    expect(await a.claimRun('held', terms('node-a'))).toBeUndefined();

    // Node A's clock runs a day behind: a short lease still expires, and node B takes the run over.
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 86_400_000);
    const short = (await a.claimRun('behind', terms('node-a', 200))) as Lease;
    expect(await remaining('behind')).toBeLessThanOrEqual(200);
    let taken: Lease | undefined;
    await until(async () => {
      taken = await b.claimRun('behind', terms('node-b'));
      return taken !== undefined;
    }, 10_000);
    expect(taken?.epoch).toBe(2);
    expect(await a.renewLeases(terms('node-a', 200))).toEqual(new Set(['ahead']));
    await expect(a.write({ runId: 'behind', records: [], lease: short }, { durable: true })).rejects.toSatisfy(
      LeaseLostError.isInstance,
    );
  });

  it('renews every lease of a node in one statement, however many runs it holds', async () => {
    const [a, b] = await nodes(2, { max: 1 });
    if (!a || !b) throw new Error('two nodes');
    await freeRuns(a, 300);
    const held = await a.claimRuns(terms('node-a'), 300);
    expect(held).toHaveLength(300);
    // One of them is taken over (released, then claimed by B): it is not renewed.
    await a.releaseLease(held[0] as Lease);
    await b.claimRun(held[0]?.runId as string, terms('node-b'));
    await a.renewLeases(terms('node-a')); // the connection is set up

    const query = vi.spyOn(pg.Client.prototype, 'query');
    const renewed = await a.renewLeases(terms('node-a'));
    expect(query).toHaveBeenCalledTimes(1);
    expect(renewed.size).toBe(299);
    expect(renewed.has(held[0]?.runId as string)).toBe(false);
  });

  it('a take-over waits for a write that holds the lease, then the old lease writes nothing more', async () => {
    const applicationName = `wardrik_take_over_${randomBytes(4).toString('hex')}`;
    const [a, b] = await nodes(2, { application_name: applicationName });
    if (!a || !b) throw new Error('two nodes');
    const lease = (await a.claimRun('r1', terms('node-a', 300))) as Lease;
    await a.write({ runId: 'r1', run: row('r1'), records: [], lease }, { durable: true });

    // A write of node A in flight: its transaction holds the lease row FOR SHARE, as a batch does.
    const writer = await peek(a.schema);
    await writer.query('BEGIN');
    await writer.query('SELECT * FROM leases WHERE run_id = $1 FOR SHARE', ['r1']);
    const monitor = await peek(a.schema);
    // The lease expires by the database's clock; B's claim must wait for the write to end.
    await until(async () => {
      const { rows } = await monitor.query('SELECT expires_at <= now() AS expired FROM leases WHERE run_id = $1', [
        'r1',
      ]);
      return rows[0]?.expired === true;
    }, 10_000);
    const claiming = b.claimRun('r1', terms('node-b'));
    await until(async () => {
      const { rows } = await monitor.query(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
        [applicationName],
      );
      return rows.length > 0;
    }, 10_000);
    await writer.query('COMMIT');
    expect(await claiming).toEqual({ runId: 'r1', node: 'node-b', epoch: 2 });
    await expect(a.write({ runId: 'r1', records: [], lease }, { durable: true })).rejects.toSatisfy(
      LeaseLostError.isInstance,
    );
  });

  it.each([
    ['one lease (the single-lease statement)', false],
    ['several leases (the append statement)', true],
  ])('an append in flight holds its lease: a take-over waits for it, and sees its records — %s', async (_, several) => {
    const applicationName = `wardrik_append_${randomBytes(4).toString('hex')}`;
    const [a, b] = await nodes(2, { application_name: applicationName });
    if (!a || !b) throw new Error('two nodes');
    const lease = (await a.claimRun('r1', terms('node-a', 300))) as Lease;
    const other = (await a.claimRun('r2', terms('node-a'))) as Lease;
    await a.write({ runId: 'r1', run: row('r1'), records: [], lease }, { durable: true });

    // Another transaction inserts seq 1 of r1 and waits: node A's append of seq 1 waits on it,
    // inside its statement, after locking the lease.
    const blocker = await peek(a.schema);
    await blocker.query('BEGIN');
    await blocker.query(`INSERT INTO journal (run_id, seq, record) VALUES ('r1', 1, '{}')`);
    const record = { type: 'labels-released', v: 1, at: 1, labels: [], by: 'bob', reason: 'appended' } as const;
    const appending = Promise.all([
      a.write({ runId: 'r1', records: [{ runId: 'r1', seq: 1, record }], lease }, { durable: true }),
      ...(several
        ? [a.write({ runId: 'r2', records: [{ runId: 'r2', seq: 1, record }], lease: other }, { durable: true })]
        : []),
    ]);
    const monitor = await peek(a.schema);
    const waiting = async (count: number) => {
      const { rows } = await monitor.query(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
        [applicationName],
      );
      return rows.length >= count;
    };
    await until(() => waiting(1), 10_000);
    await until(async () => {
      const { rows } = await monitor.query('SELECT expires_at <= now() AS expired FROM leases WHERE run_id = $1', [
        'r1',
      ]);
      return rows[0]?.expired === true;
    }, 10_000);
    // The lease expired by the database's clock, but node A's statement holds its row: B waits.
    const claiming = b.claimRun('r1', terms('node-b'));
    await until(() => waiting(2), 10_000);
    await blocker.query('ROLLBACK');
    await appending;
    expect(await claiming).toEqual({ runId: 'r1', node: 'node-b', epoch: 2 });
    expect((await b.loadJournal('r1')).map((each) => each.seq)).toEqual([1]);
    await expect(
      a.write({ runId: 'r1', records: [{ runId: 'r1', seq: 2, record }], lease }, { durable: true }),
    ).rejects.toSatisfy(LeaseLostError.isInstance);
    expect(await b.lastSeq('r1')).toBe(1);
  });
});
