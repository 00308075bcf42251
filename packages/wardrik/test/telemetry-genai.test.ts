/*
 * Telemetry (issue 29, item 3): cancellations are not errors, and spans, metrics and logs follow
 * the OpenTelemetry GenAI semantic conventions. Real runs on a real SQLite file, spans from the
 * SDK's in-memory exporter, metrics from the SDK's MeterProvider through the metrics API:
 * - a call cut short by a cancel counted `outcome="cancelled"` (it was `error`), its span not
 *   ERROR but marked with a `wardrik.cancelled` event; a model call cut short the same;
 * - `chat` spans name the provider and the model it was asked for (`gpt-4o-mini`, not
 *   `openai:gpt-4o-mini`), the response's model and id, the server; tool spans carry the id the
 *   model gave the call (so they join the model's tool calls), the tool's type and description;
 * - the two GenAI client metrics reach the application's MeterProvider;
 * - content capture redacts sensitive arguments and secrets;
 * - log lines carry `spanId` beside `traceId`.
 */
import { Writable } from 'node:stream';
import { type Attributes, metrics, SpanStatusCode } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { describedBy, error, ok, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createLogger,
  defineAgent,
  enableMetrics,
  enableTracing,
  logRuntime,
  type Model,
  type Wardrik,
} from '../src/index.js';
import type { ModelRequest, ModelResponse } from '../src/model/model.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';
import { memoryTracing, named, only } from './telemetry-spans.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

/** Runs until its run is cancelled. */
const slow = tool({
  name: 'slow',
  description: 'Takes its time.',
  schema: {},
  annotations: { idempotent: true },
  run: (_args, context) =>
    new Promise((resolve) => context.signal.addEventListener('abort', () => resolve(error('stopped')))),
});

/** The value of `name{labels…}` in a Prometheus scrape (labels in any order), if it is there. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('a cancel is not an error', () => {
  it('a call cut short counts as cancelled, its span is not ERROR and says it was cancelled', async () => {
    const agent = defineAgent({
      name: 'patient',
      instructions: '',
      tools: [slow],
      model: new ScriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'done' }]),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { tracer, spans } = memoryTracing();
    enableTracing(wardrik, { tracer, genAiMetrics: false });
    const counted = enableMetrics(wardrik, { processMetrics: false });
    const { runId } = await wardrik.start('patient', 'go');
    await until(async () =>
      (await wardrik!.getRun(runId)).journal.some(({ record }) => record.type === 'call-started'),
    );
    expect((await wardrik.cancel(runId, 'changed my mind')).status).toBe('cancelled');

    const scrape = await counted.render();
    const labels = { agent: 'patient', tool: 'slow' };
    expect(sample(scrape, 'wardrik_calls_total', { ...labels, outcome: 'cancelled' })).toBe(1);
    expect(sample(scrape, 'wardrik_calls_total', { ...labels, outcome: 'error' })).toBeUndefined();
    expect(sample(scrape, 'wardrik_call_attempt_duration_seconds_count', { ...labels, outcome: 'cancelled' })).toBe(1);
    const call = only(spans(), 'execute_tool slow');
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(call.attributes['wardrik.call.outcome']).toBe('cancelled');
    expect(call.attributes['error.type']).toBeUndefined();
    expect(call.events.map((event) => event.name)).toContain('wardrik.cancelled');
    const attempt = only(spans(), 'attempt slow');
    expect(attempt.status.code).toBe(SpanStatusCode.UNSET);
    expect(attempt.events.map((event) => event.name)).toContain('wardrik.cancelled');
    const run = only(spans(), 'invoke_agent patient');
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.events.map((event) => event.name)).toContain('wardrik.cancelled');
  });

  it('a model call cut short counts as cancelled, not as a failed model call', async () => {
    const agent = defineAgent({
      name: 'thinking',
      instructions: '',
      model: new ScriptedModel([{ text: 'late', delayMs: 60_000 }], { id: 'openai:gpt-4o-mini' }),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { tracer, spans } = memoryTracing();
    enableTracing(wardrik, { tracer, genAiMetrics: false });
    const counted = enableMetrics(wardrik, { processMetrics: false });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    logRuntime(wardrik, createLogger({ level: 'info', format: 'json', destination: sink }));
    const started: string[] = [];
    wardrik.hooks.on('model-call-started', ({ runId }) => started.push(runId));
    const { runId } = await wardrik.start('thinking', 'go');
    await until(() => started.includes(runId));
    expect((await wardrik.cancel(runId)).status).toBe('cancelled');

    const scrape = await counted.render();
    const labels = { agent: 'thinking', model: 'openai:gpt-4o-mini' };
    expect(sample(scrape, 'wardrik_model_call_duration_seconds_count', { ...labels, outcome: 'cancelled' })).toBe(1);
    expect(sample(scrape, 'wardrik_model_call_duration_seconds_count', { ...labels, outcome: 'error' })).toBe(0);
    const chat = only(spans(), 'chat gpt-4o-mini');
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.attributes['error.type']).toBeUndefined();
    expect(chat.events.map((event) => event.name)).toContain('wardrik.cancelled');
    expect(lines.map((line) => JSON.parse(line) as { msg: string; level: string })).not.toContainEqual(
      expect.objectContaining({ msg: 'model call failed' }),
    );
  });
});

/** A model as a provider adapter reports it: provider, model name, URL, and the answer's ids and tool call ids. */
function providerModel(answers: readonly Partial<ModelResponse>[]): Model {
  return {
    id: 'anthropic:claude-test',
    provider: 'anthropic.messages',
    modelName: 'claude-test',
    baseUrl: 'http://127.0.0.1:18080/v1',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const answer = answers[request.step - 1] ?? { text: 'done' };
      return { text: '', toolCalls: [], usage: { inputTokens: 12, outputTokens: 3 }, ...answer };
    },
  };
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ok({ key }),
});

describe('GenAI semantic conventions', () => {
  it('chat spans: provider, the model asked for, response model and id, server; tool spans join the model’s tool calls', async () => {
    const docs = describedBy(
      tool({
        name: 'docs',
        description: 'Searches the docs.',
        schema: {},
        annotations: { readOnly: true },
        run: () => ok('found'),
      }),
      { source: 'mcp:docs', tool: 'docs', labels: [] },
    );
    const agent = defineAgent({
      name: 'conventional',
      description: 'Answers from the docs.',
      instructions: '',
      tools: [lookup, docs],
      model: providerModel([
        {
          responseId: 'msg_01',
          responseModel: 'claude-test-20260101',
          toolCalls: [
            { id: 'toolu_lookup_1', name: 'lookup', arguments: { key: 'a' } },
            { id: 'toolu_docs_2', name: 'docs', arguments: {} },
          ],
        },
        { responseId: 'msg_02', responseModel: 'claude-test-20260101', text: 'done' },
      ]),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { tracer, spans } = memoryTracing();
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    try {
      enableTracing(wardrik, { tracer });
      expect((await wardrik.run('conventional', 'go')).status).toBe('completed');

      const chats = named(spans(), 'chat claude-test');
      expect(chats).toHaveLength(2);
      expect(chats[0]?.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': 'claude-test-20260101',
        'gen_ai.response.id': 'msg_01',
        'server.address': '127.0.0.1',
        'server.port': 18080,
        'wardrik.model': 'anthropic:claude-test',
      });
      const run = only(spans(), 'invoke_agent conventional');
      expect(run.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.agent.name': 'conventional',
        'gen_ai.agent.description': 'Answers from the docs.',
      });
      const local = only(spans(), 'execute_tool lookup');
      expect(local.attributes).toMatchObject({
        'gen_ai.tool.call.id': 'toolu_lookup_1',
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.description': 'Looks a key up.',
        'wardrik.call.id': 'c1.0',
      });
      expect(only(spans(), 'execute_tool docs').attributes).toMatchObject({
        'gen_ai.tool.call.id': 'toolu_docs_2',
        'gen_ai.tool.type': 'extension',
        'gen_ai.tool.description': 'Searches the docs.',
      });

      // The two GenAI client metrics, through the MeterProvider the application registered.
      const { resourceMetrics } = await reader.collect();
      const exported = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
      const byName = (name: string) => exported.find((metric) => metric.descriptor.name === name);
      const common = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': 'claude-test-20260101',
        'server.address': '127.0.0.1',
        'server.port': 18080,
      };
      const duration = byName('gen_ai.client.operation.duration');
      expect(duration?.descriptor.unit).toBe('s');
      expect(duration?.dataPoints).toHaveLength(1);
      expect(duration?.dataPoints[0]).toMatchObject({ attributes: common, value: { count: 2 } });
      const tokens = byName('gen_ai.client.token.usage');
      const point = (type: string) =>
        tokens?.dataPoints.find((each) => (each.attributes as Attributes)['gen_ai.token.type'] === type);
      expect(point('input')).toMatchObject({
        attributes: { ...common, 'gen_ai.token.type': 'input' },
        value: { sum: 24 },
      });
      expect(point('output')).toMatchObject({ value: { sum: 6, count: 2 } });
    } finally {
      metrics.disable();
      await provider.shutdown();
    }
  });

  it('a model that says nothing of itself: provider and model from its id', async () => {
    const agent = defineAgent({
      name: 'plain',
      instructions: '',
      model: new ScriptedModel([{ text: 'hi' }], { id: 'openai:gpt-4o-mini' }),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { tracer, spans } = memoryTracing();
    enableTracing(wardrik, { tracer, genAiMetrics: false });
    await wardrik.run('plain', 'go');
    const chat = only(spans(), 'chat gpt-4o-mini');
    expect(chat.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini' });
    expect(chat.attributes['server.address']).toBeUndefined();
  });

  it('content capture redacts arguments the schema marks sensitive, fields named like secrets and secret shapes', async () => {
    const connect = tool({
      name: 'connect',
      description: 'Connects to a service.',
      schema: {
        type: 'object',
        properties: {
          user: { type: 'string' },
          pin: { type: 'string', writeOnly: true },
          otp: { type: 'string', 'x-wardrik-sensitive': true },
          api_key: { type: 'string' },
          note: { type: 'string' },
          nested: { type: 'object', properties: { password: { type: 'string' }, hint: { type: 'string' } } },
        },
      },
      annotations: { readOnly: true },
      run: () => ok('connected'),
    });
    const zodConnect = tool({
      name: 'zod_connect',
      description: 'Connects, with a Zod schema.',
      schema: z.object({ user: z.string(), passcode: z.string().meta({ writeOnly: true }) }),
      annotations: { readOnly: true },
      run: () => ok('connected'),
    });
    const agent = defineAgent({
      name: 'careful',
      instructions: '',
      tools: [connect, zodConnect],
      model: new ScriptedModel([
        {
          toolCalls: [
            {
              name: 'connect',
              arguments: {
                user: 'ann',
                pin: '0000',
                otp: '123456',
                api_key: 'k-plain-looking',
                note: 'use sk-proj-abcdefghijklmnopqrstuvwx with Bearer abc.def.ghi-jkl',
                nested: { password: 'hunter2', hint: 'the usual' },
              },
            },
            { name: 'zod_connect', arguments: { user: 'bob', passcode: '4242' } },
          ],
        },
        { text: 'done' },
      ]),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { tracer, spans } = memoryTracing();
    enableTracing(wardrik, { tracer, includeContent: true, genAiMetrics: false });
    await wardrik.run('careful', 'go');
    const captured = JSON.parse(
      only(spans(), 'execute_tool connect').attributes['gen_ai.tool.call.arguments'] as string,
    ) as unknown;
    expect(captured).toEqual({
      user: 'ann',
      pin: '[redacted]',
      otp: '[redacted]',
      api_key: '[redacted]',
      note: 'use [redacted] with Bearer [redacted]',
      nested: { password: '[redacted]', hint: 'the usual' },
    });
    const zodCaptured = JSON.parse(
      only(spans(), 'execute_tool zod_connect').attributes['gen_ai.tool.call.arguments'] as string,
    ) as unknown;
    expect(zodCaptured).toEqual({ user: 'bob', passcode: '[redacted]' });
  });

  it('log lines of a traced run carry spanId beside traceId: the span of its stretch', async () => {
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'logged', instructions: '', model: new ScriptedModel([{ text: 'hi' }]) }),
    ]);
    const { tracer, spans } = memoryTracing();
    enableTracing(wardrik, { tracer, genAiMetrics: false });
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    logRuntime(wardrik, createLogger({ level: 'info', format: 'json', destination: sink }));
    const { runId } = await wardrik.run('logged', 'go');
    const run = only(spans(), 'invoke_agent logged');
    const started = lines.find((line) => line['msg'] === 'run started' && line['runId'] === runId);
    expect(started).toMatchObject({ traceId: run.spanContext().traceId, spanId: run.spanContext().spanId });
    const ended = lines.find((line) => line['msg'] === 'run ended' && line['runId'] === runId);
    expect(ended).toMatchObject({ traceId: run.spanContext().traceId, spanId: run.spanContext().spanId });
  });
});
