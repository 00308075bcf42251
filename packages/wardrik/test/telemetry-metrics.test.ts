/*
 * Telemetry (issue 17): Prometheus metrics on the runtime's hooks, scraped over HTTP from a real
 * server (SQLite file, a real worker process over WebSocket, an open event stream) after a known
 * workload, parsed, and checked with exact counts; the metrics token and the metrics-only listener.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, park, tool } from '@wardrik/core';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import {
  createWardrik,
  defineAgent,
  enableMetrics,
  ModelError,
  sqliteStore,
  type Wardrik,
  type WardrikMetrics,
} from '../src/index.js';
import type { ModelRequest } from '../src/model/model.js';
import { type RunningMetricsServer, startMetricsServer } from '../src/server/metrics-route.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { SeriesCounter, SeriesHistogram } from '../src/telemetry/series-metrics.js';
import { ScriptedModel } from '../src/testing/index.js';
import { FIXTURES, SLOW, until, WorkerProcess } from './workers-env.js';

/** Prometheus text format → `name{label="value",…}` (labels sorted) → value. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name, labels = '', value = ''] = match;
    const pairs = [...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => `${key}="${text}"`).sort();
    samples.set(`${name}{${pairs.join(',')}}`, Number(value));
  }
  return samples;
}

function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  const pairs = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort();
  return samples.get(`${name}{${pairs.join(',')}}`);
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ok({ key }),
});
const broken = tool({
  name: 'broken',
  description: 'Always throws.',
  schema: {},
  run: () => {
    throw new Error('the printer is on fire');
  },
});
const needsPerson = tool({
  name: 'needs_person',
  description: 'Waits for a person.',
  schema: {},
  run: (_args, context) => (context.approval ? 'approved' : park('ask a person')),
});

/** Plays the run's input: which tool its first step calls, or `fail` (a model error that is not retried). */
const scripted = new ScriptedModel((request: ModelRequest) => {
  const first = request.messages[0];
  const input = first?.role === 'user' ? first.content : '';
  if (request.step > 1) return { text: 'done' };
  if (input === 'ok') return { toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] };
  if (input === 'error') return { toolCalls: [{ name: 'broken', arguments: {} }] };
  if (input === 'park') return { toolCalls: [{ name: 'needs_person', arguments: {} }] };
  if (input === 'worker') return { toolCalls: [{ name: 'workers__lookup', arguments: { key: 'w' } }] };
  return { text: 'nothing to do' };
});
const agent = defineAgent({
  name: 'metered',
  instructions: '',
  tools: [lookup, broken, needsPerson],
  workers: ['workers/lookup'],
  model: {
    id: 'scripted-metrics',
    generate: async (request, options) => {
      const first = request.messages[0];
      if (first?.role === 'user' && first.content === 'fail') throw new ModelError('bad request', { retryable: false });
      return scripted.generate(request, options);
    },
  },
});

describe('metrics', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wardrik-metrics-'));
  const record = join(directory, 'calls.jsonl');
  writeFileSync(record, '');
  const metricsToken = 'metrics-token-0123456789abcdef';
  let wardrik: Wardrik;
  let server: RunningServer;
  let metricsServer: RunningMetricsServer | undefined;
  let metrics: WardrikMetrics;
  let worker: WorkerProcess | undefined;
  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await metricsServer?.close();
    await server?.close();
    await wardrik?.close();
  });

  it('GET /metrics after a known workload: runs, parks, calls, model calls, tokens, commits, workers, streams — exact counts', async () => {
    wardrik = await createWardrik({
      store: sqliteStore(join(directory, 'wardrik.db')),
      agents: [agent],
      toolRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      // Trusted, so that the worker's tool definitions label nothing: the local tools' calls run unheld.
      workers: { log: () => {}, trustedWorkers: true },
    });
    metrics = enableMetrics(wardrik);
    const auth = new AuthService(wardrik.store);
    const admin = await auth.ensureAdmin();
    server = await startServer({ wardrik, auth, port: 0, metrics: { source: metrics, token: metricsToken } });
    const { token: workerToken } = await auth.createPrincipalWithToken({
      name: 'w',
      kind: 'worker',
      role: 'worker',
      agents: ['*'],
    });
    worker = new WorkerProcess('w', [join(FIXTURES, 'mcp-worker.ts'), server.url, workerToken, record, 'w']);
    await worker.ready;
    await until(() => wardrik.workers.list().some((each) => each.tools.includes('lookup')), SLOW);

    const results = [];
    for (const input of ['ok', 'error', 'park', 'worker', 'fail']) results.push(await wardrik.run('metered', input));
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed', 'parked', 'completed', 'failed']);
    // An event stream open while scraping.
    const stream = new AbortController();
    const events = await fetch(`${server.url}/v1/runs/${results[2]?.runId}/events`, {
      headers: { authorization: `Bearer ${admin?.token}` },
      signal: stream.signal,
    });
    expect(events.status).toBe(200);

    const scrape = async () => {
      const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      return parse(await response.text());
    };
    const samples = await scrape();
    const agentLabel = { agent: 'metered' };
    const modelLabel = { agent: 'metered', model: 'scripted-metrics' };
    expect(sample(samples, 'wardrik_runs_started_total', agentLabel)).toBe(5);
    expect(sample(samples, 'wardrik_runs_ended_total', { ...agentLabel, status: 'completed' })).toBe(3);
    expect(sample(samples, 'wardrik_runs_ended_total', { ...agentLabel, status: 'failed' })).toBe(1);
    expect(sample(samples, 'wardrik_runs_driving', agentLabel)).toBe(0);
    expect(sample(samples, 'wardrik_parks_open', { kind: 'tool' })).toBe(1);
    expect(sample(samples, 'wardrik_parks_open', { kind: 'in_doubt' })).toBe(0);
    // Every kind has its series, those of calls' questions and sign-ins too.
    expect(sample(samples, 'wardrik_parks_open', { kind: 'input' })).toBe(0);
    expect(sample(samples, 'wardrik_parks_open', { kind: 'authorize' })).toBe(0);
    expect(sample(samples, 'wardrik_parks_opened_total', { ...agentLabel, kind: 'tool' })).toBe(1);
    const call = (tool: string, outcome: string) =>
      sample(samples, 'wardrik_calls_total', { ...agentLabel, tool, outcome });
    expect(call('lookup', 'ok')).toBe(1);
    expect(call('broken', 'error')).toBe(1);
    expect(call('needs_person', 'parked')).toBe(1);
    expect(call('workers__lookup', 'ok')).toBe(1);
    const attempts = (tool: string, outcome: string) =>
      sample(samples, 'wardrik_call_attempt_duration_seconds_count', { ...agentLabel, tool, outcome });
    expect(attempts('lookup', 'ok')).toBe(1);
    expect(attempts('broken', 'error')).toBe(1);
    expect(attempts('needs_person', 'parked')).toBe(1);
    expect(attempts('workers__lookup', 'ok')).toBe(1);
    expect(sample(samples, 'wardrik_model_call_duration_seconds_count', { ...modelLabel, outcome: 'ok' })).toBe(7);
    expect(sample(samples, 'wardrik_model_call_duration_seconds_count', { ...modelLabel, outcome: 'error' })).toBe(1);
    expect(sample(samples, 'wardrik_model_tokens_total', { ...modelLabel, direction: 'input' })).toBe(70);
    expect(sample(samples, 'wardrik_model_tokens_total', { ...modelLabel, direction: 'output' })).toBe(35);
    let journaled = 0;
    for (const result of results) journaled += (await wardrik.getRun(result.runId)).journal.length;
    expect(sample(samples, 'wardrik_store_committed_records_total')).toBe(journaled);
    expect(sample(samples, 'wardrik_store_commit_duration_seconds_count')).toBeGreaterThan(0);
    expect(sample(samples, 'wardrik_workers_connected')).toBe(1);
    expect(sample(samples, 'wardrik_event_streams_open')).toBe(1);
    expect(sample(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // The park answered: the run completes; the stream ends; the worker leaves.
    const [held] = results[2]?.parks ?? [];
    await wardrik.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'olivia' });
    expect((await wardrik.wait(held!.runId)).status).toBe('completed');
    stream.abort();
    await worker.kill('SIGKILL');
    await until(() => wardrik.workers.list().length === 0, SLOW);
    await until(async () => sample(await scrape(), 'wardrik_event_streams_open') === 0, SLOW);
    const later = await scrape();
    expect(sample(later, 'wardrik_parks_open', { kind: 'tool' })).toBe(0);
    expect(sample(later, 'wardrik_parks_answered_total', { kind: 'tool', decision: 'retry' })).toBe(1);
    expect(sample(later, 'wardrik_park_wait_seconds_count', { kind: 'tool' })).toBe(1);
    expect(sample(later, 'wardrik_runs_resumed_total', agentLabel)).toBe(1);
    expect(sample(later, 'wardrik_runs_ended_total', { ...agentLabel, status: 'completed' })).toBe(4);
    expect(sample(later, 'wardrik_calls_total', { ...agentLabel, tool: 'needs_person', outcome: 'ok' })).toBe(1);
    expect(sample(later, 'wardrik_workers_connected')).toBe(0);
  });

  it('answers only the metrics token on the API server; a listener of its own needs none', async () => {
    const none = await fetch(`${server.url}/metrics`);
    expect(none.status).toBe(401);
    const apiToken = (
      await new AuthService(wardrik.store).createPrincipalWithToken({
        name: 'ops',
        kind: 'user',
        role: 'admin',
        agents: ['*'],
      })
    ).token;
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${apiToken}` } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('wardrik_runs');

    metricsServer = await startMetricsServer({ source: metrics, port: 0 });
    const open = await fetch(metricsServer.url);
    expect(open.status).toBe(200);
    expect(sample(parse(await open.text()), 'wardrik_runs_started_total', { agent: 'metered' })).toBe(5);
    expect((await fetch(metricsServer.url.replace('/metrics', '/v1/runs'))).status).toBe(404);
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toContain('/metrics');
  });
});

describe('series metrics (counted at every step)', () => {
  it('render exactly as prom-client’s own counters and histograms, as text and as JSON', async () => {
    const buckets = [0.01, 0.1, 1];
    const theirs = new Registry();
    const ours = new Registry();
    const labelNames = ['agent', 'tool'] as const;
    const counter = new Counter({ name: 'calls_total', help: 'Calls.', labelNames, registers: [theirs] });
    const histogram = new Histogram({
      name: 'latency_seconds',
      help: 'Latency.',
      labelNames,
      buckets,
      registers: [theirs],
    });
    const plain = new Histogram({ name: 'commit_seconds', help: 'Commits.', buckets, registers: [theirs] });
    const seriesCounter = new SeriesCounter({ name: 'calls_total', help: 'Calls.', labelNames, registers: [ours] });
    const seriesHistogram = new SeriesHistogram({
      name: 'latency_seconds',
      help: 'Latency.',
      labelNames,
      buckets,
      registers: [ours],
    });
    const seriesPlain = new SeriesHistogram({ name: 'commit_seconds', help: 'Commits.', buckets, registers: [ours] });
    const observations: Array<[string, string, number]> = [
      ['support', 'lookup', 0.004],
      ['support', 'lookup', 0.1],
      ['support', 'refund "big"\\', 2.5],
      ['billing', 'lookup', 0.05],
      ['support', 'lookup', 0.01],
    ];
    for (const [agent, tool, seconds] of observations) {
      counter.inc({ agent, tool });
      seriesCounter.series(agent, tool).add();
      histogram.observe({ agent, tool }, seconds);
      seriesHistogram.series(agent, tool).observe(seconds);
      plain.observe(seconds);
      seriesPlain.series().observe(seconds);
    }
    counter.inc({ agent: 'support', tool: 'lookup' }, 2.5);
    seriesCounter.series('support', 'lookup').add(2.5);
    // Counters only go up.
    seriesCounter.series('support', 'lookup').add(-1);
    seriesHistogram.series('support', 'lookup').observe(Number.NaN);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
