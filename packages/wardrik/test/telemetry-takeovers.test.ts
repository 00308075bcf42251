/*
 * Leases and take-overs in metrics (issue 29, item 4): two nodes on one PostgreSQL schema. Node A
 * drives a run whose call takes its time; A's lease lapses (the database says so: as when a node is
 * too slow to renew, or cut off); node B takes the run over and drives it to its end. A counts the
 * run lost (`wardrik_runs_lost_total`) and the store refuses A's write of the call's answer
 * (`wardrik_store_writes_refused_total`); B counts it recovered (`wardrik_runs_recovered_total`).
 * A run parked on A and answered on B is driven again by B: that is an answer, not a recovery.
 */
import { error, ok, park, tool } from '@wardrik/core';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, enableMetrics, type Wardrik, type WardrikMetrics } from '../src/index.js';
import type { ModelRequest } from '../src/model/model.js';
import { ScriptedModel } from '../src/testing/index.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

let release: () => void = () => {};
let gate = Promise.resolve();
/** Idempotent, and answers once the test opens the gate (on whichever node runs it). */
const slow = tool({
  name: 'slow',
  description: 'Takes its time.',
  schema: {},
  annotations: { idempotent: true },
  run: async (_args, context) => {
    const aborted = new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
    await Promise.race([gate, aborted]);
    return context.signal.aborted ? error('stopped') : ok('slowly done');
  },
});
const needsPerson = tool({
  name: 'needs_person',
  description: 'Waits for a person.',
  schema: {},
  run: (_args, context) => (context.approval ? ok('approved') : park('ask a person')),
});
const agent = defineAgent({
  name: 'shared',
  instructions: '',
  tools: [slow, needsPerson],
  model: new ScriptedModel((request: ModelRequest) => {
    const first = request.messages[0];
    const input = first?.role === 'user' ? first.content : '';
    if (request.step > 1) return { text: 'done' };
    return { toolCalls: [{ name: input === 'park' ? 'needs_person' : 'slow', arguments: {} }] };
  }),
});

/** The value of `name{labels}` in a scrape, or undefined. */
async function value(metrics: WardrikMetrics, series: string): Promise<number | undefined> {
  const line = (await metrics.render()).split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('take-overs between two nodes on PostgreSQL', () => {
  const opened: Wardrik[] = [];
  const schema = testSchemaName();
  afterEach(async () => {
    release();
    await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
    await dropTestSchema(schema);
  });

  async function node(name: string, leaseMs: number, claimIntervalMs: number) {
    const wardrik = await createWardrik({
      store: openPostgresTestStore({ schema, keepSchema: true, pool: { max: 3 } }),
      agents: [agent],
      node: name,
      leaseMs,
      claimIntervalMs,
    });
    opened.push(wardrik);
    return { wardrik, metrics: enableMetrics(wardrik, { processMetrics: false }) };
  }

  it('the node whose lease lapsed counts the run lost and its write refused; the node that took it over, recovered', async () => {
    gate = new Promise((resolve) => {
      release = resolve;
    });
    // A renews its leases every 20 s and looks for runs to take up every minute: it learns it lost
    // the run when the store refuses its next write; B looks for runs to take up all the time.
    const a = await node('node-a', 60_000, 60_000);
    const b = await node('node-b', 3_000, 50);
    for (const { metrics } of [a, b]) {
      expect(await value(metrics, 'wardrik_runs_recovered_total{agent="shared"}')).toBe(0);
      expect(await value(metrics, 'wardrik_runs_lost_total{agent="shared"}')).toBe(0);
      expect(await value(metrics, 'wardrik_store_writes_refused_total')).toBe(0);
    }

    // A run parked on A, answered on B: B drives it again because of the answer.
    const parked = await a.wardrik.run('shared', 'park');
    const [held] = parked.parks;
    await b.wardrik.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'olivia' });
    expect((await b.wardrik.wait(parked.runId)).status).toBe('completed');
    expect(await value(b.metrics, 'wardrik_runs_recovered_total{agent="shared"}')).toBe(0);

    // A drives a run whose call waits; its lease lapses by the database's clock.
    const { runId } = await a.wardrik.start('shared', 'slow');
    await until(async () =>
      (await a.wardrik.getRun(runId)).journal.some(({ record }) => record.type === 'call-started'),
    );
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${schema}"`);
      await client.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE run_id = $1", [runId]);
    } finally {
      await client.end();
    }
    await until(async () => (await value(b.metrics, 'wardrik_runs_recovered_total{agent="shared"}')) === 1, 20_000);
    // The call answers on both nodes: A's write of its answer is refused, and A stops driving the run.
    release();
    expect((await b.wardrik.wait(runId)).status).toBe('completed');
    await until(async () => (await value(a.metrics, 'wardrik_runs_lost_total{agent="shared"}')) === 1, 20_000);
    expect(await value(a.metrics, 'wardrik_store_writes_refused_total')).toBeGreaterThanOrEqual(1);

    expect(await value(a.metrics, 'wardrik_runs_recovered_total{agent="shared"}')).toBe(0);
    expect(await value(b.metrics, 'wardrik_runs_lost_total{agent="shared"}')).toBe(0);
    expect(await value(b.metrics, 'wardrik_store_writes_refused_total')).toBe(0);
  });
});
