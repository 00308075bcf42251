// Agents working together (README: "Agents working together"):
// 1. Transfer: a triage agent hands the conversation to one of its sub-agents with
//    `transfer_to_agent`; the run goes on under the sub-agent (its instructions, model and tools),
//    journaled as `agent-transferred`.
// 2. A workflow: `sequentialAgent` runs a drafter then an editor, each a child run. The drafter's
//    answer goes to the session's state under its `outputKey` (`draft`), and the editor's
//    instructions read it back as `{draft}`.
// Offline: scripted models, a SQLite file in a temp folder. Run:
//   node --conditions=@wardrik/source --import tsx examples/agents-together.ts
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import {
  createWardrik,
  defineAgent,
  type JournalRecord,
  type ModelRequest,
  sequentialAgent,
  sqliteStore,
  TRANSFER_TOOL,
} from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

// ── 1. Transfer to a sub-agent ────────────────────────────────────────────────────────────────

const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  run: ({ order_id, amount }) => ({ refunded: amount, order_id }),
});

// Each scripted model decides from what it was last given, so it works at whatever step it speaks.
const billing = defineAgent({
  name: 'billing',
  description: 'Refunds and invoices.',
  instructions: 'You handle billing.',
  tools: [refund],
  model: new ScriptedModel((request: ModelRequest) => {
    const answered = lastToolResults(request).find((result) => result.name === 'refund');
    if (answered) return { text: `Refunded: ${JSON.stringify(answered.content)}` };
    return { toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 40 } }] };
  }),
});
const shipping = defineAgent({
  name: 'shipping',
  description: 'Parcels and delivery.',
  instructions: 'You track parcels.',
  model: new ScriptedModel([{ text: 'Your parcel is on its way.' }]),
});
// The model of an agent with sub-agents is offered `transfer_to_agent` with their names.
const triage = defineAgent({
  name: 'triage',
  instructions: 'Greet the customer, then hand them to the right agent.',
  subAgents: [billing, shipping],
  model: new ScriptedModel([
    {
      text: 'Hello! Passing you to billing.',
      toolCalls: [{ name: TRANSFER_TOOL, arguments: { agent_name: 'billing', reason: 'a refund' } }],
    },
  ]),
});

// ── 2. A sequential workflow sharing state through outputKey ──────────────────────────────────

const drafter = defineAgent({
  name: 'drafter',
  instructions: 'Draft a short note about the release.',
  outputKey: 'draft', // its final answer is written to state key `draft`
  model: new ScriptedModel([{ text: 'Version 2.1 is out!!! It adds tasks, and also it adds tags.' }]),
});
const editor = defineAgent({
  name: 'editor',
  instructions: 'Tighten this draft: {draft}', // `{draft}` reads the state the drafter wrote
  outputKey: 'final',
  model: new ScriptedModel((request: ModelRequest) => {
    const draft = request.instructions.replace('Tighten this draft: ', '');
    return { text: draft.replace('!!!', '.').replace(', and also it adds', ' and') };
  }),
});
const newsletter = sequentialAgent({ name: 'newsletter', agents: [drafter, editor] });

// Sub-agents come with the agents that name them, and workflow steps with their workflow.
const folder = mkdtempSync(join(tmpdir(), 'wardrik-agents-together-'));
const wardrik = await createWardrik({ store: sqliteStore(join(folder, 'wardrik.db')), agents: [triage, newsletter] });

/** One line per record that says who did what (`agent` is on a step when another agent spoke). */
function show(record: JournalRecord, runAgent: string): void {
  if (record.type === 'model-step') console.log(`  [${record.agent ?? runAgent}] ${record.text || '…'}`);
  if (record.type === 'call-started') console.log(`    → ${record.name}(${JSON.stringify(record.arguments)})`);
  if (record.type === 'agent-transferred') console.log(`  ⇒ transferred from ${record.from} to ${record.to}`);
  if (record.type === 'child-run-started') console.log(`  ↳ child run of ${record.agent}: ${record.childRunId}`);
}

try {
  console.log('1. Transfer');
  const helped = await wardrik.run('triage', 'I want my 40 back for order A1.', { principal: 'customer-7' });
  const journal = (await wardrik.getRun(helped.runId)).journal.map((stored) => stored.record);
  for (const record of journal) show(record, 'triage');
  assert.equal(helped.status, 'completed');
  assert.ok(journal.some((record) => record.type === 'agent-transferred' && record.to === 'billing'));
  assert.match(helped.output ?? '', /"refunded":40/);
  console.log(`transfer completed: ${helped.output}`);

  console.log('\n2. Workflow');
  const session = await wardrik.createSession('newsletter', { principal: 'editor-desk' });
  const written = await wardrik.run('newsletter', 'Write the release note.', {
    principal: 'editor-desk',
    session: session.id,
  });
  const steps = (await wardrik.getRun(written.runId)).journal.map((stored) => stored.record);
  for (const record of steps) show(record, 'newsletter');
  assert.equal(written.status, 'completed');
  assert.equal(steps.filter((record) => record.type === 'child-run-started').length, 2);
  const state = Object.fromEntries(
    (await wardrik.sessionDetails(session.id)).state.map((value) => [value.key, value.value]),
  );
  console.log(`session state: ${JSON.stringify(state)}`);
  assert.equal(state.draft, 'Version 2.1 is out!!! It adds tasks, and also it adds tags.');
  assert.equal(state.final, 'Version 2.1 is out. It adds tasks and tags.');
  assert.equal(written.output, state.final);
  console.log(`workflow completed: ${written.output}`);
} finally {
  await wardrik.close();
  rmSync(folder, { recursive: true, force: true });
}
