/** The p-th percentile (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Formats microseconds. */
export function us(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 0)} µs`;
}

/** Prints a table with a title. */
export function table(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n### ${title}`);
  console.table(rows);
}
