/**
 * One node of the workers-across-nodes process test (`../workers-nodes-processes.test.ts`): a
 * Wardrik on a PostgreSQL schema shared with the other nodes, with its HTTP server and worker
 * endpoint on a free port, driving the planned agent of the workers tests, until it is killed.
 *
 *   node --conditions=@wardrik/source --import tsx packages/wardrik/test/cluster/worker-node.ts \
 *     <databaseUrl> <schema> <nodeName>
 *
 * It prints `{"ready":true,"url":…,"pid":…}` once it serves. Runs are started and answered
 * through its API (`POST /v1/runs`, `POST /v1/parks/{id}/answer`).
 */
import { writeSync } from 'node:fs';
import { AuthService, createWardrik, postgresStore, startServer } from '../../src/index.js';
import { plannedAgent } from '../workers-env.js';

const [databaseUrl, schema, nodeName] = process.argv.slice(2);
if (!databaseUrl || !schema || !nodeName) {
  process.stderr.write('usage: worker-node.ts <databaseUrl> <schema> <nodeName>\n');
  process.exit(2);
}
const leaseMs = Number(process.env.NODE_LEASE_MS ?? '1000');

const wardrik = await createWardrik({
  store: postgresStore({ connectionString: databaseUrl, max: 4 }, { schema }),
  agents: [plannedAgent('support', ['workers/*'], [])],
  node: nodeName,
  leaseMs,
  claimIntervalMs: Math.max(50, Math.floor(leaseMs / 5)),
  toolRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  workers: {
    handshakeTimeoutMs: 20_000,
    log: (message) => process.stderr.write(`[${nodeName}] ${message}\n`),
  },
});
const server = await startServer({ wardrik, auth: new AuthService(wardrik.store), port: 0 });
// Written synchronously, so that it reaches the parent even if a SIGKILL follows.
writeSync(1, `${JSON.stringify({ ready: true, url: server.url, pid: process.pid })}\n`);

wardrik.onFailure((error) => {
  process.stderr.write(`node ${nodeName}: the store failed: ${error.message}\n`);
  process.exit(1);
});
