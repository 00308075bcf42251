// Wardrik's config: the agents `wardrik serve` runs. Written by `wardrik init`.
//
// The `support` agent runs on the model WARDRIK_MODEL names (e.g. `openai:gpt-4.1-mini` with
// OPENAI_API_KEY set; see the README's "Models"). Without one it runs on a scripted model, so the
// whole flow works offline, for any message: it looks the order up (a read-only tool), asks for a
// refund that waits for a person (a park), then answers with what the refund returned.
//
// Defaults: runs are kept in .wardrik/wardrik.db next to this file; the server listens on
// 127.0.0.1:4000 (set `store` and `server: { host, port }` to change them).
import { park, tool } from '@wardrik/core';
import { defineAgent, defineConfig, type ModelRequest, modelFromEnvironment } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

// Read-only: safe to retry, and repeated after a crash.
const orderStatus = tool({
  name: 'order_status',
  description: 'Say where an order is and what it cost.',
  schema: { order_id: { type: 'string', required: true, doc: 'The order id, e.g. A1' } },
  annotations: { readOnly: true },
  run: ({ order_id }) => ({ order_id, status: 'delivered', total: 250 }),
});

// Not annotated, so not safe to repeat. Over 100 it parks the run until a person answers.
const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  run: ({ order_id, amount }, context) => {
    if (amount > 100 && !context.approval) {
      return park(`refund of ${amount} for order ${order_id} needs a manager`);
    }
    return { refunded: amount, order_id, reference: context.idempotencyKey };
  },
});

/** The order id in the customer's message (A1 if it names none). */
function orderId(request: ModelRequest): string {
  const first = request.messages[0];
  const text = first?.role === 'user' ? first.content : '';
  return /\b[A-Z]+[0-9]+\b/.exec(text)?.[0] ?? 'A1';
}

const scripted = new ScriptedModel(
  [
    (request) => ({
      text: 'Let me look the order up.',
      toolCalls: [{ name: 'order_status', arguments: { order_id: orderId(request) } }],
      measures: { usd: 0.002 },
    }),
    (request) => {
      const order = lastToolResults(request)[0]?.content as { order_id: string; total: number };
      return {
        text: `Order ${order.order_id} came to ${order.total}; refunding it in full.`,
        toolCalls: [{ name: 'refund', arguments: { order_id: order.order_id, amount: order.total } }],
        measures: { usd: 0.002 },
      };
    },
    (request) => {
      const result = lastToolResults(request)[0];
      const text = result?.isError
        ? `I could not refund it: ${JSON.stringify(result.content)}`
        : `Refunded: ${JSON.stringify(result?.content)}`;
      return { text, measures: { usd: 0.002 } };
    },
  ],
  { id: 'scripted-demo' },
);

const model = modelFromEnvironment() ?? scripted;

export default defineConfig({
  agents: [
    defineAgent({
      name: 'support',
      description: 'Looks orders up and refunds them (a scripted demo).',
      instructions: 'Help customers with their orders.',
      model,
      tools: [orderStatus, refund],
      budget: { usd: 1 },
    }),
  ],
});
