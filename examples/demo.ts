// The offline demo: the seed's tools, an agent on a scripted model, a durable run on SQLite that
// parks for a person, is answered, and finishes. Run: npm run demo
import { error, OUTSIDE, ok, park, tool } from '@wardrik/core';
import { createWardrik, defineAgent, isJournaled, type RunEvent, sqliteStore } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

const orders: Record<string, { status: string; total: number }> = {
  A1: { status: 'shipped', total: 250 },
  B2: { status: 'processing', total: 40 },
};

// The seed's `order_status`: read-only, so it is retried on failure and repeated after a crash.
const orderStatus = tool({
  name: 'order_status',
  description: 'Say where an order is.',
  schema: { order_id: { type: 'string', required: true, doc: 'The order id, e.g. A1' } },
  annotations: { readOnly: true },
  run: ({ order_id }) => orders[order_id] ?? error(`no order ${order_id}`),
});

// The seed's paid `Enrich` lookup: it reports what it cost.
const enrich = tool({
  name: 'enrich',
  description: 'Look a customer up by email in a paid directory.',
  schema: { email: { type: 'string', required: true } },
  annotations: { readOnly: true, openWorld: true },
  run: ({ email }, context) => {
    context.measure('usd', 0.01);
    return { email, name: 'Ada Lovelace', tier: 'gold' };
  },
});

// The seed's web page: text nobody on the agent's side wrote, labelled `outside`.
const fetchPage = tool({
  name: 'fetch_page',
  description: 'Fetch a web page.',
  schema: { url: { type: 'string', required: true } },
  annotations: { readOnly: true, openWorld: true },
  run: ({ url }) => ok(`<h1>Refund policy</h1><p>Refunds within 30 days. (${url})</p>`, { labels: [OUTSIDE] }),
});

// Not annotated: not safe to repeat. Over 100 it waits for a person.
const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  run: ({ order_id, amount }, context) => {
    if (amount > 100 && !context.approval) return park(`refund of ${amount} for ${order_id} needs a manager`);
    return { refunded: amount, order_id, idempotencyKey: context.idempotencyKey };
  },
});

const model = new ScriptedModel([
  {
    text: 'Checking the order.',
    toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }],
    measures: { usd: 0.002 },
  },
  {
    text: 'Looking up the customer and the policy.',
    toolCalls: [
      { name: 'enrich', arguments: { email: 'ada@example.com' } },
      { name: 'fetch_page', arguments: { url: 'https://shop.example/refunds' } },
    ],
    measures: { usd: 0.002 },
  },
  {
    text: 'Refunding in full.',
    toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 250 } }],
    measures: { usd: 0.002 },
  },
  (request) => ({ text: `Done: ${JSON.stringify(lastToolResults(request)[0]?.content)}`, measures: { usd: 0.002 } }),
]);

const support = defineAgent({
  name: 'support',
  instructions: 'Help customers with their orders.',
  model,
  tools: [orderStatus, enrich, fetchPage, refund],
  budget: { usd: 1 },
});

function show(event: RunEvent): void {
  if (!isJournaled(event)) return; // streamed text, progress and model retries are live only
  const record = event.record;
  const line = (() => {
    switch (record.type) {
      case 'run-started':
        return `run started for ${record.principal}: "${record.input}"`;
      case 'model-step':
        return `model step ${record.step}: ${record.text}`;
      case 'call-started':
        return `  → ${record.name}(${JSON.stringify(record.arguments)})${record.repeatable ? '' : '  [intent on disk first: not repeatable]'}`;
      case 'call-answered':
        return `  ← ${record.answer.type} ${JSON.stringify(record.answer.type === 'ok' ? record.answer.value : record.answer.reason)}${record.answer.labels.length ? `  labels: ${record.answer.labels}` : ''}`;
      case 'run-parked':
        return `  ⏸ parked (${record.park.kind}): ${record.park.reason}`;
      case 'park-answered':
        // On a tool park, approve is taken as retry: run the call (see README, Parks).
        return `  ▶ ${record.by} answered: ${record.decision.type === 'retry' ? 'approve (run the call)' : record.decision.type}`;
      case 'run-ended':
        return `run ${record.status}`;
    }
  })();
  console.log(`[${String(event.seq).padStart(2)}] ${line}`);
}

const wardrik = await createWardrik({ store: sqliteStore('.wardrik/demo.db'), agents: [support] });
const { runId } = await wardrik.start('support', 'Please refund my order A1.', { principal: 'customer-7' });
// Follow the run from its first record, live, until it ends.
const following = (async () => {
  for await (const event of wardrik.follow(runId)) show(event);
})();
let result = await wardrik.wait(runId);

for (const parked of result.parks) {
  console.log(`\nA person looks at park ${parked.id}: ${parked.call?.name} ${JSON.stringify(parked.call?.arguments)}`);
  console.log('…and approves it (the answer is bound to this exact call by its hash).\n');
  await wardrik.answerPark(
    parked.id,
    { type: 'approve', note: 'approved' },
    { callHash: parked.callHash, by: 'manager' },
  );
}
result = await wardrik.wait(runId);
await following;

console.log(`\nFinal answer: ${result.output}`);
console.log(`Labels carried: ${JSON.stringify(result.labels)}`);
console.log(
  `Cost: ${(result.measures.usd ?? 0).toFixed(3)} usd, ${result.measures.inputTokens} input and ${result.measures.outputTokens} output tokens`,
);
console.log(`Journal: ${(await wardrik.getRun(runId)).journal.length} records in .wardrik/demo.db (run ${runId})`);
await wardrik.close();
// The demo checks its own outcome, so a test (and CI) can run it: exit 1 unless the refund went through.
if (result.status !== 'completed' || !result.output?.includes('"refunded":250')) {
  console.error(`the demo did not finish as it should: the run is ${result.status}`);
  process.exitCode = 1;
}
