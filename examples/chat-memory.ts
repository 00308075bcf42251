// A chat over sessions, with state and memory:
// - a session holds a conversation: each message is a run in it, and the model sees the turns
//   before it;
// - tools write state through their context: `cart` lives in the session, `user:name` with the
//   customer (every session of theirs); instructions read both (`{user:name?}`, `{cart?}`);
// - once the first conversation is over it is added to memory; a later session, a new
//   conversation, finds it again with the `load_memory` tool.
// Offline: a scripted model, a SQLite file in a temp folder. Run:
//   node --conditions=@wardrik/source --import tsx examples/chat-memory.ts
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import { createWardrik, defineAgent, loadMemory, type ModelRequest, sqliteStore } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

const rememberName = tool({
  name: 'remember_name',
  description: "Remember the customer's name, for every conversation with them.",
  schema: { name: { type: 'string', required: true } },
  annotations: { idempotent: true },
  run: ({ name }, context) => {
    context.state.set('user:name', name); // `user:`: the principal's, in every session
    return { remembered: name };
  },
});

const addToCart = tool({
  name: 'add_to_cart',
  description: 'Put an item in the cart.',
  schema: { item: { type: 'string', required: true } },
  annotations: { idempotent: true },
  run: ({ item }, context) => {
    const cart = context.state.get<string[]>('cart') ?? []; // no prefix: this session's
    context.state.set('cart', [...cart, item]);
    return { cart: [...cart, item] };
  },
});

/**
 * A scripted stand-in for a real model: it answers from the last message, and from what
 * Wardrik gave it — the instructions with state filled in, the earlier turns, tool answers.
 */
function reply(request: ModelRequest) {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') {
    if (last.name === 'load_memory') return { text: `From our earlier talk: ${JSON.stringify(last.content)}` };
    return { text: `Done: ${JSON.stringify(lastToolResults(request)[0]?.content)}` };
  }
  const said = last?.role === 'user' ? last.content : '';
  const earlier = request.messages.filter((message) => message.role === 'user').length - 1;
  const named = /I'm (\w+)/.exec(said);
  if (named) return { toolCalls: [{ name: 'remember_name', arguments: { name: named[1] } }] };
  const wanted = /add (.+) to my cart/i.exec(said);
  if (wanted) return { toolCalls: [{ name: 'add_to_cart', arguments: { item: wanted[1] } }] };
  if (/cart\?/.test(said)) return { text: `(${earlier} earlier messages) ${request.instructions}` };
  if (/parcel/.test(said)) return { toolCalls: [{ name: 'load_memory', arguments: { query: 'parcel late' } }] };
  return { text: 'How can I help?' };
}

const concierge = defineAgent({
  name: 'concierge',
  // State fills these in at the start of each turn (`?`: nothing if the key is not set).
  instructions: 'Help {user:name?}. Cart: {cart?}',
  model: new ScriptedModel(reply),
  tools: [rememberName, addToCart, loadMemory],
});

const folder = mkdtempSync(join(tmpdir(), 'wardrik-chat-memory-'));
const wardrik = await createWardrik({ store: sqliteStore(join(folder, 'wardrik.db')), agents: [concierge] });
const principal = 'customer-7';

/** One turn: a run in the session, printed as a chat line. */
async function say(session: string, message: string): Promise<string> {
  console.log(`you> ${message}`);
  const result = await wardrik.run('concierge', message, { principal, session });
  assert.equal(result.status, 'completed');
  console.log(`concierge> ${result.output}`);
  return result.output ?? '';
}

try {
  console.log('— First conversation —');
  const first = await wardrik.createSession('concierge', { principal });
  await say(first.id, "Hi, I'm Ada. My parcel A1 came two weeks late.");
  await say(first.id, 'Please add sencha to my cart');
  await say(first.id, 'Add a teapot to my cart');
  const cart = await say(first.id, "What's in my cart?");
  // The model saw the earlier turns, and the state its tools wrote, in its instructions.
  assert.equal(cart, '(3 earlier messages) Help Ada. Cart: ["sencha","a teapot"]');
  const details = await wardrik.sessionDetails(first.id);
  console.log(
    `session ${first.id}: ${details.runList.length} runs, state ${JSON.stringify(details.state.map(({ key, value }) => ({ [key]: value })))}`,
  );

  // Keep what was said in memory (or `createWardrik({ memory: { addSessions: 'after-each-run' } })`).
  const added = await wardrik.memory.addSession(first.id);
  console.log(`added to memory: ${JSON.stringify(added)}`);

  console.log('\n— Later, a new conversation —');
  const second = await wardrik.createSession('concierge', { principal });
  const greeting = await say(second.id, "What's in my cart?");
  // `user:name` followed Ada to the new session; the cart stayed with the old one.
  assert.equal(greeting, '(0 earlier messages) Help Ada. Cart: ');
  const recalled = await say(second.id, 'Did that parcel ever arrive?');
  assert.match(recalled, /parcel A1 came two weeks late/);

  const found = await wardrik.memory.search({ agent: 'concierge', principal, query: 'late parcel' });
  console.log(`memory search "late parcel": ${found.map((memory) => `${memory.role}: ${memory.text}`).join(' | ')}`);
  assert.ok(found.some((memory) => memory.sessionId === first.id));
  console.log('memory found the first conversation from the second');
} finally {
  await wardrik.close();
  rmSync(folder, { recursive: true, force: true });
}
