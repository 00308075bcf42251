import { CallContext, call, createContext, error, ok, park, type ToolContext, tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { context, contextOptions } from './helpers.js';

describe('context', () => {
  it('gives run the run id, agent, principal, call id, idempotency key and signal', async () => {
    const controller = new AbortController();
    let seen: ToolContext | undefined;
    const spy = tool({
      name: 'spy',
      description: 'Looks at its context.',
      run: (_args, ctx) => {
        seen = ctx;
        return null;
      },
    });
    await call(
      [spy],
      { id: 'c7', name: 'spy' },
      contextOptions({ runId: 'r9', callId: 'c7', idempotencyKey: 'r9:c7', signal: controller.signal }),
    );
    expect(seen).toBeDefined();
    expect(seen?.runId).toBe('r9');
    expect(seen?.agent).toBe('support');
    expect(seen?.principal).toBe('user-1');
    expect(seen?.callId).toBe('c7');
    expect(seen?.idempotencyKey).toBe('r9:c7');
    expect(seen?.signal).toBe(controller.signal);
    expect(seen?.signal.aborted).toBe(false);
    controller.abort();
    expect(seen?.signal.aborted).toBe(true);
  });

  it("carries a person's approval when the call runs again after its park was answered", () => {
    const approval = { parkId: 'park-1', by: 'manager-1', note: 'fine this once' };
    expect(context({ approval }).approval).toEqual(approval);
    expect(context().approval).toBeUndefined();
  });

  it('has a signal that is never aborted when none is given', () => {
    const ctx = context();
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal.aborted).toBe(false);
  });

  it('uses the CallContext it is given as it is', async () => {
    const ctx = context();
    let seen: unknown;
    const spy = tool({
      name: 'spy',
      description: 'd',
      run: (_a, c) => {
        seen = c;
        return null;
      },
    });
    await call([spy], { id: 'c', name: 'spy' }, ctx);
    expect(seen).toBe(ctx);
    expect(ctx).toBeInstanceOf(CallContext);
  });
});

describe('measures', () => {
  it('sums amounts per unit', () => {
    const ctx = context();
    ctx.measure('usd', 0.01);
    ctx.measure('usd', 0.02);
    ctx.measure('inputTokens', 120);
    ctx.measure('pages', 1);
    expect(ctx.measures.usd).toBeCloseTo(0.03, 10);
    expect(ctx.measures).toMatchObject({ inputTokens: 120, pages: 1 });
  });

  it('accepts zero and negative amounts (a refund)', () => {
    const ctx = context();
    ctx.measure('usd', 1);
    ctx.measure('usd', -0.25);
    ctx.measure('calls', 0);
    expect(ctx.measures).toEqual({ usd: 0.75, calls: 0 });
  });

  it.each([
    ['', 1, /unit must be a non-empty string/],
    [7, 1, /unit must be a non-empty string/],
    ['usd', Number.NaN, /amount for "usd" must be a finite number/],
    ['usd', Number.POSITIVE_INFINITY, /finite number/],
    ['usd', '0.01', /finite number/],
    ['usd', undefined, /finite number/],
  ])('rejects measure(%j, %j)', (unit, amount, message) => {
    const ctx = context();
    expect(() => ctx.measure(unit as string, amount as number)).toThrow(message);
    expect(ctx.measures).toEqual({});
  });

  it('sums what run measured with what its answer carries', async () => {
    const paid = tool({
      name: 'paid',
      description: 'd',
      run: (_a, ctx) => {
        ctx.measure('usd', 0.01);
        return ok('done', { measures: { usd: 0.02, tokens: 5 } });
      },
    });
    const answer = await call([paid], { id: 'c', name: 'paid' }, contextOptions());
    expect(answer.measures.usd).toBeCloseTo(0.03, 10);
    expect(answer.measures.tokens).toBe(5);
  });
});

describe('labels on the context', () => {
  it('reads the run labels together with those the call added, sorted and de-duplicated', () => {
    const ctx = context({ labels: ['secret', 'outside'] });
    expect(ctx.labels).toEqual(['outside', 'secret']);
    ctx.addLabels('pii', 'outside');
    ctx.addLabels('another');
    expect(ctx.labels).toEqual(['another', 'outside', 'pii', 'secret']);
    expect(ctx.addedLabels).toEqual(['pii', 'outside', 'another']);
  });

  it('rejects labels that are not non-empty strings', () => {
    const ctx = context();
    expect(() => ctx.addLabels('')).toThrow(/non-empty string/);
    expect(() => ctx.addLabels(3 as unknown as string)).toThrow(TypeError);
  });

  it('run sees the run labels; the answer carries the labels the call added', async () => {
    let seen: readonly string[] = [];
    const reader = tool({
      name: 'reader',
      description: 'd',
      run: (_a, ctx) => {
        ctx.addLabels('outside');
        seen = ctx.labels;
        return 'page';
      },
    });
    const answer = await call([reader], { id: 'c', name: 'reader' }, contextOptions({ labels: ['secret'] }));
    expect(seen).toEqual(['outside', 'secret']);
    expect(answer.labels).toEqual(['outside']);
  });
});

describe('private values on the context', () => {
  it('keeps values by owning module, with a fallback', () => {
    const mine = Symbol('mine');
    const ctx = createContext({ ...contextOptions(), privates: new Map([[mine, { n: 1 }]]) });
    expect(ctx.getPrivate(mine, null)).toEqual({ n: 1 });
    expect(ctx.getPrivate('other', 'none')).toBe('none');
    ctx.putPrivate('other', 2);
    expect(ctx.getPrivate('other', 'none')).toBe(2);
  });

  it('does not write through to the map it was given', () => {
    const privates = new Map<unknown, unknown>([['a', 1]]);
    const ctx = createContext({ ...contextOptions(), privates });
    ctx.putPrivate('a', 2);
    ctx.putPrivate('b', 3);
    expect([...privates]).toEqual([['a', 1]]);
  });
});

describe('what was reported before a failure stays on the answer', () => {
  it('a call that failed after paying still reports what it paid', async () => {
    const flaky = tool({
      name: 'flaky',
      description: 'd',
      run: (_a, ctx) => {
        ctx.measure('usd', 0.05);
        ctx.addLabels('outside');
        throw new Error('upstream timed out');
      },
    });
    expect(await call([flaky], { id: 'c', name: 'flaky' }, contextOptions())).toEqual({
      type: 'error',
      reason: 'upstream timed out',
      code: 'thrown',
      measures: { usd: 0.05 },
      labels: ['outside'],
    });
  });

  it('also after an await, when the promise rejects', async () => {
    const flaky = tool({
      name: 'flaky',
      description: 'd',
      annotations: { labels: ['vendor'] },
      run: async (_a, ctx) => {
        ctx.measure('usd', 0.01);
        await new Promise((resolve) => setTimeout(resolve, 1));
        ctx.measure('tokens', 300);
        throw new Error('rate limited');
      },
    });
    expect(await call([flaky], { id: 'c', name: 'flaky' }, contextOptions())).toEqual({
      type: 'error',
      reason: 'rate limited',
      code: 'thrown',
      measures: { usd: 0.01, tokens: 300 },
      labels: ['vendor'],
    });
  });

  it('and when run answers error or park itself', async () => {
    const refuse = tool({
      name: 'refuse',
      description: 'd',
      run: (_a, ctx) => {
        ctx.measure('usd', 0.02);
        return error('card declined');
      },
    });
    const hold = tool({
      name: 'hold',
      description: 'd',
      run: (_a, ctx) => {
        ctx.measure('usd', 0.03);
        ctx.addLabels('outside');
        return park('needs a manager');
      },
    });
    expect(await call([refuse], { id: 'c', name: 'refuse' }, contextOptions())).toMatchObject({
      type: 'error',
      measures: { usd: 0.02 },
    });
    expect(await call([hold], { id: 'c', name: 'hold' }, contextOptions())).toMatchObject({
      type: 'park',
      measures: { usd: 0.03 },
      labels: ['outside'],
    });
  });

  it('a bad measure inside run is an error answer that keeps the good measures', async () => {
    const sloppy = tool({
      name: 'sloppy',
      description: 'd',
      run: (_a, ctx) => {
        ctx.measure('usd', 0.01);
        ctx.measure('usd', Number.NaN);
        return 'never';
      },
    });
    const answer = await call([sloppy], { id: 'c', name: 'sloppy' }, contextOptions());
    expect(answer).toMatchObject({ type: 'error', measures: { usd: 0.01 } });
    expect(answer.type === 'error' && answer.reason).toContain('finite number');
  });
});
