/*
 * Sessions and state across nodes on one PostgreSQL (issues 13 and 14): a conversation goes on on
 * whichever node its next run starts, with its history and state; its runs take turns however
 * many nodes start them at once; and state written on one node is read on another.
 */
import { ok, park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, type Message, SessionBusyError, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';

const opened: Wardrik[] = [];
let schema: string | undefined;
afterEach(async () => {
  const failures = opened.flatMap((wardrik) => (wardrik.failure ? [wardrik.failure.message] : []));
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  expect(failures).toEqual([]);
  if (schema) await dropTestSchema(schema);
  schema = undefined;
});

const remember = tool({
  name: 'remember',
  description: 'Keeps a note.',
  schema: { note: { type: 'string', required: true } },
  annotations: { idempotent: true },
  run: ({ note }, context) => {
    context.state.set('note', note);
    context.state.set('user:seen', (context.state.get<number>('user:seen') ?? 0) + 1);
    return 'kept';
  },
});
const recall = tool({
  name: 'recall',
  description: 'Reads the notes.',
  annotations: { readOnly: true },
  run: (_args, context) => ({ note: context.state.get('note') ?? null, seen: context.state.get('user:seen') ?? 0 }),
});
const refund = tool({
  name: 'refund',
  description: 'Needs a person.',
  run: (_args, context) => (context.approval ? ok('refunded') : park('needs a person')),
});

/** What each node's model saw, by input. */
const seen = new Map<string, Message[]>();

function model() {
  return new ScriptedModel((request) => {
    const first = request.messages.findLast((message) => message.role === 'user');
    const input = first?.role === 'user' ? first.content : '';
    if (request.messages.at(-1)?.role !== 'tool') {
      seen.set(input, [...request.messages]);
      if (input.startsWith('note ')) return { toolCalls: [{ name: 'remember', arguments: { note: input.slice(5) } }] };
      if (input === 'recall') return { toolCalls: [{ name: 'recall' }] };
      if (input === 'refund') return { toolCalls: [{ name: 'refund' }] };
      return { text: `said: ${input}` };
    }
    return { text: JSON.stringify(request.messages.at(-1)?.role === 'tool' ? request.messages.at(-1) : null) };
  });
}

async function node(name: string): Promise<Wardrik> {
  schema ??= testSchemaName();
  const wardrik = await createWardrik({
    store: openPostgresTestStore({ schema, keepSchema: true }),
    agents: [defineAgent({ name: 'clerk', instructions: 'Help.', model: model(), tools: [remember, recall, refund] })],
    node: name,
    claimIntervalMs: 20,
  });
  opened.push(wardrik);
  return wardrik;
}

describe('sessions across nodes on PostgreSQL', () => {
  it('a conversation goes on on another node, with its history and state', async () => {
    const a = await node('a');
    const b = await node('b');
    const session = await a.createSession('clerk', { principal: 'alice' });
    expect((await a.run('clerk', 'note buy milk', { principal: 'alice', session: session.id })).status).toBe(
      'completed',
    );
    const recalled = await b.run('clerk', 'recall', { principal: 'alice', session: session.id });
    expect(recalled.output).toContain('"note":"buy milk"');
    expect(recalled.output).toContain('"seen":1');
    expect(seen.get('recall')?.[0]).toEqual({ role: 'user', content: 'note buy milk' });
    // user: state reaches the principal's other session, on either node; the session's own keys do not.
    const other = await b.createSession('clerk', { principal: 'alice' });
    const elsewhere = await a.run('clerk', 'recall', { principal: 'alice', session: other.id });
    expect(elsewhere.output).toContain('"note":null');
    expect(elsewhere.output).toContain('"seen":1');
    expect((await b.sessionDetails(session.id)).runList).toHaveLength(2);
  });

  it('runs of a session take turns across nodes: refused while one is parked, one of many started at once wins', async () => {
    const a = await node('a');
    const b = await node('b');
    const session = await a.createSession('clerk');
    const parked = await a.run('clerk', 'refund', { session: session.id });
    expect(parked.status).toBe('parked');
    await expect(b.start('clerk', 'hello', { session: session.id })).rejects.toThrow(SessionBusyError);
    const held = parked.parks[0]!;
    await b.answerPark(held.id, { type: 'retry' }, { callHash: held.callHash });
    await until(async () => (await b.getRunSummary(parked.runId)).status === 'completed', 120_000);
    const started = await Promise.allSettled([
      a.start('clerk', 'one', { session: session.id }),
      b.start('clerk', 'two', { session: session.id }),
      a.start('clerk', 'three', { session: session.id }),
      b.start('clerk', 'four', { session: session.id }),
    ]);
    expect(started.filter((each) => each.status === 'fulfilled')).toHaveLength(1);
    for (const each of started) {
      if (each.status === 'rejected') expect(SessionBusyError.isInstance(each.reason)).toBe(true);
    }
  });
});
