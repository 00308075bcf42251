/**
 * What a step cost, by unit: `usd`, `inputTokens`, `outputTokens`, or any unit a tool reports.
 */
export type Measures = Record<string, number>;

/** Sums measures unit by unit into a new object. */
export function addMeasures(...all: ReadonlyArray<Readonly<Measures> | undefined>): Measures {
  const sum: Measures = {};
  for (const measures of all) {
    if (!measures) continue;
    for (const unit in measures) sum[unit] = (sum[unit] ?? 0) + (measures[unit] ?? 0);
  }
  return sum;
}

/** Throws unless `unit` is a non-empty string and `amount` a finite number. */
export function checkMeasure(unit: unknown, amount: unknown): void {
  if (typeof unit !== 'string' || unit.length === 0) {
    throw new TypeError(`measure: unit must be a non-empty string, got ${JSON.stringify(unit)}`);
  }
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw new TypeError(`measure: amount for "${unit}" must be a finite number, got ${String(amount)}`);
  }
}
