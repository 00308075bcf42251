/*
 * Telemetry (issue 29, item 3): every value of a scrape is a number Prometheus can use. After a
 * restart, a scrape read `Nan` and `nodejs_eventloop_lag_min_seconds 9223372036.85`: prom-client's
 * event loop metrics read a delay histogram it resets at every scrape, and a scrape that came
 * before its next sample (the first after a start, or two within its 10 ms resolution) read an
 * empty window (mean and deviation NaN, minimum 2^63 ns).
 */
import { describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, enableMetrics } from '../src/index.js';
import { MemoryStore, ScriptedModel } from '../src/testing/index.js';
import { until } from './helpers.js';

/** Every sample of a scrape: name and labels as written, and its value as written. */
function samples(text: string): Array<{ series: string; value: string }> {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const at = line.lastIndexOf(' ');
      return { series: line.slice(0, at), value: line.slice(at + 1) };
    });
}

const value = (text: string, series: string) => samples(text).find((each) => each.series === series)?.value;

describe('scrapes right after a start, and back to back', () => {
  it('hold no NaN, and no event loop minimum above its maximum', async () => {
    const wardrik = await createWardrik({
      store: new MemoryStore(),
      agents: [defineAgent({ name: 'a', instructions: '', model: new ScriptedModel([{ text: 'hi' }]) })],
    });
    try {
      const metrics = enableMetrics(wardrik);
      // As a restarted node's first scrapes: at once, and again at once.
      const scrapes = [await metrics.render(), await metrics.render(), await metrics.render()];
      for (const scrape of scrapes) {
        for (const { series, value } of samples(scrape)) {
          expect({ series, finite: Number.isFinite(Number(value)) }).toEqual({ series, finite: true });
        }
        const min = value(scrape, 'nodejs_eventloop_lag_min_seconds');
        const max = value(scrape, 'nodejs_eventloop_lag_max_seconds');
        if (min !== undefined) expect(Number(min)).toBeLessThanOrEqual(Number(max));
      }
      // Once the loop has been sampled, the window is reported, and stays reported by scrapes that follow at once.
      let sampled = '';
      await until(async () => {
        sampled = await metrics.render();
        return value(sampled, 'nodejs_eventloop_lag_mean_seconds') !== undefined;
      });
      const again = await metrics.render();
      for (const name of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
        const series = `nodejs_eventloop_lag_${name}_seconds`;
        expect(Number.isFinite(Number(value(again, series)))).toBe(true);
      }
      expect(Number(value(again, 'nodejs_eventloop_lag_min_seconds'))).toBeLessThanOrEqual(
        Number(value(again, 'nodejs_eventloop_lag_max_seconds')),
      );
      expect(Number(value(again, 'nodejs_eventloop_lag_seconds'))).toBeGreaterThanOrEqual(0);
      metrics.stop();
    } finally {
      await wardrik.close();
    }
  });
});
