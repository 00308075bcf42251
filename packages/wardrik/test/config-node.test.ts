/*
 * The config's `node` section (issue 29's deployment guide said `wardrik serve` could not set a
 * node's name, lease, claim interval or run limit): checked as the config loads, naming the field,
 * and passed on to the runtime, seen from outside on a real `wardrik serve` on PostgreSQL — the
 * lease of a run under way names the configured node and lasts the configured lease.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../src/config/config.js';
import { callApi, configDirectory, type ServeProcess, startServeProcess, until } from './serve-process.js';
import { dropTestSchema, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const agent = {
  name: 'a',
  instructions: '',
  tools: new Map(),
  toolDefinitions: [],
  model: { id: 'm', generate: () => undefined },
};

describe("the config's node section", () => {
  it('is checked as the config loads, naming the field and what it expects', () => {
    const check = (node: unknown) => () => checkConfig({ agents: [agent], node }, 'config');
    expect(check('pod-a')).toThrow("config.node: expected an object such as { name: 'node-a', leaseMs: 5000 }");
    expect(check({ leaseMS: 5_000 })).toThrow(
      'config.node.leaseMS: unknown setting (expected name, leaseMs, claimIntervalMs, maxRuns)',
    );
    expect(check({ leaseMs: 5 })).toThrow('config.node.leaseMs: expected a whole number of at least 10, got 5');
    expect(check({ maxRuns: 0 })).toThrow('config.node.maxRuns: expected a whole number of at least 1, got 0');
    expect(check({ claimIntervalMs: '500' })).toThrow(
      'config.node.claimIntervalMs: expected a whole number of at least 10, got "500"',
    );
    expect(check({ name: 'x'.repeat(201) })).toThrow(/config\.node\.name: expected a string of at most 200 characters/);
    expect(check({ name: 7 })).toThrow('config.node.name: expected a string of at most 200 characters, got 7');
    expect(check({ name: 'pod-a', leaseMs: 30_000, claimIntervalMs: 250, maxRuns: 100 })).not.toThrow();
    expect(check({ name: undefined })).not.toThrow();
  });
});

describe('wardrik serve with a node section, on PostgreSQL', () => {
  const schema = testSchemaName();
  const directory = configDirectory('shutdown-config.mjs');
  const gate = join(directory, 'gate');
  let serve: ServeProcess | undefined;
  afterAll(async () => {
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    await dropTestSchema(schema);
  });

  it('names the node in its banner and in the lease of a run under way, which lasts the configured leaseMs', async () => {
    serve = await startServeProcess(directory, {
      env: {
        SHUTDOWN_GATE: gate,
        SHUTDOWN_PG_URL: TEST_DATABASE_URL,
        SHUTDOWN_PG_SCHEMA: schema,
        SERVE_NODE: JSON.stringify({ name: 'pod-a', leaseMs: 120_000, claimIntervalMs: 100, maxRuns: 5 }),
      },
    });
    expect(JSON.parse(serve.output.stdout)).toMatchObject({ node: 'pod-a' });

    const started = await callApi(serve, '/v1/runs', { agent: 'mailer', input: 'mail' });
    expect(started.status).toBe(201);
    const runId: string = started.json.runId;
    // Held at send_email's gate: the run is under way on this node, holding its lease.
    await until(async () =>
      (await callApi(serve as ServeProcess, `/v1/runs/${runId}`)).json.journal.some(
        (stored: { record: { type: string; name?: string } }) =>
          stored.record.type === 'call-started' && stored.record.name === 'send_email',
      ),
    );
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT node, EXTRACT(EPOCH FROM (expires_at - now())) AS seconds_left FROM "${schema}".leases WHERE run_id = $1`,
        [runId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].node).toBe('pod-a');
      // The default lease is 5 s; this one was taken (or renewed, every third of it) for 120 s.
      expect(Number(rows[0].seconds_left)).toBeGreaterThan(60);
    } finally {
      await client.end();
    }

    writeFileSync(gate, '');
    await until(async () => (await callApi(serve as ServeProcess, `/v1/runs/${runId}`)).json.status === 'completed');
  }, 180_000);
});
