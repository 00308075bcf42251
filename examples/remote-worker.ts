// A worker on another machine: this program is the Wardrik side (what `wardrik serve` does,
// started in-process with `startServer`), and examples/worker.ts, started as a separate process
// as it would run elsewhere, connects to it with a worker token and offers its tools. An agent
// then calls them: the read-only one runs on its own, the other waits for a person's approval
// (worker tools are gated unless the worker marks them read-only), then runs on the worker.
// Offline: a scripted model, a SQLite file in a temp folder, the server on 127.0.0.1. Run:
//   node --conditions=@wardrik/source --import tsx examples/remote-worker.ts
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AuthService, createWardrik, defineAgent, sqliteStore, startServer } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

const folder = mkdtempSync(join(tmpdir(), 'wardrik-remote-worker-'));

const model = new ScriptedModel([
  {
    text: 'Checking the stock.',
    toolCalls: [{ name: 'workers__stock_level', arguments: { sku: 'tea-earl-grey' } }],
  },
  {
    text: 'Reserving three.',
    toolCalls: [{ name: 'workers__reserve_stock', arguments: { sku: 'tea-earl-grey', quantity: 3 } }],
  },
  (request) => ({ text: `Reserved: ${String(lastToolResults(request)[0]?.content)}` }),
]);

// `workers/*`: every tool offered by a worker whose token may serve this agent.
const stockKeeper = defineAgent({
  name: 'stock',
  instructions: 'Keep orders in stock.',
  model,
  workers: ['workers/*'],
});

const store = sqliteStore(join(folder, 'wardrik.db'));
const wardrik = await createWardrik({ store, agents: [stockKeeper] });
// Principals and tokens live in the same store; `wardrik tokens create` does this from the CLI.
const auth = new AuthService(store);
const { token } = await auth.tokenFor({ name: 'warehouse-worker', role: 'worker', agents: ['stock'] });
const server = await startServer({ wardrik, auth, port: 0 }); // 0: a free port
console.log(`Wardrik listening on ${server.url}`);

// The worker, as a process of its own (with the same Node flags as this one, so it runs TypeScript).
const worker = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./worker.ts', import.meta.url))], {
  env: { ...process.env, WARDRIK_URL: server.url, WARDRIK_TOKEN: token },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const workerLines: string[] = [];
const connected = new Promise<void>((resolve, reject) => {
  createInterface({ input: worker.stdout }).on('line', (line) => {
    console.log(`  [worker] ${line}`);
    workerLines.push(line);
    if (line.startsWith('connected')) resolve();
  });
  worker.once('exit', (code) => reject(new Error(`the worker exited (code ${code}) before connecting`)));
});

try {
  // The worker prints `connected` once its `ready` resolved: Wardrik has listed its tools by then.
  await connected;
  assert.ok(
    wardrik.workers.list().some((info) => info.tools.includes('reserve_stock')),
    'the worker offers reserve_stock',
  );
  for (const info of wardrik.workers.list()) console.log(`worker ${info.principal} offers ${info.tools.join(', ')}`);

  let result = await wardrik.run('stock', 'Order 3 Earl Grey, please.', { principal: 'shop' });
  const journal = (await wardrik.getRun(result.runId)).journal.map((stored) => stored.record);
  const level = journal.find((record) => record.type === 'call-answered');
  assert.ok(level?.type === 'call-answered' && level.answer.type === 'ok');
  console.log(`stock_level ran on the worker on its own: ${JSON.stringify(level.answer.value)}`);
  console.log(`  labelled [${level.answer.labels}] (worker answers are outside text unless trustedWorkers)`);

  assert.equal(result.status, 'parked');
  const [held] = result.parks;
  assert.ok(held?.call);
  assert.equal(held.call.name, 'workers__reserve_stock');
  console.log(`reserve_stock held: ${held.kind} park, rule ${held.rule}`);
  assert.ok(!workerLines.some((line) => line.startsWith('reserved')), 'reserved before anyone approved');

  await wardrik.answerPark(held.id, { type: 'approve' }, { callHash: held.callHash, by: 'ana' });
  result = await wardrik.wait(result.runId);
  assert.equal(result.status, 'completed');
  assert.ok(workerLines.some((line) => line.startsWith('reserved 3 × tea-earl-grey for agent stock, principal shop')));
  assert.match(result.output ?? '', /"left":9/);
  console.log(`run completed: ${result.output}`);
} finally {
  worker.kill('SIGTERM');
  if (worker.exitCode === null) await once(worker, 'exit');
  await server.close();
  await wardrik.close();
  rmSync(folder, { recursive: true, force: true });
}
assert.equal(worker.exitCode, 0);
console.log('worker stopped');
