import type { Toolset } from '@wardrik/core';
import type { Registry } from 'prom-client';
import { PARK_KINDS, type ParkKind } from '../journal/records.js';
import type { HookEvents, HookName, Hooks } from '../runtime/hooks.js';
import { isUnpinnedDefinitionSource, type UnpinnedDefinitionSource } from '../toolsets/tool-pins.js';
import { registerEventLoopLag } from './event-loop-lag.js';
import { type OpenParkSource, registerOldestParks } from './park-age.js';
import { promClient } from './prom-client.js';
import { countPurges } from './purge-metrics.js';
import { type CounterSeries, type HistogramSeries, SeriesCounter, SeriesHistogram } from './series-metrics.js';
import { countTakeOvers, type TakeOverSource } from './takeover-metrics.js';

/**
 * What {@link enableMetrics} reads of the runtime: its hooks, how many parks are open (and the
 * oldest of each kind) when scraped, its store's count of writes refused, and the tool sources
 * that say when they offer unpinned definitions (its agents' MCP toolsets, its worker hub).
 */
export interface MeteredRuntime extends OpenParkSource, TakeOverSource {
  readonly hooks: Hooks;
  /** How many parks are open, by kind, counted by the store. */
  countOpenParks(): Promise<Readonly<Partial<Record<ParkKind, number>>>>;
  /** The runtime's agents: their toolsets that say when they offer unpinned definitions are listened to. */
  agents?(): readonly { readonly name: string; readonly toolsets: readonly Toolset[] }[];
  /** The worker hub, listened to the same way. */
  readonly workers?: UnpinnedDefinitionSource;
}

/** How {@link enableMetrics} counts. */
export interface MetricsOptions {
  /** The registry to put the metrics in. Default: a new one (not prom-client's global registry). */
  readonly registry?: Registry;
  /**
   * Also Node's process metrics (`process_*`, `nodejs_*`: CPU, memory, event loop lag; the event
   * loop's from windows that hold samples, never `NaN`). Default true.
   */
  readonly processMetrics?: boolean;
}

/** Seconds: from a quick local tool (1 ms) to a long model call or worker job (5 min). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: store commits, from an in-memory flush to a slow fsync. */
const COMMIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Seconds: how long people take to answer, a minute to a week. */
const WAIT_BUCKETS = [1, 10, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 7 * 24 * 3600];

/**
 * Prometheus metrics of a runtime, counted on its hooks (see the README's *Telemetry* for each).
 * `render()` gives the text format a scrape gets; `wardrik serve` serves it at `GET /metrics`.
 * Call `stop()` to stop counting.
 *
 * @example
 * ```ts
 * const metrics = enableMetrics(wardrik)
 * const text = await metrics.render() // 'wardrik_runs_ended_total{agent="support",status="completed"} 3\n…'
 * ```
 */
export interface WardrikMetrics {
  readonly registry: Registry;
  /** The scrape's content type (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** The metrics in Prometheus' text format. */
  render(): Promise<string>;
  /** Where `wardrik_event_streams_open` reads how many event streams are open (the server tells it). */
  countEventStreams(count: () => number): void;
  /** Stops counting (the registry keeps what it counted). */
  stop(): void;
}

/** The series one model (of one agent) updates at each call. */
interface ModelSeries {
  readonly ok: HistogramSeries;
  readonly error: HistogramSeries;
  readonly cancelled: HistogramSeries;
  readonly input: CounterSeries;
  readonly output: CounterSeries;
  readonly usd: CounterSeries;
}

/** Counts a runtime's runs, calls, model calls, parks, commits and workers as Prometheus metrics. */
export function enableMetrics(wardrik: MeteredRuntime, options: MetricsOptions = {}): WardrikMetrics {
  const { Counter, collectDefaultMetrics, Gauge, Histogram, Registry: NewRegistry } = promClient();
  const registry = options.registry ?? new NewRegistry();
  const registers = [registry];
  let stopLag: (() => void) | undefined;
  if (options.processMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    stopLag = registerEventLoopLag(registry);
  }

  const runsStarted = new Counter({
    name: 'wardrik_runs_started_total',
    help: 'Runs started on this node.',
    labelNames: ['agent'],
    registers,
  });
  const runsResumed = new Counter({
    name: 'wardrik_runs_resumed_total',
    help: 'Times a run was driven again on this node: after an answer, on recovery, or taken over.',
    labelNames: ['agent'],
    registers,
  });
  const runsEnded = new Counter({
    name: 'wardrik_runs_ended_total',
    help: 'Runs ended on this node, by how they ended (completed, failed, cancelled).',
    labelNames: ['agent', 'status'],
    registers,
  });
  const driven = new Map<string, string>();
  const runsDriving = new Gauge({
    name: 'wardrik_runs_driving',
    help: 'Runs this node is driving now (not parked, not ended).',
    labelNames: ['agent'],
    registers,
  });
  const runsUsd = new Counter({
    name: 'wardrik_runs_usd_total',
    help: 'What ended runs cost in all (model and tool measures), in US dollars.',
    labelNames: ['agent'],
    registers,
  });
  let stopped = false;
  new Gauge({
    name: 'wardrik_parks_open',
    help: 'Parks waiting for an answer, by kind (read from the store when scraped: the same on every node).',
    labelNames: ['kind'],
    registers,
    async collect() {
      // A store that can't say (closed, unreachable) leaves the gauge out of this scrape, not the scrape failed.
      this.reset();
      const counts = stopped ? {} : await wardrik.countOpenParks().catch(() => undefined);
      if (counts) for (const kind of PARK_KINDS) this.set({ kind }, counts[kind] ?? 0);
    },
  });
  const parksOpened = new Counter({
    name: 'wardrik_parks_opened_total',
    help: 'Parks opened on this node, by kind.',
    labelNames: ['agent', 'kind'],
    registers,
  });
  const parksAnswered = new Counter({
    name: 'wardrik_parks_answered_total',
    help: 'Parks answered through this node, by kind and decision.',
    labelNames: ['kind', 'decision'],
    registers,
  });
  const parkWait = new Histogram({
    name: 'wardrik_park_wait_seconds',
    help: 'How long parks waited for their answer.',
    labelNames: ['kind'],
    buckets: WAIT_BUCKETS,
    registers,
  });
  // Counted at every step: series kept by label values, cheap to update (see series-metrics.ts).
  const calls = new SeriesCounter({
    name: 'wardrik_calls_total',
    help: 'Tool calls settled, by outcome: ok, error, denied (by policy), parked (for a person), in_doubt, cancelled (the run was).',
    labelNames: ['agent', 'tool', 'outcome'],
    registers,
  });
  const attempts = new SeriesHistogram({
    name: 'wardrik_call_attempt_duration_seconds',
    help: 'How long each attempt of a tool call took, by outcome (ok, error, parked, timeout, lost, cancelled).',
    labelNames: ['agent', 'tool', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const modelCalls = new SeriesHistogram({
    name: 'wardrik_model_call_duration_seconds',
    help: 'How long each model call took, by outcome (ok, error, cancelled: cut short by a cancel of the run).',
    labelNames: ['agent', 'model', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const tokens = new SeriesCounter({
    name: 'wardrik_model_tokens_total',
    help: 'Tokens models read (input) and wrote (output).',
    labelNames: ['agent', 'model', 'direction'],
    registers,
  });
  const modelUsd = new SeriesCounter({
    name: 'wardrik_model_usd_total',
    help: 'What model calls cost, in US dollars (by the price table).',
    labelNames: ['agent', 'model'],
    registers,
  });
  const commits = new SeriesHistogram({
    name: 'wardrik_store_commit_duration_seconds',
    help: 'How long each store commit took (one transaction, one fsync on SQLite).',
    buckets: COMMIT_BUCKETS,
    registers,
  }).series();
  const committedRecords = new SeriesCounter({
    name: 'wardrik_store_committed_records_total',
    help: 'Journal records committed.',
    registers,
  }).series();
  const committedBytes = new SeriesCounter({
    name: 'wardrik_store_committed_bytes_total',
    help: 'Bytes of journal records committed.',
    registers,
  }).series();
  const workers = new Gauge({
    name: 'wardrik_workers_connected',
    help: 'Workers connected to this node.',
    registers,
  });
  const unpinnedDefinitions = new Counter({
    name: 'wardrik_tool_definitions_unpinned_total',
    help: 'Tool definitions from sources that are not trusted (MCP servers, workers) offered while not pinned (unpinned) or differing from their pin (changed), by source; each definition once per node.',
    labelNames: ['source', 'state'],
    registers,
  });
  registerOldestParks(wardrik, registry, () => stopped);
  const stopTakeOvers = countTakeOvers(wardrik, registry);
  let streams: (() => number) | undefined;
  new Gauge({
    name: 'wardrik_event_streams_open',
    help: 'Event streams (Server-Sent Events) this node serves now.',
    registers,
    collect() {
      this.set(streams?.() ?? 0);
    },
  });

  const drive = (runId: string, agent: string) => {
    if (driven.has(runId)) return;
    driven.set(runId, agent);
    runsDriving.inc({ agent });
  };
  const release = (runId: string) => {
    const agent = driven.get(runId);
    if (agent === undefined) return;
    driven.delete(runId);
    runsDriving.dec({ agent });
  };
  /** The series a model call updates, by agent and model (looked up once a call, not once a series). */
  const models = new Map<string, ModelSeries>();
  const modelSeries = (agent: string, model: string): ModelSeries => {
    const key = `${agent}\u0000${model}`;
    let found = models.get(key);
    if (!found) {
      found = {
        ok: modelCalls.series(agent, model, 'ok'),
        error: modelCalls.series(agent, model, 'error'),
        cancelled: modelCalls.series(agent, model, 'cancelled'),
        input: tokens.series(agent, model, 'input'),
        output: tokens.series(agent, model, 'output'),
        usd: modelUsd.series(agent, model),
      };
      models.set(key, found);
    }
    return found;
  };
  const listeners: { [K in HookName]?: (event: HookEvents[K]) => void } = {
    'run-started': (event) => {
      runsStarted.inc({ agent: event.agent });
      drive(event.runId, event.agent);
    },
    'run-resumed': (event) => {
      runsResumed.inc({ agent: event.agent });
      drive(event.runId, event.agent);
    },
    'run-suspended': (event) => release(event.runId),
    'run-ended': (event) => {
      release(event.runId);
      runsEnded.inc({ agent: event.agent, status: event.status });
      const usd = event.measures['usd'];
      if (usd) runsUsd.inc({ agent: event.agent }, usd);
    },
    'park-opened': (event) => parksOpened.inc({ agent: event.agent, kind: event.kind }),
    'park-answered': (event) => {
      parksAnswered.inc({ kind: event.kind, decision: event.decision });
      parkWait.observe({ kind: event.kind }, event.waitedMs / 1000);
    },
    'call-settled': (event) => calls.series(event.agent, event.tool, event.outcome).add(),
    'call-attempt-ended': (event) =>
      attempts.series(event.agent, event.tool, event.outcome).observe(event.durationMs / 1000),
    'model-call-ended': (event) => {
      const model = modelSeries(event.agent, event.model);
      const outcome =
        event.error === undefined ? model.ok : event.error === 'cancelled' ? model.cancelled : model.error;
      outcome.observe(event.durationMs / 1000);
      const usage = event.usage;
      if (usage) {
        model.input.add(usage.inputTokens);
        model.output.add(usage.outputTokens);
      }
      const usd = event.measures?.['usd'];
      if (usd) model.usd.add(usd);
    },
    'store-committed': (event) => {
      commits.observe(event.durationMs / 1000);
      committedRecords.add(event.records);
      committedBytes.add(event.bytes);
    },
    'worker-connected': () => workers.inc(),
    'worker-disconnected': () => workers.dec(),
  };
  const stops = (Object.keys(listeners) as HookName[]).map((name) =>
    wardrik.hooks.on(name, listeners[name] as (event: HookEvents[typeof name]) => void),
  );
  for (const source of unpinnedSources(wardrik)) {
    stops.push(source.onUnpinned(({ source, state }) => unpinnedDefinitions.inc({ source, state })));
  }
  stops.push(countPurges(wardrik, registry));
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    countEventStreams(count) {
      streams = count;
    },
    stop() {
      for (const stop of stops) stop();
      stopTakeOvers();
      stopLag?.();
      stopped = true;
    },
  };
}

/** The tool sources of a runtime that say when they offer unpinned definitions, each once. */
function unpinnedSources(wardrik: MeteredRuntime): Set<UnpinnedDefinitionSource> {
  const sources = new Set<UnpinnedDefinitionSource>();
  for (const agent of wardrik.agents?.() ?? []) {
    for (const toolset of agent.toolsets) if (isUnpinnedDefinitionSource(toolset)) sources.add(toolset);
  }
  if (wardrik.workers && isUnpinnedDefinitionSource(wardrik.workers)) sources.add(wardrik.workers);
  return sources;
}
