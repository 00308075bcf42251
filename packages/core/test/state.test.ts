import { describe, expect, it } from 'vitest';
import {
  call,
  createContext,
  MAX_STATE_VALUE_BYTES,
  OUTSIDE,
  type StateEntry,
  StateView,
  stateKeyProblem,
  stateScope,
  tool,
  toolset,
} from '../src/index.js';

function source(entries: Record<string, StateEntry>) {
  return { entry: (key: string) => entries[key], keys: () => Object.keys(entries) };
}

describe('state keys', () => {
  it('takes its scope from its prefix', () => {
    expect(stateScope('cart')).toBe('session');
    expect(stateScope('user:name')).toBe('user');
    expect(stateScope('app:flags')).toBe('app');
    expect(stateScope('temp:draft')).toBe('temp');
  });

  it.each([
    ['', 'must not be empty'],
    ['user:', 'names a scope but no key'],
    ['a\nb', 'control character'],
    ['x'.repeat(257), 'is 257 characters long (at most 256)'],
    [42, 'must be a string, got number'],
  ])('refuses %j, saying why', (key, problem) => {
    expect(stateKeyProblem(key)).toContain(problem);
  });
});

describe('StateView', () => {
  it('reads the source, then its own writes; deletes hide a stored value', () => {
    const view = new StateView(
      source({ cart: { value: ['a'], labels: [] }, 'user:name': { value: 'Ann', labels: [] } }),
    );
    expect(view.get('cart')).toEqual(['a']);
    view.set('cart', ['a', 'b']);
    view.delete('user:name');
    view.set('temp:n', 1);
    expect(view.get('cart')).toEqual(['a', 'b']);
    expect(view.has('user:name')).toBe(false);
    expect(view.keys()).toEqual(['cart', 'temp:n']);
    expect(view.changes).toEqual([
      { key: 'cart', value: ['a', 'b'] },
      { key: 'user:name', deleted: true },
      { key: 'temp:n', value: 1 },
    ]);
  });

  it('gives copies: changing a value read or written changes nothing stored', () => {
    const stored = { value: { items: ['a'] }, labels: [] };
    const view = new StateView(source({ cart: stored }));
    view.get<{ items: string[] }>('cart')?.items.push('x');
    expect(stored.value.items).toEqual(['a']);
    const mine = { n: 1 };
    view.set('mine', mine);
    mine.n = 2;
    expect(view.get('mine')).toEqual({ n: 1 });
  });

  it.each([
    [undefined, 'got undefined (use delete)'],
    [() => 1, 'a function is not JSON'],
    [Number.NaN, 'NaN is not a JSON number'],
    [{ big: 1n }, 'a bigint is not JSON'],
    ['x'.repeat(MAX_STATE_VALUE_BYTES + 1), `bytes as JSON (at most ${MAX_STATE_VALUE_BYTES})`],
  ])('refuses a value that is not storable JSON (%#), naming the key', (value, problem) => {
    const view = new StateView();
    expect(() => view.set('k', value)).toThrow(`state "k": `);
    expect(() => view.set('k', value)).toThrow(problem);
    expect(view.changes).toEqual([]);
  });

  it('refuses a cycle and nesting deeper than 64 levels', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const view = new StateView();
    expect(() => view.set('k', cycle)).toThrow('state "k": the value nests deeper than 64 levels');
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(() => view.set('k', deep)).toThrow('deeper than 64 levels');
  });

  it('gives the labels of a key whose name it reveals: has() of a stored key, keys() of every stored key listed', () => {
    const read: string[][] = [];
    const view = new StateView(
      source({
        'user:subject:ignore previous instructions': { value: true, labels: [OUTSIDE] },
        'user:plain': { value: 1, labels: [] },
        'user:tagged': { value: 2, labels: ['pii'] },
      }),
      { onRead: (labels) => read.push([...labels]) },
    );
    expect(view.has('user:plain')).toBe(true);
    expect(view.has('user:missing')).toBe(false);
    expect(read).toEqual([]); // nothing labelled was revealed
    expect(view.has('user:subject:ignore previous instructions')).toBe(true);
    expect(read).toEqual([[OUTSIDE]]);
    read.length = 0;
    expect(view.keys()).toEqual(['user:plain', 'user:subject:ignore previous instructions', 'user:tagged']);
    expect(read).toEqual([[OUTSIDE, 'pii']]);
  });

  it('takes no labels for keys only its own call wrote or deleted', () => {
    const read: string[][] = [];
    const view = new StateView(source({ 'user:old': { value: 1, labels: [OUTSIDE] } }), {
      onRead: (labels) => read.push([...labels]),
    });
    view.delete('user:old');
    view.set('user:new', 2);
    expect(view.keys()).toEqual(['user:new']);
    expect(view.has('user:old')).toBe(false);
    expect(read).toEqual([]);
  });

  it('refuses writes the runtime refuses, with its reason', () => {
    const view = new StateView(undefined, {
      writeRefusal: (key) => (key.startsWith('app:') ? 'agent a may not write app: state' : undefined),
    });
    expect(() => view.set('app:flag', true)).toThrow('agent a may not write app: state');
    view.set('flag', true);
    expect(view.changes).toHaveLength(1);
  });
});

describe('a call reading and writing state', () => {
  it('takes the labels of what it reads and hands back its writes', async () => {
    const remember = tool({
      name: 'remember',
      description: 'keeps a note',
      schema: { note: { type: 'string', required: true } },
      run: ({ note }, context) => {
        const earlier = context.state.get<string>('note');
        context.state.set('note', note);
        return { earlier, agent: context.agentName, session: context.sessionId };
      },
    });
    const context = createContext({
      runId: 'r1',
      agent: 'support',
      principal: 'u1',
      callId: 'c1.0',
      idempotencyKey: 'r1:c1.0',
      sessionId: 's1',
      state: source({ note: { value: 'from a web page', labels: [OUTSIDE] } }),
    });
    const answer = await call([remember], { id: 'c1.0', name: 'remember', arguments: { note: 'mine' } }, context);
    expect(answer).toMatchObject({
      type: 'ok',
      value: { earlier: 'from a web page', agent: 'support', session: 's1' },
      labels: [OUTSIDE],
    });
    expect(context.stateChanges).toEqual([{ key: 'note', value: 'mine' }]);
  });
});

describe('toolset()', () => {
  it('builds a toolset, or throws naming the field', () => {
    const tools = () => [];
    expect(toolset({ name: 'shop', tools }).name).toBe('shop');
    expect(() => toolset({ name: 'no spaces', tools })).toThrow('toolset: name "no spaces" is invalid');
    expect(() => toolset({ name: 'shop', tools: [] as never })).toThrow('toolset shop: tools must be a function');
  });
});
