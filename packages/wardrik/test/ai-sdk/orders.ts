/**
 * The agent and the server logic shared by the model tests and their child process: a support
 * agent with one real tool, and a chat-completions handler that asks for that tool first and
 * answers from its results once the request carries them.
 */
import { tool } from '@wardrik/core';
import { type Agent, defineAgent, type Model } from '../../src/index.js';
import type { ChatRequest, Reply } from './fake-openai.js';

export const INSTRUCTIONS = 'You help customers with their orders.';

const ORDERS: Readonly<Record<string, string>> = { A1: 'shipped', B2: 'packed' };

/** A real (read-only) tool: unknown orders are an error answer. */
export const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up by its id.',
  schema: { order_id: { type: 'string', required: true, doc: 'The order id, e.g. A1.' } },
  annotations: { readOnly: true },
  run: ({ order_id }) => {
    const status = ORDERS[String(order_id)];
    if (status === undefined) throw new Error(`no order ${order_id}`);
    return { order_id, status };
  },
});

export function supportAgent(model: Model): Agent {
  return defineAgent({ name: 'support', instructions: INSTRUCTIONS, model, tools: [lookupOrder] });
}

/**
 * Step 1 (no tool results yet): refuses a request without the tool's definition, then asks for
 * `lookup_order` on every order id in the user's message, in parallel. Step 2: answers from the
 * tool results, which must name the calls of step 1.
 */
export function ordersReply(request: ChatRequest): Reply {
  const { messages, tools } = request.body;
  const definition = tools?.find((each) => each.function.name === 'lookup_order');
  if (!definition) return { status: 400, message: 'the request carries no lookup_order tool' };
  const results = messages.filter((message) => message.role === 'tool');
  if (results.length === 0) {
    const user = messages.find((message) => message.role === 'user')?.content ?? '';
    const ids = user.match(/\b[A-Z]\d\b/g) ?? [];
    return {
      stream: {
        text: ['Let me ', 'look.'],
        toolCalls: ids.map((id) => ({ id: `call_${id}`, name: 'lookup_order', arguments: { order_id: id } })),
        usage: { prompt: 100, completion: 20 },
      },
    };
  }
  const asked = messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.id);
  const answered = results.map((result) => result.tool_call_id);
  if (asked.join() !== answered.join()) {
    return { status: 400, message: `tool results ${answered.join()} do not match the calls ${asked.join()}` };
  }
  const lines = results.map((result) => `${result.tool_call_id}=${result.content}`);
  return {
    stream: { text: ['Here ', 'you are: ', lines.join('; ')], usage: { prompt: 300, completion: 40, cached: 100 } },
  };
}
