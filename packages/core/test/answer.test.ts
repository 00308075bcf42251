import { type Answer, call, describeReason, error, isAnswer, ok, park, tool } from '@wardrik/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextOptions } from './helpers.js';

function runOf(run: () => unknown) {
  const built = tool({ name: 'step', description: 'One step.', run });
  return call([built], { id: 'call-1', name: 'step' }, contextOptions());
}

describe('answer constructors', () => {
  it('ok carries the value, no measures and no labels by default', () => {
    const answer = ok({ status: 'shipped' });
    expect(answer).toEqual({ type: 'ok', value: { status: 'shipped' }, measures: {}, labels: [] });
    expect(isAnswer(answer)).toBe(true);
  });

  it('error carries a code when given', () => {
    expect(error('too slow', { code: 'timeout' }).code).toBe('timeout');
    expect('code' in error('too slow')).toBe(false);
  });

  it('error carries a reason, and issues when given', () => {
    expect(error('no such order')).toEqual({ type: 'error', reason: 'no such order', measures: {}, labels: [] });
    const issues = [{ path: 'order_id', message: 'is required' }];
    expect(error('bad', { issues }).issues).toEqual(issues);
    expect('issues' in error('bad')).toBe(false);
  });

  it('park carries a reason, and details when given', () => {
    expect(park('refund over 500 needs a manager')).toEqual({
      type: 'park',
      reason: 'refund over 500 needs a manager',
      measures: {},
      labels: [],
    });
    expect(park('check', { details: { amount: 700 } }).details).toEqual({ amount: 700 });
  });

  it('each carries measures and labels, labels sorted without duplicates', () => {
    const report = { measures: { usd: 0.01 }, labels: ['secret', 'outside', 'secret'] };
    for (const answer of [ok(1, report), error('x', report), park('y', report)]) {
      expect(answer.measures).toEqual({ usd: 0.01 });
      expect(answer.labels).toEqual(['outside', 'secret']);
    }
  });

  it('does not keep a reference to the measures it was given', () => {
    const measures = { usd: 1 };
    const answer = ok(1, { measures });
    measures.usd = 99;
    expect(answer.measures).toEqual({ usd: 1 });
  });

  it('rejects measures that are not finite numbers and labels that are not non-empty strings', () => {
    for (const make of [ok.bind(null, 1), error.bind(null, 'e'), park.bind(null, 'p')]) {
      expect(() => make({ measures: { usd: Number.NaN } })).toThrow(/usd.*finite number/);
      expect(() => make({ measures: { usd: Number.POSITIVE_INFINITY } })).toThrow(TypeError);
      expect(() => make({ measures: { usd: '0.01' as unknown as number } })).toThrow(TypeError);
      expect(() => make({ labels: [''] })).toThrow(/label/);
      expect(() => make({ labels: [7 as unknown as string] })).toThrow(TypeError);
    }
  });

  it('isAnswer tells answers from plain values that look like them', () => {
    expect(isAnswer({ type: 'ok', value: 1, measures: {}, labels: [] })).toBe(false);
    expect(isAnswer(null)).toBe(false);
    expect(isAnswer('ok')).toBe(false);
    expect(isAnswer(park('p'))).toBe(true);
  });

  it('the union narrows on type', () => {
    const answers: Answer[] = [ok(1), error('e'), park('p')];
    const show = (answer: Answer): string => {
      switch (answer.type) {
        case 'ok':
          return `ok:${String(answer.value)}`;
        case 'error':
          return `error:${answer.reason}`;
        case 'park':
          return `park:${answer.reason}`;
      }
    };
    const seen = answers.map(show);
    expect(seen).toEqual(['ok:1', 'error:e', 'park:p']);
  });

  it('describeReason turns anything into readable text', () => {
    expect(describeReason('plain')).toBe('plain');
    expect(describeReason(new Error('boom'))).toBe('boom');
    expect(describeReason(new RangeError(''))).toBe('RangeError');
    expect(describeReason({ code: 'E1' })).toBe('{"code":"E1"}');
    expect(describeReason(undefined)).toBe('unknown error');
    expect(describeReason(42)).toBe('42');
    expect(describeReason(null)).toBe('null');
    expect(describeReason(Symbol('s'))).toBe('Symbol(s)');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeReason(cyclic)).toBe('[object Object]');
    expect(describeReason(10n)).toBe('10');
  });
});

describe('what run returns becomes an answer', () => {
  it('a plain value is ok', async () => {
    expect(await runOf(() => ({ status: 'shipped' }))).toEqual(ok({ status: 'shipped' }));
    expect(await runOf(() => 'shipped')).toMatchObject({ type: 'ok', value: 'shipped' });
    expect(await runOf(() => 0)).toMatchObject({ type: 'ok', value: 0 });
    expect(await runOf(() => false)).toMatchObject({ type: 'ok', value: false });
    expect(await runOf(() => null)).toMatchObject({ type: 'ok', value: null });
  });

  it('undefined is ok(null)', async () => {
    expect(await runOf(() => undefined)).toEqual({ type: 'ok', value: null, measures: {}, labels: [] });
  });

  it('a plain object shaped like an answer is still a plain value', async () => {
    const lookalike = { type: 'error', reason: 'not really' };
    expect(await runOf(() => lookalike)).toMatchObject({ type: 'ok', value: lookalike });
  });

  it('a resolved promise is ok with its value', async () => {
    expect(await runOf(async () => [1, 2])).toMatchObject({ type: 'ok', value: [1, 2] });
  });

  it('an error the tool returns has no code; one it throws has code "thrown"', async () => {
    const returned = await runOf(() => error('no order A1'));
    expect(returned.type === 'error' && 'code' in returned).toBe(false);
    expect(
      await runOf(() => {
        throw new Error('no order A1');
      }),
    ).toMatchObject({ type: 'error', code: 'thrown' });
  });

  it('answers made with ok, error and park are kept as they are', async () => {
    expect(await runOf(() => ok('fine'))).toEqual(ok('fine'));
    expect(await runOf(() => error('no order A1'))).toEqual(error('no order A1'));
    expect(await runOf(async () => park('needs a manager', { details: 700 }))).toEqual(
      park('needs a manager', { details: 700 }),
    );
  });

  it('the answer call() gives is still an answer', async () => {
    expect(isAnswer(await runOf(() => 1))).toBe(true);
  });
});

describe('failures become error answers, never crashes', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });

  it('a thrown Error gives its message', async () => {
    expect(
      await runOf(() => {
        throw new Error('database is down');
      }),
    ).toEqual({ type: 'error', reason: 'database is down', code: 'thrown', measures: {}, labels: [] });
  });

  it('a thrown non-Error value gives readable text', async () => {
    expect(
      await runOf(() => {
        throw 'plain string';
      }),
    ).toMatchObject({ type: 'error', reason: 'plain string' });
    expect(
      await runOf(() => {
        throw { code: 'E_LIMIT' };
      }),
    ).toMatchObject({ type: 'error', reason: '{"code":"E_LIMIT"}' });
    expect(
      await runOf(() => {
        throw undefined;
      }),
    ).toMatchObject({ type: 'error', reason: 'unknown error' });
  });

  it('an async rejection gives its message', async () => {
    expect(
      await runOf(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        throw new TypeError('bad response');
      }),
    ).toMatchObject({ type: 'error', reason: 'bad response' });
    expect(await runOf(() => Promise.reject(new Error('rejected')))).toMatchObject({
      type: 'error',
      reason: 'rejected',
    });
  });

  it('a rejecting thenable gives its reason', async () => {
    const thenable = {
      // biome-ignore lint/suspicious/noThenProperty: testing a non-Promise thenable on purpose
      then(_resolve: (value: unknown) => void, reject: (reason: unknown) => void) {
        reject(new Error('thenable failed'));
      },
    };
    expect(await runOf(() => thenable)).toMatchObject({ type: 'error', reason: 'thenable failed' });
  });

  it('call() itself resolves (never rejects) when run fails', async () => {
    await expect(
      runOf(() => {
        throw new Error('x');
      }),
    ).resolves.toMatchObject({ type: 'error' });
  });
});
