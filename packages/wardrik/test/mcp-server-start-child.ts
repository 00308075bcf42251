/*
 * The child process of mcp-server-start-durability.test.ts: a runtime on one SQLite file whose
 * queued (non-durable) writes wait a minute for their flush, so that only a barrier puts a run's
 * start on disk before the process dies. Its agent `slow` never gets an answer from its model; the
 * model's first call is written to NOTES (so the parent knows the run was driven).
 *
 *   node … mcp-server-start-child.ts DB NOTES start  durable|non-durable   starts a run, notes its id, SIGKILLs itself
 *   node … mcp-server-start-child.ts DB NOTES serve                        serves /mcp (agent slow), notes its URL and token
 */
import { appendFileSync } from 'node:fs';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, type Model, sqliteStore } from '../src/index.js';
import { startServer } from '../src/server/start-server.js';

const [dbPath, notesPath, mode, durability] = process.argv.slice(2) as [string, string, string, string | undefined];

/** One JSON line appended to NOTES, synchronously (it is on the file before the next statement). */
function note(line: Record<string, unknown>): void {
  appendFileSync(notesPath, `${JSON.stringify(line)}\n`);
}

/** A model that is asked once and never answers: the run never reaches a barrier of its own. */
const silent: Model = {
  id: 'test:silent',
  generate: () => {
    note({ generating: true });
    return new Promise(() => {});
  },
};

const slow = defineAgent({ name: 'slow', instructions: 'Never answers.', model: silent });
const wardrik = await createWardrik({
  // Queued writes are flushed by a durable write, a read (the claim pass reads) or this timer: here,
  // none of those come in the test's time unless the work under test makes them.
  store: sqliteStore(dbPath, { flushIntervalMs: 60_000 }),
  claimIntervalMs: 600_000,
  agents: [slow],
});

if (mode === 'start') {
  const { runId } = await wardrik.start('slow', 'go', { durable: durability === 'durable' });
  note({ runId });
  // Dies in the same turn: no flush (a timer's or a read's) may come between.
  process.kill(process.pid, 'SIGKILL');
} else if (mode === 'serve') {
  const auth = new AuthService(wardrik.store);
  const admin = await auth.ensureAdmin();
  const server = await startServer({ wardrik, auth, port: 0, mcp: { agents: ['slow'] } });
  note({ url: `${server.url}/mcp`, token: admin?.token });
} else {
  throw new Error(`mode: start or serve, not ${mode}`);
}
