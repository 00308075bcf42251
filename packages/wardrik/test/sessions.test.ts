import { OUTSIDE, ok, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, type Message, SessionBusyError, SessionNotFoundError, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

/** A model that answers "you said: <last user message>" and remembers what it saw. */
function echoModel(seen: Message[][]) {
  return new ScriptedModel((request) => {
    seen.push([...request.messages]);
    const last = [...request.messages].reverse().find((message) => message.role === 'user');
    return { text: `you said: ${last?.role === 'user' ? last.content : ''}` };
  });
}

const remember = tool({
  name: 'remember',
  description: 'Keeps a note in the session, and the name in the user state.',
  schema: { note: { type: 'string', required: true } },
  run: ({ note }, context) => {
    context.state.set('note', note);
    context.state.set('user:name', 'Ann');
    context.state.set('temp:scratch', 'gone after the run');
    return 'kept';
  },
});

describe('sessions', () => {
  it('a run in a session sees the conversation before it; a run without one sees nothing', async () => {
    const seen: Message[][] = [];
    const chat = defineAgent({ name: 'chat', instructions: 'Chat.', model: echoModel(seen) });
    wardrik = await openWardrik(tempDbPath(), [chat]);
    const session = await wardrik.createSession('chat', { principal: 'alice' });
    expect(session).toMatchObject({ agent: 'chat', app: 'chat', principal: 'alice', runs: 0 });
    const first = await wardrik.run('chat', 'hello', { principal: 'alice', session: session.id });
    expect(first.output).toBe('you said: hello');
    await wardrik.run('chat', 'again', { principal: 'alice', session: session.id });
    expect(seen[1]).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', text: 'you said: hello', toolCalls: [] },
      { role: 'user', content: 'again' },
    ]);
    await wardrik.run('chat', 'alone', { principal: 'alice' });
    expect(seen[2]).toEqual([{ role: 'user', content: 'alone' }]);
    const details = await wardrik.sessionDetails(session.id);
    expect(details.runs).toBe(2);
    expect(details.runList.map((run) => run.status)).toEqual(['completed', 'completed']);
    expect(details.messages.map((message) => (message.role === 'user' ? message.content : message.role))).toEqual([
      'hello',
      'assistant',
      'again',
      'assistant',
    ]);
  });

  it("refuses another principal's session and another agent's, naming the problem", async () => {
    const chat = defineAgent({ name: 'chat', instructions: 'Chat.', model: echoModel([]) });
    const other = defineAgent({ name: 'other', instructions: 'Chat.', model: echoModel([]) });
    wardrik = await openWardrik(tempDbPath(), [chat, other]);
    const session = await wardrik.createSession('chat', { principal: 'alice' });
    await expect(wardrik.run('chat', 'hi', { principal: 'mallory', session: session.id })).rejects.toThrow(
      SessionNotFoundError,
    );
    await expect(wardrik.run('other', 'hi', { principal: 'alice', session: session.id })).rejects.toThrow(
      `session ${session.id} belongs to agent chat, not other`,
    );
    await expect(wardrik.run('chat', 'hi', { principal: 'alice', session: 'ses_nope' })).rejects.toThrow(
      'no session "ses_nope"',
    );
    await expect(wardrik.createSession('chat', { id: session.id })).rejects.toThrow('exists already');
    await expect(wardrik.createSession('chat', { id: 'has space' })).rejects.toThrow('is not a session id');
    expect((await wardrik.sessionDetails(session.id)).runs).toBe(0);
  });

  it('runs one at a time: a run started while the one before is parked is refused, naming it; once answered the next goes', async () => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds.',
      annotations: { destructive: true },
      run: () => 'refunded',
    });
    const model = new ScriptedModel((request) =>
      request.messages.at(-1)?.role === 'user' && request.messages.at(-1)?.role === 'user' && request.step === 1
        ? { toolCalls: [{ name: 'refund', arguments: {} }] }
        : { text: 'done' },
    );
    const shop = defineAgent({ name: 'shop', instructions: 'Shop.', model, tools: [refund] });
    wardrik = await openWardrik(tempDbPath(), [shop]);
    const session = await wardrik.createSession('shop');
    const first = await wardrik.run('shop', 'refund A1', { session: session.id });
    expect(first.status).toBe('parked');
    const busy = wardrik.start('shop', 'and A2', { session: session.id });
    await expect(busy).rejects.toThrow(SessionBusyError);
    await expect(busy).rejects.toThrow(`its run ${first.runId} is parked, waiting for a person`);
    await expect(wardrik.deleteSession(session.id)).rejects.toThrow(SessionBusyError);
    const park = first.parks[0]!;
    await wardrik.answerPark(park.id, { type: 'approve' }, { callHash: park.callHash });
    expect((await wardrik.wait(first.runId)).status).toBe('completed');
    const second = await wardrik.run('shop', 'thanks', { session: session.id });
    expect(second.status).not.toBe('failed');
    expect((await wardrik.getSession(session.id)).runs).toBe(2);
  });

  it('of runs started at once in one session, one takes the turn and the others are refused', async () => {
    const chat = defineAgent({ name: 'chat', instructions: 'Chat.', model: echoModel([]) });
    wardrik = await openWardrik(tempDbPath(), [chat]);
    const session = await wardrik.createSession('chat');
    const started = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => wardrik!.start('chat', `m${index}`, { session: session.id })),
    );
    expect(started.filter((each) => each.status === 'fulfilled')).toHaveLength(1);
    for (const each of started) {
      if (each.status === 'rejected') expect(SessionBusyError.isInstance(each.reason)).toBe(true);
    }
  });

  it('keeps history and state across a restart', async () => {
    const path = tempDbPath();
    const seen: Message[][] = [];
    const model = new ScriptedModel((request) => {
      seen.push([...request.messages]);
      const last = request.messages.at(-1);
      if (last?.role === 'user' && last.content.startsWith('note ')) {
        return { toolCalls: [{ name: 'remember', arguments: { note: last.content.slice(5) } }] };
      }
      return { text: 'ok' };
    });
    const reader = tool({
      name: 'recall',
      description: 'Reads the state.',
      annotations: { readOnly: true },
      run: (_args, context) => ({
        note: context.state.get('note'),
        name: context.state.get('user:name'),
        scratch: context.state.get('temp:scratch') ?? null,
        session: context.sessionId,
        agent: context.agentName,
      }),
    });
    const notes = defineAgent({ name: 'notes', instructions: 'Notes.', model, tools: [remember, reader] });
    wardrik = await openWardrik(path, [notes]);
    const session = await wardrik.createSession('notes', { principal: 'alice' });
    await wardrik.run('notes', 'note buy milk', { principal: 'alice', session: session.id });
    await wardrik.close();

    const recallModel = new ScriptedModel((request) => {
      seen.push([...request.messages]);
      return request.messages.at(-1)?.role === 'tool' ? { text: 'recalled' } : { toolCalls: [{ name: 'recall' }] };
    });
    const again = defineAgent({ name: 'notes', instructions: 'Notes.', model: recallModel, tools: [remember, reader] });
    wardrik = await openWardrik(path, [again]);
    const result = await wardrik.run('notes', 'what did I say?', { principal: 'alice', session: session.id });
    expect(result.status).toBe('completed');
    const last = seen.at(-1)!;
    expect(last[0]).toEqual({ role: 'user', content: 'note buy milk' });
    expect(last.at(-1)).toMatchObject({
      role: 'tool',
      content: { note: 'buy milk', name: 'Ann', scratch: null, session: session.id, agent: 'notes' },
    });
    // user: state reaches the principal's other sessions with this app; the session's own keys do not.
    const other = await wardrik.createSession('notes', { principal: 'alice' });
    await wardrik.run('notes', 'and here?', { principal: 'alice', session: other.id });
    const elsewhere = seen.at(-1)!.at(-1) as { content: Record<string, unknown> };
    expect(elsewhere.content.name).toBe('Ann');
    expect(elsewhere.content.note).toBeUndefined();
    const details = await wardrik.sessionDetails(session.id);
    expect(details.state.map(({ key, value }) => [key, value])).toEqual([
      ['note', 'buy milk'],
      ['user:name', 'Ann'],
    ]);
  });

  it('cuts the history to the window at a turn, folding what it cut into a summary that carries on', async () => {
    const seen: Message[][] = [];
    const summaries: { dropped: number; summary?: string }[] = [];
    const chat = defineAgent({
      name: 'chat',
      instructions: 'Chat.',
      model: echoModel(seen),
      history: {
        maxMessages: 3,
        summarize: ({ dropped, summary }) => {
          summaries.push({ dropped: dropped.length, ...(summary === undefined ? {} : { summary }) });
          return `${summary ?? ''}[${dropped.length}]`;
        },
      },
    });
    wardrik = await openWardrik(tempDbPath(), [chat]);
    const session = await wardrik.createSession('chat');
    for (const text of ['one', 'two', 'three', 'four']) await wardrik.run('chat', text, { session: session.id });
    expect(seen[3]).toEqual([
      { role: 'user', content: 'Summary of the earlier conversation:\n[2][2]' },
      { role: 'user', content: 'three' },
      { role: 'assistant', text: 'you said: three', toolCalls: [] },
      { role: 'user', content: 'four' },
    ]);
    expect(summaries).toEqual([{ dropped: 2 }, { dropped: 2, summary: '[2]' }]);
  });

  it('a run in a session starts with the labels the run before it ended with', async () => {
    const page = tool({
      name: 'read_page',
      description: 'Reads a page.',
      annotations: { readOnly: true },
      run: () => ok('text from a web page', { labels: [OUTSIDE] }),
    });
    const model = new ScriptedModel((request) =>
      request.messages.at(-1)?.role === 'user' && (request.messages.at(-1) as { content: string }).content === 'read'
        ? { toolCalls: [{ name: 'read_page' }] }
        : { text: 'ok' },
    );
    const reader = defineAgent({ name: 'reader', instructions: 'Read.', model, tools: [page] });
    wardrik = await openWardrik(tempDbPath(), [reader]);
    const session = await wardrik.createSession('reader');
    expect((await wardrik.run('reader', 'read', { session: session.id })).labels).toEqual([OUTSIDE]);
    expect((await wardrik.run('reader', 'next', { session: session.id })).labels).toEqual([OUTSIDE]);
    expect((await wardrik.run('reader', 'fresh')).labels).toEqual([]);
  });

  it('edits state as a person, kept with who and why; temp: keys and bad values are refused naming the key', async () => {
    const chat = defineAgent({ name: 'chat', instructions: 'Chat.', model: echoModel([]) });
    wardrik = await openWardrik(tempDbPath(), [chat]);
    const session = await wardrik.createSession('chat', { principal: 'alice' });
    await wardrik.editSessionState(
      session.id,
      { set: { tier: 'gold', 'user:vip': true } },
      { by: 'olga', reason: 'ticket 12' },
    );
    const details = await wardrik.sessionDetails(session.id);
    expect(details.state.map(({ key, value, updatedBy }) => [key, value, updatedBy])).toEqual([
      ['tier', 'gold', 'person:olga'],
      ['user:vip', true, 'person:olga'],
    ]);
    expect(details.edits).toMatchObject([{ by: 'olga', reason: 'ticket 12' }]);
    await expect(
      wardrik.editSessionState(session.id, { set: { 'temp:x': 1 } }, { by: 'olga', reason: 'r' }),
    ).rejects.toThrow('set.temp:x: temp: keys live in one run only');
    await expect(
      wardrik.editSessionState(session.id, { set: { big: 'x'.repeat(70_000) } }, { by: 'olga', reason: 'r' }),
    ).rejects.toThrow('set.big: state "big": the value is');
    await expect(wardrik.editSessionState(session.id, { delete: ['x'] }, { by: 'olga', reason: ' ' })).rejects.toThrow(
      'reason: say why',
    );
  });
});

describe('a long session read back', () => {
  it('gives its latest messages (reading runs newest first only as far as needed) and says when there are more', async () => {
    const chat = defineAgent({ name: 'chat', instructions: 'Chat.', model: echoModel([]) });
    wardrik = await openWardrik(tempDbPath(), [chat]);
    const session = await wardrik.createSession('chat');
    for (const text of ['one', 'two', 'three']) await wardrik.run('chat', text, { session: session.id });
    const all = await wardrik.sessionDetails(session.id);
    expect(all.messages).toHaveLength(6);
    expect(all.earlierMessages).toBe(false);
    const last = await wardrik.sessionDetails(session.id, { messages: 3 });
    expect(last.messages.map((message) => (message.role === 'user' ? message.content : message.role))).toEqual([
      'assistant',
      'three',
      'assistant',
    ]);
    expect(last.earlierMessages).toBe(true);
    expect(last.runList).toHaveLength(3);
    expect((await wardrik.sessionDetails(session.id, { messages: 0 })).messages).toEqual([]);
    await expect(wardrik.sessionDetails(session.id, { messages: -1 })).rejects.toThrow('messages: expected a number');
  });
});
