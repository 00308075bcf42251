// An agent whose tools come from an MCP server: examples/mcp-server.ts, started as a child process
// over stdio by `mcpToolset`. The server is not trusted, so:
// - what it says of its tools and every answer it gives are labelled `outside` (text nobody on the
//   agent's side wrote; its customer note even tries an injection);
// - its read-only tool (`find_customer`) runs on its own;
// - its side-effecting tool (`send_email`) is held by a gate until a person answers: nothing is
//   sent before, and it is sent once after.
// Offline: a scripted model, a SQLite file in a temp folder. Run: npm run build, then
//   node --conditions=@wardrik/source --import tsx examples/mcp-agent.ts
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWardrik, defineAgent, mcpToolset, sqliteStore } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

const folder = mkdtempSync(join(tmpdir(), 'wardrik-mcp-agent-'));
const outbox = join(folder, 'outbox.jsonl');
const sent = () => (existsSync(outbox) ? readFileSync(outbox, 'utf8').trim().split('\n') : []);

// The MCP server as a child process. It gets only a few safe variables of this process's
// environment (HOME, PATH, …) plus `env`; `--import tsx` lets Node run its TypeScript.
const crm = mcpToolset({
  name: 'crm', // the model sees crm__find_customer and crm__send_email
  command: process.execPath,
  args: ['--import', 'tsx', fileURLToPath(new URL('./mcp-server.ts', import.meta.url))],
  env: { OUTBOX: outbox },
  // Not `trusted: true`, and no `pins`: its tool definitions and answers are outside text.
  log: (message) => console.log(`  [crm toolset] ${message}`),
});

// The model reads the customer, then writes to them (a real model would choose to; this one is scripted).
const model = new ScriptedModel([
  { text: 'Looking the customer up.', toolCalls: [{ name: 'crm__find_customer', arguments: { id: 'cus-7' } }] },
  (request) => {
    // An MCP answer's text reaches the model as it is: here, the customer as JSON.
    const found = lastToolResults(request)[0]?.content;
    const email = /"email":"([^"]+)"/.exec(String(found))?.[1] ?? 'unknown';
    return {
      text: 'Writing to apologise.',
      toolCalls: [
        {
          name: 'crm__send_email',
          arguments: { to: email, subject: 'Your parcel', body: 'Sorry it is late; it ships today.' },
        },
      ],
    };
  },
  (request) => ({ text: `Done: ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
]);

const concierge = defineAgent({
  name: 'concierge',
  instructions: 'Look after customers whose parcels are late.',
  model,
  toolsets: [crm],
});

const wardrik = await createWardrik({ store: sqliteStore(join(folder, 'wardrik.db')), agents: [concierge] });
try {
  let result = await wardrik.run('concierge', 'Customer cus-7 says the parcel is late.', { principal: 'desk' });

  // The read-only call ran on its own; its answer carries `outside`.
  const journal = (await wardrik.getRun(result.runId)).journal.map((stored) => stored.record);
  for (const record of journal) {
    if (record.type === 'model-step') console.log(`model step ${record.step}, labels [${record.labels ?? []}]`);
    if (record.type === 'call-started') console.log(`  → ${record.name} (${record.rule ?? 'no gate'})`);
    if (record.type === 'call-answered') console.log(`  ← ${record.answer.type}, labels [${record.answer.labels}]`);
  }
  const lookup = journal.find((record) => record.type === 'call-answered');
  assert.equal(lookup?.type === 'call-answered' && lookup.answer.type, 'ok');
  assert.ok(lookup?.type === 'call-answered' && lookup.answer.labels.includes('outside'));
  console.log('find_customer ran on its own; its answer is labelled outside');

  // The email waits for a person: nothing was sent.
  assert.equal(result.status, 'parked');
  const [held] = result.parks;
  assert.ok(held?.call);
  console.log(`send_email held: ${held.kind} park, rule ${held.rule}: ${held.reason}`);
  console.log(`  the call: ${held.call.name} ${JSON.stringify(held.call.arguments)}`);
  console.log(`  the run carries [${held.labels}]`);
  assert.equal(held.call.name, 'crm__send_email');
  assert.equal(sent().length, 0);
  console.log('emails sent before the answer: 0');

  // A person reads the call and approves it (bound to this exact call by its hash).
  await wardrik.answerPark(
    held.id,
    { type: 'approve', note: 'the text is fine' },
    { callHash: held.callHash, by: 'ana' },
  );
  result = await wardrik.wait(result.runId);

  assert.equal(result.status, 'completed');
  assert.equal(sent().length, 1);
  console.log(`emails sent after ana approved: ${sent().length} (${sent()[0]})`);
  assert.ok(result.labels.includes('outside'));
  console.log(`run completed: ${result.output}`);
  console.log(`final answer labelled [${result.labels}]`);
} finally {
  await wardrik.close(); // stops the MCP server too
  rmSync(folder, { recursive: true, force: true });
}
