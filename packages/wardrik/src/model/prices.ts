import type { Usage } from './model.js';

/** A model's price in USD per million tokens. */
export interface Price {
  /** Input (prompt) tokens not read from a cache. */
  readonly input: number;
  readonly output: number;
  /** Input tokens read from the provider's prompt cache; when absent they cost `input`. */
  readonly cachedInput?: number;
  /** Input tokens written to the prompt cache (Anthropic); when absent they cost `input`. */
  readonly cacheWriteInput?: number;
}

/** Prices by the provider's model id (`gpt-4.1-mini`, `claude-sonnet-4-5`), matched exactly. */
export type PriceTable = Readonly<Record<string, Price>>;

/** When the default prices were copied from the providers' public pricing pages. */
export const PRICES_AS_OF = '2025-11';

const gpt5: Price = { input: 1.25, output: 10, cachedInput: 0.125 };
const gpt41: Price = { input: 2, output: 8, cachedInput: 0.5 };
const gpt41Mini: Price = { input: 0.4, output: 1.6, cachedInput: 0.1 };
const gpt41Nano: Price = { input: 0.1, output: 0.4, cachedInput: 0.025 };
const gpt4o: Price = { input: 2.5, output: 10, cachedInput: 1.25 };
const gpt4oMini: Price = { input: 0.15, output: 0.6, cachedInput: 0.075 };
const opus45: Price = { input: 5, output: 25, cachedInput: 0.5, cacheWriteInput: 6.25 };
const sonnet4: Price = { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 };
const haiku45: Price = { input: 1, output: 5, cachedInput: 0.1, cacheWriteInput: 1.25 };

/**
 * Default prices for a handful of common models, from OpenAI's and Anthropic's pricing pages as of
 * {@link PRICES_AS_OF} (standard tier, no batch discount). They are defaults, not truth: prices
 * change, and your contract may differ. Extend or override them with {@link mergePrices} or the
 * `prices` option of `aiSdkModel`. A model missing here gets no `usd` measure, never a guess.
 */
export const defaultPrices: PriceTable = {
  'gpt-5': gpt5,
  'gpt-5-2025-08-07': gpt5,
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-4.1': gpt41,
  'gpt-4.1-2025-04-14': gpt41,
  'gpt-4.1-mini': gpt41Mini,
  'gpt-4.1-mini-2025-04-14': gpt41Mini,
  'gpt-4.1-nano': gpt41Nano,
  'gpt-4.1-nano-2025-04-14': gpt41Nano,
  'gpt-4o': gpt4o,
  'gpt-4o-2024-08-06': gpt4o,
  'gpt-4o-2024-11-20': gpt4o,
  'gpt-4o-mini': gpt4oMini,
  'gpt-4o-mini-2024-07-18': gpt4oMini,
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  'claude-opus-4-5': opus45,
  'claude-opus-4-5-20251101': opus45,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4-5-20250929': sonnet4,
  'claude-sonnet-4-0': sonnet4,
  'claude-sonnet-4-20250514': sonnet4,
  'claude-haiku-4-5': haiku45,
  'claude-haiku-4-5-20251001': haiku45,
};

/**
 * A new table with the entries of every table, later ones winning for the same model id.
 *
 * @example
 * ```ts
 * const prices = mergePrices(defaultPrices, { 'my-finetune': { input: 3, output: 12 } })
 * ```
 */
export function mergePrices(...tables: readonly PriceTable[]): PriceTable {
  return Object.freeze(Object.assign({}, ...tables));
}

/** The price of a model id in a table (exact match only), or undefined. */
export function priceFor(modelId: string, table: PriceTable = defaultPrices): Price | undefined {
  return Object.hasOwn(table, modelId) ? table[modelId] : undefined;
}

/**
 * What one model call cost in USD, or undefined when the table has no price for the model.
 * `inputTokens` counts every input token; the cached and cache-written ones among them are priced
 * at their own rates when the table has them.
 *
 * @example
 * ```ts
 * usdFor('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 0 }) // 0.15
 * usdFor('my-model', { inputTokens: 10, outputTokens: 5 })           // undefined
 * ```
 */
export function usdFor(modelId: string, usage: Usage, table: PriceTable = defaultPrices): number | undefined {
  const price = priceFor(modelId, table);
  if (price === undefined) return undefined;
  const cached = Math.max(0, usage.cachedInputTokens ?? 0);
  const written = Math.max(0, usage.cacheWriteInputTokens ?? 0);
  const plain = Math.max(0, usage.inputTokens - cached - written);
  const micro =
    plain * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWriteInput ?? price.input) +
    Math.max(0, usage.outputTokens) * price.output;
  return micro / 1_000_000;
}
