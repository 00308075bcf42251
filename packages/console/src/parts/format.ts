import type { Measures } from '../types';

/** JSON, pretty-printed, for showing as text. */
export function pretty(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function when(ms: number | undefined): string {
  if (ms === undefined) return '';
  const date = new Date(ms);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)} UTC`;
}

/** Measures in a short line: "$0.0123 · 1,200 in · 300 out". */
export function cost(measures: Measures | undefined): string {
  if (measures === undefined) return 'nothing yet';
  const parts: string[] = [];
  const usd = measures['usd'];
  if (usd !== undefined) parts.push(`$${usd.toFixed(usd < 0.01 ? 4 : 2)}`);
  for (const [unit, amount] of Object.entries(measures)) {
    if (unit === 'usd') continue;
    const name = unit === 'inputTokens' ? 'tokens in' : unit === 'outputTokens' ? 'tokens out' : unit;
    parts.push(`${amount.toLocaleString('en')} ${name}`);
  }
  return parts.length === 0 ? 'nothing yet' : parts.join(' · ');
}
