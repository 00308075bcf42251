import type { Registry } from 'prom-client';

/**
 * Counters and histograms counted on every step, kept cheap: one map read by the label values
 * and a few additions (tens of nanoseconds; prom-client's own checks and hashes its labels on each
 * update, about a microsecond). They are registered in a prom-client `Registry`, which renders
 * them with its other metrics (same text format, same `get()` shape), so a scrape can't tell.
 */
interface Registered {
  /** The registry renders what `get` gives (as prom-client's own metrics give it). */
  name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
}

type Values<L extends string> = Readonly<Record<L, string>>;

/** The key of a series: its label values, joined by a character no label value is likely to hold. */
function keyOf(values: readonly string[]): string {
  let key = '';
  for (let index = 0; index < values.length; index++) key += index === 0 ? values[index] : `\u0000${values[index]}`;
  return key;
}

function labelsOf<L extends string>(names: readonly L[], values: readonly string[]): Values<L> {
  const labels = {} as Record<L, string>;
  for (let index = 0; index < names.length; index++) labels[names[index] as L] = String(values[index] ?? '');
  return labels;
}

/** One counted series of a {@link SeriesCounter}: add to it. */
export interface CounterSeries {
  /** Adds `amount` (default 1); a negative or non-finite amount is ignored (a counter only goes up). */
  add(amount?: number): void;
}

class CounterSeriesImpl<L extends string> implements CounterSeries {
  value = 0;
  constructor(readonly labels: Values<L>) {}
  add(amount = 1): void {
    if (amount >= 0 && amount !== Number.POSITIVE_INFINITY) this.value += amount;
  }
}

/**
 * A Prometheus counter whose series are kept by label values (in `labelNames`' order).
 *
 * @example
 * ```ts
 * const calls = new SeriesCounter({ name: 'calls_total', help: 'Calls.', labelNames: ['tool'], registers: [registry] })
 * calls.series('lookup').add()
 * ```
 */
export class SeriesCounter<L extends string = never> implements Registered {
  name: string;
  readonly help: string;
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  readonly #labelNames: readonly L[];
  readonly #series = new Map<string, CounterSeriesImpl<L>>();

  constructor(options: {
    readonly name: string;
    readonly help: string;
    readonly labelNames?: readonly L[];
    readonly registers: readonly Registry[];
  }) {
    this.name = options.name;
    this.help = options.help;
    this.#labelNames = options.labelNames ?? [];
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  /** The series of these label values (made at its first use); keep it to add to it again. */
  series(...values: string[]): CounterSeries {
    const key = keyOf(values);
    let series = this.#series.get(key);
    if (!series) {
      series = new CounterSeriesImpl(labelsOf(this.#labelNames, values));
      this.#series.set(key, series);
    }
    return series;
  }

  /** What prom-client's registry renders. */
  get(): {
    name: string;
    help: string;
    type: 'counter';
    aggregator: 'sum';
    values: { labels: Values<L>; value: number }[];
  } {
    const values = [...this.#series.values()].map((series) => ({ labels: series.labels, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every series (the registry's `resetMetrics`). */
  reset(): void {
    this.#series.clear();
  }
}

/** One observed series of a {@link SeriesHistogram}: observe values in it. */
export interface HistogramSeries {
  /** Counts `value` in its bucket, its sum and its count; a non-finite value is ignored. */
  observe(value: number): void;
}

class HistogramSeriesImpl<L extends string> implements HistogramSeries {
  /** Observations in each bucket (not cumulative); the last one is `+Inf`'s own. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Values<L>,
    readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > (bounds[index] as number)) index++;
    (this.counts as number[])[index] = (this.counts[index] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/** A sample of a histogram, as prom-client's registry renders it. */
interface HistogramSample<L extends string> {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly sharedLabels?: Values<L>;
  readonly value: number;
}

/**
 * A Prometheus histogram whose series are kept by label values (in `labelNames`' order): `_bucket`
 * (cumulative, `le` each bound and `+Inf`), `_sum` and `_count` of each.
 *
 * @example
 * ```ts
 * const latency = new SeriesHistogram({ name: 'latency_seconds', help: 'Latency.', labelNames: ['tool'], buckets: [0.1, 1], registers: [registry] })
 * latency.series('lookup').observe(0.02)
 * ```
 */
export class SeriesHistogram<L extends string = never> implements Registered {
  name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly #labelNames: readonly L[];
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, HistogramSeriesImpl<L>>();

  constructor(options: {
    readonly name: string;
    readonly help: string;
    readonly labelNames?: readonly L[];
    readonly buckets: readonly number[];
    readonly registers: readonly Registry[];
  }) {
    this.name = options.name;
    this.help = options.help;
    this.#labelNames = options.labelNames ?? [];
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  /** The series of these label values (made at its first use); keep it to observe in it again. */
  series(...values: string[]): HistogramSeries {
    const key = keyOf(values);
    let series = this.#series.get(key);
    if (!series) {
      series = new HistogramSeriesImpl(labelsOf(this.#labelNames, values), this.#bounds);
      this.#series.set(key, series);
    }
    return series;
  }

  /** What prom-client's registry renders as text: each sample's own labels (`le`) first, then the series'. */
  getForPromString(): {
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: HistogramSample<L>[];
  } {
    const values: HistogramSample<L>[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.#series.values()) {
      let cumulative = 0;
      for (let index = 0; index < this.#bounds.length; index++) {
        cumulative += series.counts[index] as number;
        values.push({
          metricName: bucket,
          labels: { le: this.#bounds[index] as number },
          sharedLabels: series.labels,
          value: cumulative,
        });
      }
      values.push({ metricName: bucket, labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: {}, sharedLabels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: {}, sharedLabels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** What prom-client's registry gives as JSON (each sample's labels and its series' together). */
  get(): {
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: { metricName: string; labels: Readonly<Record<string, string | number>>; value: number; exemplar?: null }[];
  } {
    const rendered = this.getForPromString();
    return {
      ...rendered,
      // As prom-client gives them: each sample's labels and its series' together; buckets with no exemplar.
      values: rendered.values.map(({ metricName, labels, sharedLabels, value }) =>
        metricName.endsWith('_bucket')
          ? { metricName, labels: { ...labels, ...sharedLabels }, value, exemplar: null }
          : { metricName, labels: { ...labels, ...sharedLabels }, value },
      ),
    };
  }

  /** Forgets every series (the registry's `resetMetrics`). */
  reset(): void {
    this.#series.clear();
  }
}
