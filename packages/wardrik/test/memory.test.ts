import { OUTSIDE, ok, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineAgent,
  type EmbedFunction,
  InvalidInputError,
  loadMemory,
  type ModelRequest,
  type Wardrik,
} from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const browse = tool({
  name: 'browse',
  description: 'Fetches a page.',
  annotations: { readOnly: true },
  run: () => ok('The shop moved to Lisbon in March.', { labels: [OUTSIDE] }),
});

/**
 * Says what it was told ("noted: …"); for "browse" it browses first, then repeats the page; for
 * "recall: WORDS" it loads memory with WORDS and answers with what it found.
 */
const model = new ScriptedModel((request: ModelRequest) => {
  const input = request.messages.findLast((message) => message.role === 'user');
  const said = input?.role === 'user' ? input.content : '';
  const results = lastToolResults(request);
  if (said === 'browse') {
    return request.step === 1 || results.length === 0
      ? { toolCalls: [{ name: 'browse', arguments: {} }] }
      : { text: `The page says: ${String(results[0]?.content)}` };
  }
  if (said.startsWith('recall: ')) {
    return results.length === 0
      ? { toolCalls: [{ name: 'load_memory', arguments: { query: said.slice('recall: '.length) } }] }
      : { text: JSON.stringify(results[0]?.content) };
  }
  return { text: `noted: ${said}` };
});

const assistant = defineAgent({ name: 'assistant', instructions: 'Help.', model, tools: [browse, loadMemory] });

describe('memory', () => {
  it('adds a session once, each message with the labels of its moment, and finds it by words', async () => {
    wardrik = await openWardrik(tempDbPath(), [assistant]);
    const session = await wardrik.createSession('assistant', { principal: 'alice' });
    await wardrik.run('assistant', 'my favourite tea is genmaicha', { principal: 'alice', session: session.id });
    await wardrik.run('assistant', 'browse', { principal: 'alice', session: session.id });
    expect(await wardrik.memory.addSession(session.id)).toEqual({ added: 4 });
    expect(await wardrik.memory.addSession(session.id)).toEqual({ added: 0 });

    const tea = await wardrik.memory.search({ agent: 'assistant', principal: 'alice', query: 'favourite tea' });
    expect(tea.map((memory) => [memory.role, memory.text, memory.labels])).toEqual([
      ['user', 'my favourite tea is genmaicha', []],
      ['assistant', 'noted: my favourite tea is genmaicha', []],
    ]);
    expect(tea[0]).toMatchObject({ sessionId: session.id, at: expect.any(Number) });
    // The reply written after the page was read carries outside; its run's input did not yet.
    const lisbon = await wardrik.memory.search({ agent: 'assistant', principal: 'alice', query: 'Lisbon' });
    expect(lisbon.map((memory) => [memory.role, memory.labels])).toEqual([['assistant', [OUTSIDE]]]);
    const input = await wardrik.memory.search({ agent: 'assistant', principal: 'alice', query: 'browse' });
    expect(input.map((memory) => [memory.role, memory.labels])).toEqual([['user', []]]);
    // Another principal's memories are not searched.
    expect(await wardrik.memory.search({ agent: 'assistant', principal: 'bob', query: 'tea' })).toEqual([]);
    // Forgotten: found no more; adding the session again remembers it again.
    expect(await wardrik.memory.forget({ agent: 'assistant', principal: 'alice', sessionId: session.id })).toBe(4);
    expect(await wardrik.memory.search({ agent: 'assistant', principal: 'alice', query: 'tea' })).toEqual([]);
    expect(await wardrik.memory.addSession(session.id)).toEqual({ added: 4 });
  });

  it('adds each run of a session when it ends, with addSessions: after-each-run', async () => {
    wardrik = await openWardrik(tempDbPath(), [assistant], { memory: { addSessions: 'after-each-run' } });
    const session = await wardrik.createSession('assistant', { principal: 'alice' });
    await wardrik.run('assistant', 'the parcel for order Q7 never came', { principal: 'alice', session: session.id });
    await wardrik.run('assistant', 'no session, not remembered Q7', { principal: 'alice' });
    const memory = wardrik.memory;
    await until(
      async () => (await memory.search({ agent: 'assistant', principal: 'alice', query: 'Q7' })).length === 2,
    );
    const found = await memory.search({ agent: 'assistant', principal: 'alice', query: 'Q7' });
    expect(found.every((each) => each.sessionId === session.id)).toBe(true);
  });

  it('load_memory finds memories of other sessions, and what a memory carries taints the run that loads it', async () => {
    wardrik = await openWardrik(tempDbPath(), [assistant]);
    const first = await wardrik.createSession('assistant', { principal: 'alice' });
    await wardrik.run('assistant', 'browse', { principal: 'alice', session: first.id });
    await wardrik.memory.addSession(first.id);

    const later = await wardrik.createSession('assistant', { principal: 'alice' });
    const result = await wardrik.run('assistant', 'recall: where is the shop', {
      principal: 'alice',
      session: later.id,
    });
    expect(result.status).toBe('completed');
    expect(result.output).toContain('Lisbon');
    expect(result.labels).toEqual([OUTSIDE]);

    // Nothing outside found: no label.
    const clean = await wardrik.run('assistant', 'recall: genmaicha', { principal: 'alice' });
    expect(clean.output).toBe(JSON.stringify({ memories: [] }));
    expect(clean.labels).toEqual([]);
  });

  it('refuses empty and huge queries with a clear error, to the model and to callers', async () => {
    wardrik = await openWardrik(tempDbPath(), [assistant]);
    const empty = await wardrik.run('assistant', 'recall:  ', { principal: 'alice' });
    // The model reads why its query was refused, and the run goes on.
    expect(empty.status).toBe('completed');
    expect(empty.output).toContain('query: expected words to search for, got an empty query');
    const huge = await wardrik.run('assistant', `recall: ${'tea '.repeat(400)}`, { principal: 'alice' });
    expect(huge.output).toContain('1600 characters is too long: a query is at most 1000 characters');
    const punctuation = await wardrik.run('assistant', 'recall: ?!', { principal: 'alice' });
    expect(punctuation.output).toContain('holds no word to search for');

    const memory = wardrik.memory;
    await expect(memory.search({ agent: 'assistant', query: '' })).rejects.toThrow(InvalidInputError);
    await expect(memory.search({ agent: 'assistant', query: '   ' })).rejects.toThrow('query: expected words');
    await expect(memory.search({ agent: 'assistant', query: 'x'.repeat(1001) })).rejects.toThrow('at most 1000');
    await expect(memory.search({ agent: 'assistant', query: 'tea', limit: 0 })).rejects.toThrow(
      'limit: expected a whole number from 1 to 50',
    );
    await expect(memory.search({ agent: 'nobody', query: 'tea' })).rejects.toThrow('nobody');
    await expect(memory.addSession('ses_nope')).rejects.toThrow('no session "ses_nope"');
    // Still serving.
    expect(await memory.search({ agent: 'assistant', query: 'tea' })).toEqual([]);
  });

  it('with an embedding function, finds what full text cannot, and ranks what both find first', async () => {
    // A toy embedding: one dimension per concept, so that "package" and "parcel" are near.
    const concepts = [
      ['parcel', 'package', 'box', 'delivery'],
      ['missing', 'lost', 'never', 'came'],
      ['tea', 'genmaicha', 'sencha'],
      ['refund', 'money', 'back'],
    ];
    const embed: EmbedFunction = async ({ value }) => {
      const words = value.toLowerCase().split(/\W+/);
      return { embedding: concepts.map((group) => words.filter((word) => group.includes(word)).length + 0.01) };
    };
    wardrik = await openWardrik(tempDbPath(), [assistant], { memory: { embed } });
    const session = await wardrik.createSession('assistant', { principal: 'alice' });
    await wardrik.run('assistant', 'the parcel never came', { principal: 'alice', session: session.id });
    await wardrik.run('assistant', 'I like sencha', { principal: 'alice', session: session.id });
    await wardrik.memory.addSession(session.id);
    const found = await wardrik.memory.search({
      agent: 'assistant',
      principal: 'alice',
      query: 'lost package',
      limit: 2,
    });
    expect(found.map((memory) => memory.text)).toEqual(['the parcel never came', 'noted: the parcel never came']);
    const both = await wardrik.memory.search({ agent: 'assistant', principal: 'alice', query: 'sencha tea', limit: 1 });
    expect(both.map((memory) => memory.text)).toEqual(['I like sencha']);
  });
});
