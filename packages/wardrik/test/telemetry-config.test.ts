/*
 * Telemetry (issue 17): the config's telemetry section is checked at once, naming what is wrong,
 * and metrics are served only when guarded (a token of 16 characters or more, or a listener).
 */
import { describe, expect, it } from 'vitest';
import { defineAgent, defineConfig } from '../src/index.js';
import { metricsPlan } from '../src/telemetry/telemetry-config.js';
import { ScriptedModel } from '../src/testing/index.js';

const agents = [defineAgent({ name: 'a', instructions: '', model: new ScriptedModel([{ text: 'ok' }]) })];

describe('telemetry settings', () => {
  it('are checked, naming the field that is wrong', () => {
    expect(() => defineConfig({ agents, telemetry: { traces: true, logLevel: 'debug' } })).not.toThrow();
    const wrong: Array<[unknown, string]> = [
      [{ tracing: true }, 'config.telemetry.tracing: unknown setting (expected traces, metrics, logLevel)'],
      [{ traces: 'yes' }, 'config.telemetry.traces: expected true, false or { includeContent: true }'],
      [
        { logLevel: 'loud' },
        'config.telemetry.logLevel: expected one of fatal, error, warn, info, debug, trace, silent',
      ],
      [{ metrics: { token: 'short' } }, 'config.telemetry.metrics.token: expected a string of at least 16 characters'],
      [{ metrics: { port: 70_000 } }, 'config.telemetry.metrics.port: expected a port number 0–65535'],
      [{ metrics: { host: '10.0.0.5' } }, 'config.telemetry.metrics: host needs a port'],
      [
        { metrics: { path: '/m' } },
        'config.telemetry.metrics.path: unknown setting (expected token, tokenFile, host, port)',
      ],
    ];
    for (const [telemetry, message] of wrong) {
      expect(() => defineConfig({ agents, telemetry } as never)).toThrow(message);
    }
  });

  it('serve metrics only behind a token or on a listener of their own', () => {
    expect(metricsPlan(undefined, {})).toBeUndefined();
    expect(() => metricsPlan({ metrics: {} }, {})).toThrow('set a token (or WARDRIK_METRICS_TOKEN)');
    expect(metricsPlan({ metrics: { port: 9464 } }, {})).toEqual({ listen: { host: '127.0.0.1', port: 9464 } });
    expect(metricsPlan(undefined, { WARDRIK_METRICS_TOKEN: 'a-token-of-sixteen-chars' })).toEqual({
      token: 'a-token-of-sixteen-chars',
    });
    expect(() => metricsPlan(undefined, { WARDRIK_METRICS_TOKEN: 'short' })).toThrow('at least 16 characters');
  });
});
