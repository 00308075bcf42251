/*
 * Dashboards and alerts (issue 29, item 4): ops/grafana/wardrik-dashboard.json and
 * ops/prometheus/wardrik-rules.yml. The rules parse and their unit tests pass (promtool, Debian's
 * `prometheus` package); every expression of the dashboard parses (promtool, as recording rules);
 * and every metric and label a panel or a rule uses — and every label value it matches with `=` —
 * is in a real scrape of a real server after a known workload: runs completed, failed and
 * cancelled, calls ok, failing, parked, cancelled and in doubt, parks answered and left open, a
 * model call failed and one cut short, an untrusted worker connected (its definitions unpinned).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { error, ok, park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, enableMetrics, ModelError, sqliteStore, type Wardrik } from '../src/index.js';
import type { ModelRequest } from '../src/model/model.js';
import { type RunningMetricsServer, startMetricsServer } from '../src/server/metrics-route.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { namesOf, type Selector } from './promql-selectors.js';
import { FIXTURES, SLOW, until, WorkerProcess } from './workers-env.js';

const OPS = fileURLToPath(new URL('../../../ops/', import.meta.url));
const RULES = join(OPS, 'prometheus/wardrik-rules.yml');
const RULE_TESTS = join(OPS, 'prometheus/wardrik-rules.test.yml');
const DASHBOARD = join(OPS, 'grafana/wardrik-dashboard.json');

/** Labels Prometheus adds to every series it scrapes (the target's), not the server. */
const TARGET_LABELS = new Set(['instance', 'job']);
/** Series Prometheus makes itself for each target. */
const PROMETHEUS_SERIES = new Map([['up', new Set(['instance', 'job'])]]);

/** promtool, from Debian's `prometheus` package; the test says how to get it if it is missing. */
function promtool(args: readonly string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8' });
  if (run.error) {
    throw new Error(
      `promtool could not be run (${run.error.message}): install it with \`apt-get install prometheus\` (Debian)`,
    );
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ record?: string; alert?: string; expr: string }> }>;
}
interface Dashboard {
  panels: Array<{ title: string; type: string; id: number; targets?: Array<{ refId: string; expr: string }> }>;
  templating: { list: Array<{ name: string; type: string; query?: unknown }> };
}

/** Every PromQL expression of the dashboard, with Grafana's variables as Prometheus would get them. */
function dashboardExpressions(dashboard: Dashboard): Array<{ where: string; expr: string }> {
  const expand = (expr: string) =>
    expr
      .replaceAll('$__rate_interval', '5m')
      .replaceAll('$__range', '1h')
      .replaceAll('$__interval', '1m')
      .replaceAll('$agent', '.*');
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      where: `panel "${panel.title}" (${target.refId})`,
      expr: expand(target.expr),
    })),
  );
}

/** The label names of each metric in a scrape (histograms: `_bucket`, `_sum`, `_count` each), and the values of each. */
function scrapeNames(text: string): Map<string, Map<string, Set<string>>> {
  const metrics = new Map<string, Map<string, Set<string>>>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+\S+$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = metrics.get(match[1] as string) ?? new Map<string, Set<string>>();
    metrics.set(match[1] as string, labels);
    for (const [, label, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      const values = labels.get(label as string) ?? new Set<string>();
      values.add(value as string);
      labels.set(label as string, values);
    }
  }
  return metrics;
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
  description: 'Fails.',
  schema: {},
  run: () => error('the printer is on fire'),
});
const needsPerson = tool({
  name: 'needs_person',
  description: 'Waits for a person.',
  schema: {},
  run: (_args, context) => (context.approval ? ok('approved') : park('ask a person')),
});
const wipe = tool({
  name: 'wipe',
  description: 'Wipes: always held for approval.',
  schema: {},
  annotations: { destructive: true },
  run: () => ok('wiped'),
});
/** Not safe to repeat, and never answers: it times out, and is put in doubt. */
const hang = tool({
  name: 'hang',
  description: 'Hangs.',
  schema: {},
  annotations: { timeout: 20 },
  run: () => new Promise(() => {}),
});
const slow = tool({
  name: 'slow',
  description: 'Runs until cancelled.',
  schema: {},
  annotations: { idempotent: true },
  run: (_args, context) =>
    new Promise((resolve) => context.signal.addEventListener('abort', () => resolve(error('stopped')))),
});
const CALLS: Record<string, string> = {
  ok: 'lookup',
  error: 'broken',
  park: 'needs_person',
  approve: 'wipe',
  doubt: 'hang',
  slow: 'slow',
  worker: 'workers__lookup',
};
const scripted = new ScriptedModel((request: ModelRequest) => {
  const first = request.messages[0];
  const input = first?.role === 'user' ? first.content : '';
  const usd = { usd: 0.002 };
  if (input === 'think') return { text: 'late', delayMs: 600_000 };
  if (request.step > 1) return { text: 'done', measures: usd };
  const name = CALLS[input];
  return name
    ? { toolCalls: [{ name, arguments: name.endsWith('lookup') ? { key: 'k' } : {} }], measures: usd }
    : { text: 'nothing to do', measures: usd };
});
const model = {
  id: 'openai:gpt-4o-mini',
  generate: async (request: ModelRequest, options: Parameters<ScriptedModel['generate']>[1]) => {
    const first = request.messages[0];
    if (first?.role === 'user' && first.content === 'fail') throw new ModelError('bad request', { retryable: false });
    return scripted.generate(request, options);
  },
};

describe('ops: the Grafana dashboard and the Prometheus rules', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wardrik-ops-'));
  const rules = parseYaml(readFileSync(RULES, 'utf8')) as RuleFile;
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
  let wardrik: Wardrik;
  let server: RunningServer;
  let metricsServer: RunningMetricsServer;
  let worker: WorkerProcess | undefined;
  let scrape = '';

  beforeAll(async () => {
    wardrik = await createWardrik({
      store: sqliteStore(join(directory, 'wardrik.db')),
      agents: [
        defineAgent({ name: 'ops', instructions: '', model, tools: [lookup, broken, needsPerson, wipe, hang, slow] }),
        defineAgent({ name: 'ops-workers', instructions: '', model, workers: ['workers/lookup'] }),
      ],
      toolRetry: { attempts: 1 },
      modelRetry: { attempts: 1 },
      // Not trusted and not pinned: the worker's definitions are counted unpinned.
      workers: { log: () => {} },
    });
    const metrics = enableMetrics(wardrik);
    const auth = new AuthService(wardrik.store);
    await auth.ensureAdmin();
    server = await startServer({ wardrik, auth, port: 0 });
    metricsServer = await startMetricsServer({ source: metrics, port: 0 });
    const { token } = await auth.createPrincipalWithToken({ name: 'w', kind: 'worker', role: 'worker', agents: ['*'] });
    worker = new WorkerProcess('w', [
      join(FIXTURES, 'mcp-worker.ts'),
      server.url,
      token,
      join(directory, 'calls.jsonl'),
      'w',
    ]);
    writeFileSync(join(directory, 'calls.jsonl'), '');
    await worker.ready;
    await until(() => wardrik.workers.list().some((each) => each.tools.includes('lookup')), SLOW);

    const statuses: Record<string, string> = {};
    for (const input of ['ok', 'error', 'park', 'park', 'approve', 'doubt', 'fail']) {
      const result = await wardrik.run('ops', input);
      statuses[`${input}:${result.runId}`] = result.status;
    }
    expect(Object.values(statuses)).toEqual([
      'completed',
      'completed',
      'parked',
      'parked',
      'parked',
      'parked',
      'failed',
    ]);
    // One park answered, the others left open (a tool park, an approval, a call in doubt).
    const [answered] = await wardrik.listParks({ status: 'open', kind: 'tool', limit: 1 });
    await wardrik.answerPark(answered!.id, { type: 'retry' }, { callHash: answered!.callHash, by: 'olivia' });
    expect((await wardrik.wait(answered!.runId)).status).toBe('completed');
    // A call cut short by a cancel, and a model call.
    for (const input of ['slow', 'think']) {
      const { runId } = await wardrik.start('ops', input);
      await until(async () => (await wardrik.getRun(runId)).journal.length >= 1);
      if (input === 'slow') {
        await until(async () =>
          (await wardrik.getRun(runId)).journal.some(({ record }) => record.type === 'call-started'),
        );
      }
      expect((await wardrik.cancel(runId)).status).toBe('cancelled');
    }
    expect((await wardrik.run('ops-workers', 'worker')).status).not.toBe('failed');
    // Two scrapes: the second sees what the first began (the event loop's window).
    await fetch(metricsServer.url);
    await until(async () => {
      scrape = await (await fetch(metricsServer.url)).text();
      return scrape.includes('nodejs_eventloop_lag_p99_seconds ');
    });
  }, 120_000);
  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await metricsServer?.close();
    await server?.close();
    await wardrik?.close();
  });

  it('the rules parse, and their unit tests pass (promtool)', () => {
    const checked = promtool(['check', 'rules', RULES]);
    expect(checked.output).toContain('SUCCESS');
    expect(checked.status).toBe(0);
    const tested = execFileSync('promtool', ['test', 'rules', RULE_TESTS], {
      cwd: join(OPS, 'prometheus'),
      encoding: 'utf8',
    });
    expect(tested).toContain('SUCCESS');
  });

  it('every expression of the dashboard parses (promtool, as recording rules)', () => {
    const expressions = dashboardExpressions(dashboard);
    expect(expressions.length).toBeGreaterThan(20);
    const file = join(directory, 'dashboard-rules.yml');
    const recorded = expressions.map(({ expr }, index) => ({ record: `dashboard:expression_${index}`, expr }));
    writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules: recorded }] }));
    const checked = promtool(['check', 'rules', file]);
    expect(checked.output).toContain(`SUCCESS: ${expressions.length} rules found`);
  });

  it('every metric and label a panel or rule uses, and every value it matches with =, is in a real scrape', () => {
    const scraped = scrapeNames(scrape);
    const recorded = new Map<string, Set<string>>();
    for (const group of rules.groups) {
      for (const rule of group.rules) {
        if (rule.record) recorded.set(rule.record, new Set(namesOf(rule.expr).groupingLabels));
      }
    }
    const uses: Array<{ where: string; expr: string }> = [
      ...rules.groups.flatMap((group) =>
        group.rules.map((rule) => ({ where: `rule ${rule.record ?? rule.alert}`, expr: rule.expr })),
      ),
      ...dashboardExpressions(dashboard),
      ...dashboard.templating.list
        .filter((variable) => variable.type === 'query')
        .map((variable) => {
          const query = (variable.query as { query: string }).query;
          const [, metric, label] = /^label_values\((\w+),\s*(\w+)\)$/.exec(query) ?? [];
          return { where: `variable $${variable.name}`, expr: `sum by (${label}) (${metric})` };
        }),
    ];
    const problems: string[] = [];
    const labelsOf = (selector: Selector): Set<string> | undefined =>
      recorded.get(selector.metric) ??
      PROMETHEUS_SERIES.get(selector.metric) ??
      (scraped.has(selector.metric) ? new Set(scraped.get(selector.metric)?.keys()) : undefined);
    for (const { where, expr } of uses) {
      const { selectors, groupingLabels } = namesOf(expr);
      const available = new Set(TARGET_LABELS);
      for (const selector of selectors) {
        const labels = labelsOf(selector);
        if (!labels) {
          problems.push(`${where}: ${selector.metric} is not in the scrape`);
          continue;
        }
        for (const label of labels) available.add(label);
        for (const matcher of selector.matchers) {
          if (TARGET_LABELS.has(matcher.label)) continue;
          if (!labels.has(matcher.label)) {
            problems.push(`${where}: ${selector.metric} has no label ${matcher.label}`);
            continue;
          }
          const values = scraped.get(selector.metric)?.get(matcher.label);
          const wanted =
            matcher.op === '='
              ? [matcher.value]
              : matcher.op === '=~' && /^[\w|]+$/.test(matcher.value)
                ? matcher.value.split('|')
                : [];
          for (const value of wanted) {
            if (values && !values.has(value))
              problems.push(`${where}: no ${selector.metric}{${matcher.label}="${value}"} in the scrape`);
          }
        }
      }
      for (const label of groupingLabels) {
        if (label !== 'le' && !available.has(label))
          problems.push(`${where}: groups by ${label}, which none of its series has`);
        if (label === 'le' && !selectors.some((selector) => selector.metric.endsWith('_bucket'))) {
          problems.push(`${where}: groups by le without a histogram's buckets`);
        }
      }
    }
    expect(problems).toEqual([]);
    // What the dashboard and the rules are for, each seen in the scrape.
    for (const metric of [
      'wardrik_runs_ended_total',
      'wardrik_park_oldest_open_seconds',
      'wardrik_park_wait_seconds_bucket',
      'wardrik_calls_total',
      'wardrik_model_call_duration_seconds_bucket',
      'wardrik_runs_usd_total',
      'wardrik_store_commit_duration_seconds_bucket',
      'wardrik_runs_recovered_total',
      'wardrik_runs_lost_total',
      'wardrik_store_writes_refused_total',
      'wardrik_workers_connected',
      'wardrik_tool_definitions_unpinned_total',
    ]) {
      expect(uses.some(({ expr }) => namesOf(expr).selectors.some((selector) => selector.metric === metric))).toBe(
        true,
      );
    }
    expect(scraped.get('wardrik_tool_definitions_unpinned_total')?.get('source')).toEqual(new Set(['worker:w']));
    expect(scraped.get('wardrik_park_oldest_open_seconds')?.get('kind')).toEqual(
      new Set(['tool', 'approval', 'in_doubt']),
    );
  });

  it('the PromQL reader finds what an expression reads', () => {
    expect(
      namesOf(
        'sum by (agent) (rate(x_total{a="1", b=~"p|q"}[5m])) / on (agent) group_left sum without (c) (y offset 1h) > bool 0',
      ),
    ).toEqual({
      selectors: [
        {
          metric: 'x_total',
          matchers: [
            { label: 'a', op: '=', value: '1' },
            { label: 'b', op: '=~', value: 'p|q' },
          ],
        },
        { metric: 'y', matchers: [] },
      ],
      groupingLabels: ['agent', 'agent', 'c'],
    });
  });
});
