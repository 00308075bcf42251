import { describe, expect, it } from 'vitest';
import { defaultPrices, mergePrices, priceFor, usdFor } from '../src/index.js';

describe('prices', () => {
  it('prices input, cached input, cache writes and output per million tokens', () => {
    expect(usdFor('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(0.15, 12);
    expect(usdFor('gpt-4o-mini', { inputTokens: 0, outputTokens: 1_000_000 })).toBeCloseTo(0.6, 12);
    // 1M input of which 400k cached: 600k × 0.15 + 400k × 0.075.
    expect(usdFor('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 400_000 })).toBeCloseTo(
      0.09 + 0.03,
      12,
    );
    // Anthropic cache writes at their own rate: 1M input, 200k written (3.75), 800k plain (3).
    expect(
      usdFor('claude-sonnet-4-5', { inputTokens: 1_000_000, outputTokens: 0, cacheWriteInputTokens: 200_000 }),
    ).toBeCloseTo(2.4 + 0.75, 12);
  });

  it('prices cached tokens at the input rate when the table has no cached rate', () => {
    const table = { mine: { input: 1, output: 2 } };
    expect(usdFor('mine', { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 500_000 }, table)).toBe(1);
  });

  it('gives no price for an unknown model, never a guess (exact ids only)', () => {
    expect(usdFor('my-finetune', { inputTokens: 10, outputTokens: 5 })).toBeUndefined();
    expect(priceFor('gpt-4o-2024-05-13')).toBeUndefined(); // a snapshot that cost more than gpt-4o
    expect(priceFor('GPT-4O')).toBeUndefined();
    expect(priceFor('toString')).toBeUndefined();
  });

  it('merges tables: later ones extend and override, the defaults stay as they were', () => {
    const merged = mergePrices(
      defaultPrices,
      { 'my-finetune': { input: 3, output: 12 } },
      { 'gpt-4o': { input: 1, output: 1 } },
    );
    expect(priceFor('my-finetune', merged)).toEqual({ input: 3, output: 12 });
    expect(priceFor('gpt-4o', merged)).toEqual({ input: 1, output: 1 });
    expect(priceFor('gpt-4o-mini', merged)).toEqual(defaultPrices['gpt-4o-mini']);
    expect(priceFor('gpt-4o')).toEqual({ input: 2.5, output: 10, cachedInput: 1.25 });
    expect(Object.isFrozen(merged)).toBe(true);
  });
});
