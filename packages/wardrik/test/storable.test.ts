/*
 * What a tool's answer becomes before the journal and the model see it (runtime/storable.ts): plain
 * JSON, exactly what JSON.stringify then JSON.parse would give — a copy, made without JSON when
 * the value is plain already — or an error answer saying why it can't be kept.
 */
import { MAX_JSON_DEPTH, ok, park } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { storableAnswer } from '../src/runtime/storable.js';

const viaJson = (value: unknown) => JSON.parse(JSON.stringify(value) ?? 'null');
const keptValue = (value: unknown) => {
  const answer = storableAnswer(ok(value));
  if (answer.type !== 'ok') throw new Error(`not ok: ${answer.type === 'error' ? answer.reason : ''}`);
  return answer.value;
};

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('storableAnswer', () => {
  it.each([
    ['a plain object', { b: 1, a: 'two', c: [true, null, 3.5], d: { e: [] } }],
    ['integer keys first, as JSON writes them', { b: 1, 2: 'x', 1: 'y' }],
    ['minus zero', { zero: -0, list: [-0] }],
    ['non-finite numbers', { nan: Number.NaN, inf: [Number.POSITIVE_INFINITY] }],
    ['undefined members and holes', { skipped: undefined, list: [1, undefined, 4], holes: new Array(2) }],
    ['a date', { at: new Date(0) }],
    ['a class instance', { point: new Point(1, 2) }],
    ['an object with toJSON', { money: { toJSON: () => '5 EUR' } }],
    ['a map (JSON writes {})', { seen: new Map([['a', 1]]) }],
    ['an own __proto__ key', JSON.parse('{"__proto__": {"admin": true}, "x": 1}')],
    ['a null-prototype object', Object.assign(Object.create(null), { a: 1 })],
    ['a lone surrogate', { text: 'a\ud800b' }],
  ])('%s: what JSON.stringify then JSON.parse give, key order too', (_, value) => {
    const kept = keptValue(value);
    expect(kept).toEqual(viaJson(value));
    expect(JSON.stringify(kept)).toBe(JSON.stringify(viaJson(value)));
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
  });

  it('copies: changing what the tool returned afterwards changes nothing kept', () => {
    const returned = { items: [{ id: 1 }] };
    const kept = keptValue(returned) as typeof returned;
    returned.items[0]!.id = 2;
    returned.items.push({ id: 3 });
    expect(kept).toEqual({ items: [{ id: 1 }] });
  });

  it('keeps the measures given, and the labels', () => {
    const answer = storableAnswer(ok({ a: 1 }, { labels: ['outside'], measures: { usd: 1 } }), { usd: 3 });
    expect(answer).toEqual({ type: 'ok', value: { a: 1 }, labels: ['outside'], measures: { usd: 3 } });
  });

  it("copies a park's details the same way", () => {
    const details = { at: new Date(0), n: 1 };
    const answer = storableAnswer(park('ask', { details }));
    expect(answer.type === 'park' && answer.details).toEqual({ at: '1970-01-01T00:00:00.000Z', n: 1 });
  });

  it.each([
    [
      'nested too deep',
      () => {
        let value: unknown = 1;
        for (let level = 0; level <= MAX_JSON_DEPTH; level++) value = { value };
        return value;
      },
      `nests deeper than ${MAX_JSON_DEPTH} levels`,
    ],
    [
      'a cycle',
      () => {
        const value: Record<string, unknown> = {};
        value.self = value;
        return value;
      },
      `nests deeper than ${MAX_JSON_DEPTH} levels`,
    ],
    ['a bigint inside', () => ({ amount: 10n }), 'has no JSON form'],
    [
      'a getter that throws',
      () => ({
        get secret(): string {
          throw new Error('no access');
        },
      }),
      'has no JSON form (no access)',
    ],
  ])('%s: an error answer naming why, keeping labels and measures', (_, make, why) => {
    const answer = storableAnswer(ok(make(), { labels: ['outside'] }), { usd: 2 });
    expect(answer).toMatchObject({ type: 'error', code: 'invalid_answer', labels: ['outside'], measures: { usd: 2 } });
    expect(answer.type === 'error' && answer.reason).toContain(why);
  });

  it('just under the depth limit is kept', () => {
    let value: unknown = 1;
    for (let level = 0; level < MAX_JSON_DEPTH; level++) value = { value };
    expect(keptValue(value)).toEqual(value);
  });
});
