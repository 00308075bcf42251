import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { Registry } from 'prom-client';

/** prom-client's event loop metrics, replaced by {@link registerEventLoopLag}'s. */
const NAMES = {
  lag: 'nodejs_eventloop_lag_seconds',
  min: 'nodejs_eventloop_lag_min_seconds',
  max: 'nodejs_eventloop_lag_max_seconds',
  mean: 'nodejs_eventloop_lag_mean_seconds',
  stddev: 'nodejs_eventloop_lag_stddev_seconds',
  p50: 'nodejs_eventloop_lag_p50_seconds',
  p90: 'nodejs_eventloop_lag_p90_seconds',
  p99: 'nodejs_eventloop_lag_p99_seconds',
} as const;

const HELP: Record<keyof typeof NAMES, string> = {
  lag: 'Lag of event loop in seconds.',
  min: 'The minimum recorded event loop delay.',
  max: 'The maximum recorded event loop delay.',
  mean: 'The mean of the recorded event loop delays.',
  stddev: 'The standard deviation of the recorded event loop delays.',
  p50: 'The 50th percentile of the recorded event loop delays.',
  p90: 'The 90th percentile of the recorded event loop delays.',
  p99: 'The 99th percentile of the recorded event loop delays.',
};

type Window = Record<Exclude<keyof typeof NAMES, 'lag'>, number>;

/** A gauge whose value is read when scraped; it has no sample until it has a value (never NaN). */
class ReadGauge {
  readonly type = 'gauge' as const;
  readonly aggregator: 'average' | 'min' | 'max';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly read: () => number | undefined | Promise<number | undefined>,
    aggregator: 'average' | 'min' | 'max' = 'average',
  ) {
    this.aggregator = aggregator;
  }
  async get() {
    const value = await this.read();
    const values = value === undefined || !Number.isFinite(value) ? [] : [{ labels: {}, value }];
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
  reset(): void {}
}

/**
 * Node's event loop metrics under prom-client's names (`nodejs_eventloop_lag_*`), replacing
 * prom-client's own in `registry`. prom-client reads a delay histogram that it resets at every
 * scrape, so a scrape that came before the histogram's next sample (the first one after a start,
 * or two scrapes within its 10 ms resolution) read an empty window: `NaN` for the mean and the
 * standard deviation (written `Nan`), and 9223372036.85 s (2^63 ns) for the minimum. Here a window
 * is taken (and the histogram reset) only once it holds samples; until then a scrape reads the last
 * window taken, and before the first, these metrics have no sample. `nodejs_eventloop_lag_seconds`
 * is measured at the scrape (how late a `setImmediate` made then runs). Returns the function that
 * stops the histogram.
 */
export function registerEventLoopLag(registry: Registry): () => void {
  for (const name of Object.values(NAMES)) registry.removeSingleMetric(name);
  let histogram: IntervalHistogram | undefined;
  try {
    histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
  } catch {
    histogram = undefined; // a runtime without it (Bun): the lag alone
  }
  let last: Window | undefined;
  let taken: Promise<Window | undefined> | undefined;
  /** The window since the last one taken, if it holds samples (one read per scrape, whatever reads it). */
  const window = (): Promise<Window | undefined> => {
    taken ??= Promise.resolve().then(() => {
      taken = undefined;
      const current = histogram;
      if (current && current.count > 0) {
        last = {
          min: current.min / 1e9,
          max: current.max / 1e9,
          mean: current.mean / 1e9,
          stddev: current.stddev / 1e9,
          p50: current.percentile(50) / 1e9,
          p90: current.percentile(90) / 1e9,
          p99: current.percentile(99) / 1e9,
        };
        current.reset();
      }
      return last;
    });
    return taken;
  };
  const lag = () =>
    new Promise<number>((resolve) => {
      const start = process.hrtime.bigint();
      setImmediate(() => resolve(Number(process.hrtime.bigint() - start) / 1e9));
    });
  const metrics = [new ReadGauge(NAMES.lag, HELP.lag, lag)];
  if (histogram) {
    for (const key of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const) {
      const aggregator = key === 'min' ? 'min' : key === 'max' ? 'max' : 'average';
      metrics.push(new ReadGauge(NAMES[key], HELP[key], async () => (await window())?.[key], aggregator));
    }
  }
  for (const metric of metrics) registry.registerMetric(metric as never);
  return () => histogram?.disable();
}
