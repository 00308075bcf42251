/*
 * Telemetry (issue 17): OpenTelemetry traces on the runtime's hooks, checked with the SDK's
 * in-memory exporter through real runs on a real SQLite file — across a restart (the resumed run
 * continues its trace, parented to the context journaled with the run) and across the WebSocket to
 * a real worker process (its span, made with the SDK from the `_meta` traceparent it got, is a child
 * of the call's attempt, itself a child of the call's span).
 */
import { join } from 'node:path';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ok, tool } from '@wardrik/core';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { agentTool, defineAgent, enableTracing, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';
import { idOf, lookup, memoryTracing, named, only, parentOf, tracedAgent, traceOf } from './telemetry-spans.js';
import { FIXTURES, plan, SLOW, until, WorkersEnv, workerCall } from './workers-env.js';

const agent = () => tracedAgent({ modelId: 'scripted-traces', key: 'card-4242-secret' });

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('traces', () => {
  it('a span per run stretch, model call, call and attempt; a resumed run continues its trace after a restart', async () => {
    const path = tempDbPath();
    const first = memoryTracing();
    wardrik = await openWardrik(path, [agent()]);
    enableTracing(wardrik, { tracer: first.tracer });
    const parked = await wardrik.run('traced', 'go');
    expect(parked.status).toBe('parked');
    const before = first.spans();

    const run = only(before, 'invoke_agent traced');
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'traced',
      'wardrik.run.id': parked.runId,
      'wardrik.run.suspended': 'parked',
    });
    expect(run.events.map((event) => [event.name, event.attributes?.['wardrik.park.kind']])).toEqual([
      ['wardrik.park.opened', 'tool'],
    ]);
    // The run's context is journaled with it.
    const started = (await wardrik.getRun(parked.runId)).journal[0]?.record as { trace?: Record<string, string> };
    expect(started.trace?.['traceparent']).toBe(`00-${traceOf(run)}-${idOf(run)}-01`);

    const models = named(before, 'chat scripted-traces');
    expect(models).toHaveLength(2);
    for (const model of models) expect(parentOf(model)).toBe(idOf(run));
    expect(models[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted-traces',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'wardrik.step': 1,
    });
    const call = only(before, 'execute_tool lookup');
    expect(parentOf(call)).toBe(idOf(run));
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'wardrik.call.outcome': 'ok',
    });
    // Answered at its first attempt by a tool that did not read its trace context: the call's span says it all.
    expect(call.attributes['wardrik.call.attempts']).toBe(1);
    expect(named(before, 'attempt lookup')).toEqual([]);
    // An attempt that did not answer ok has a span of its own.
    const parkedCall = only(before, 'execute_tool needs_person');
    expect(parkedCall.attributes['wardrik.call.outcome']).toBe('parked');
    const parkedAttempt = only(before, 'attempt needs_person');
    expect(parentOf(parkedAttempt)).toBe(idOf(parkedCall));
    expect(parkedAttempt.attributes).toMatchObject({ 'wardrik.attempt': 1, 'wardrik.attempt.outcome': 'parked' });
    expect(before.every((span) => traceOf(span) === traceOf(run))).toBe(true);
    // No tool arguments (nor any text) unless told.
    expect(JSON.stringify(before.map((span) => [span.attributes, span.events]))).not.toContain('card-4242');
    await wardrik.close();

    // Another process: a fresh tracer provider, the same SQLite file.
    const second = memoryTracing();
    wardrik = await openWardrik(path, [agent()]);
    enableTracing(wardrik, { tracer: second.tracer });
    const [held] = parked.parks;
    await wardrik.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'olivia' });
    expect((await wardrik.wait(parked.runId)).status).toBe('completed');
    await until(() => named(second.spans(), 'invoke_agent traced').length === 1, SLOW);
    const after = second.spans();
    const resumed = only(after, 'invoke_agent traced');
    expect(traceOf(resumed)).toBe(traceOf(run));
    expect(parentOf(resumed)).toBe(idOf(run));
    expect(resumed.attributes).toMatchObject({ 'wardrik.run.resumed': true, 'wardrik.run.status': 'completed' });
    expect(resumed.attributes['gen_ai.usage.output_tokens']).toBe(15);
    const wait = only(after, 'park tool');
    expect(parentOf(wait)).toBe(idOf(run));
    expect(wait.attributes).toMatchObject({ 'wardrik.park.decision': 'retry', 'wardrik.park.answered_by': 'olivia' });
    const settled = only(after, 'execute_tool needs_person');
    expect(parentOf(settled)).toBe(idOf(resumed));
    expect(parentOf(only(after, 'attempt needs_person'))).toBe(idOf(settled));
    const last = only(after, 'chat scripted-traces');
    expect(parentOf(last)).toBe(idOf(resumed));
    expect(last.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(after.every((span) => traceOf(span) === traceOf(run))).toBe(true);
  });

  it('puts tool arguments in spans only when includeContent is on; stopping ends its listening', async () => {
    const { tracer, spans } = memoryTracing();
    wardrik = await openWardrik(tempDbPath(), [agent()]);
    const stop = enableTracing(wardrik, { tracer, includeContent: true });
    await wardrik.run('traced', 'go');
    expect(only(spans(), 'execute_tool lookup').attributes['gen_ai.tool.call.arguments']).toBe(
      JSON.stringify({ key: 'card-4242-secret' }),
    );
    stop();
    const count = spans().length;
    await wardrik.run('traced', 'again');
    expect(spans().length).toBe(count);
    expect(wardrik.hooks.has('model-call-started')).toBe(false);
  });
});

describe('attempt spans', () => {
  it('a call tried again has a span for each attempt; a tool that reads its trace context gets its attempt’s span', async () => {
    let tries = 0;
    const flaky = tool({
      name: 'flaky',
      description: 'Fails once, then answers.',
      schema: {},
      annotations: { readOnly: true },
      run: () => {
        tries += 1;
        if (tries === 1) throw new Error('the printer is on fire');
        return ok('fine');
      },
    });
    const seen: Array<{ traceparent?: string; copy: Record<string, string>; json: string; keys: string[] }> = [];
    const reader = tool({
      name: 'reader',
      description: 'Hands its trace context on (as a tool calling a service would).',
      schema: {},
      annotations: { readOnly: true },
      run: (_args, context) => {
        const carrier = context.traceContext ?? {};
        seen.push({
          traceparent: carrier['traceparent'],
          copy: { ...carrier },
          json: JSON.stringify(carrier),
          keys: Object.keys(carrier),
        });
        return ok('read');
      },
    });
    const { tracer, spans } = memoryTracing();
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({
        name: 'retried',
        instructions: '',
        tools: [flaky, reader],
        model: new ScriptedModel([
          { toolCalls: [{ name: 'flaky', arguments: {} }] },
          { toolCalls: [{ name: 'reader', arguments: {} }] },
          { text: 'done' },
        ]),
      }),
    ]);
    enableTracing(wardrik, { tracer });
    expect((await wardrik.run('retried', 'go')).status).toBe('completed');
    await until(() => named(spans(), 'invoke_agent retried').length === 1, SLOW);
    const all = spans();

    const call = only(all, 'execute_tool flaky');
    expect(call.attributes).toMatchObject({ 'wardrik.call.outcome': 'ok', 'wardrik.call.attempts': 2 });
    const attempts = named(all, 'attempt flaky').sort(
      (a, b) => Number(a.attributes['wardrik.attempt']) - Number(b.attributes['wardrik.attempt']),
    );
    expect(
      attempts.map((span) => [span.attributes['wardrik.attempt'], span.attributes['wardrik.attempt.outcome']]),
    ).toEqual([
      [1, 'error'],
      [2, 'ok'],
    ]);
    expect(attempts.every((span) => parentOf(span) === idOf(call))).toBe(true);
    expect(attempts[0]?.status.code).toBe(2); // ERROR
    const read = only(all, 'attempt reader');
    expect(parentOf(read)).toBe(idOf(only(all, 'execute_tool reader')));
    const traceparent = `00-${traceOf(read)}-${idOf(read)}-01`;
    expect(seen).toEqual([
      { traceparent, copy: { traceparent }, json: JSON.stringify({ traceparent }), keys: ['traceparent'] },
    ]);
    expect(read.attributes['wardrik.attempt.outcome']).toBe('ok');
  });
});

describe('traces sampled out', () => {
  it('make no spans under a run not sampled; its calls hand on its context, not sampled', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const started: unknown[] = [];
    const reader = tool({
      name: 'reader',
      description: 'Reads its trace context.',
      schema: {},
      annotations: { readOnly: true },
      run: (_args, context) => {
        started.push(context.traceContext?.['traceparent']);
        return ok('read');
      },
    });
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({
        name: 'unsampled',
        instructions: '',
        tools: [reader],
        model: new ScriptedModel([{ toolCalls: [{ name: 'reader', arguments: {} }] }, { text: 'done' }]),
      }),
    ]);
    enableTracing(wardrik, { tracer: provider.getTracer('test') });
    const result = await wardrik.run('unsampled', 'go');
    expect(result.status).toBe('completed');
    const journaled = (await wardrik.getRun(result.runId)).journal[0]?.record as { trace?: Record<string, string> };
    expect(journaled.trace?.['traceparent']).toMatch(/^00-[\da-f]{32}-[\da-f]{16}-00$/);
    expect(started).toEqual([journaled.trace?.['traceparent']]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('traces of runs that did not start', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a run whose start failed after its trace was made has its span ended, marked so', async () => {
    const { tracer, spans } = memoryTracing();
    wardrik = await openWardrik(tempDbPath(), [agent()]);
    enableTracing(wardrik, { tracer });
    const carrier = wardrik.hooks.runTrace({ runId: 'run_never', agent: 'traced' });
    expect(carrier?.['traceparent']).toMatch(/^00-[\da-f]{32}-[\da-f]{16}-01$/);
    expect(spans()).toEqual([]);
    wardrik.hooks.emit('run-start-failed', {
      runId: 'run_never',
      agent: 'traced',
      ...(carrier ? { trace: carrier } : {}),
      error: 'the store failed',
    });
    const span = only(spans(), 'invoke_agent traced');
    expect(span.attributes).toMatchObject({ 'wardrik.run.id': 'run_never', 'wardrik.run.start_failed': true });
    expect(span.status).toEqual({ code: 2, message: 'the run did not start' });
  });

  it('a run whose start really fails (its store is gone): the runtime says so, and its span ends', async () => {
    const { tracer, spans } = memoryTracing();
    wardrik = await openWardrik(tempDbPath(), [agent()]);
    enableTracing(wardrik, { tracer });
    const failed: string[] = [];
    wardrik.hooks.on('run-start-failed', (event) => failed.push(event.error));
    await wardrik.store.close(); // underneath the runtime: its next start fails after its trace is made
    await expect(wardrik.run('traced', 'go')).rejects.toThrow(/closed/);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/closed/);
    const span = only(spans(), 'invoke_agent traced');
    expect(span.attributes['wardrik.run.start_failed']).toBe(true);
  });

  it('and so, a minute on, when nothing says its start failed nor that it started', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { tracer, spans } = memoryTracing();
    wardrik = await openWardrik(tempDbPath(), [agent()]);
    enableTracing(wardrik, { tracer });
    wardrik.hooks.runTrace({ runId: 'run_lost', agent: 'traced' });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(spans()).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(only(spans(), 'invoke_agent traced').attributes['wardrik.run.start_failed']).toBe(true);
  });
});

describe('traces of agents used as tools', () => {
  it('a child run’s spans are in its parent’s trace, under the attempt that started it', async () => {
    const helper = defineAgent({
      name: 'helper',
      description: 'Looks things up.',
      instructions: '',
      tools: [lookup],
      model: new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { key: 'x' } }] }, { text: 'found x' }]),
    });
    const boss = defineAgent({
      name: 'boss',
      instructions: '',
      tools: [agentTool(helper)],
      model: new ScriptedModel([{ toolCalls: [{ name: 'helper', arguments: { request: 'find x' } }] }, { text: 'ok' }]),
    });
    const { tracer, spans } = memoryTracing();
    wardrik = await openWardrik(tempDbPath(), [boss]);
    enableTracing(wardrik, { tracer });
    expect((await wardrik.run('boss', 'go')).status).toBe('completed');
    await until(() => named(spans(), 'invoke_agent boss').length === 1, SLOW);
    const all = spans();
    const parent = only(all, 'invoke_agent boss');
    const attempt = only(all, 'attempt helper');
    const child = only(all, 'invoke_agent helper');
    expect(parentOf(child)).toBe(idOf(attempt));
    expect(parentOf(only(all, 'execute_tool lookup'))).toBe(idOf(child));
    expect(all.every((span) => traceOf(span) === traceOf(parent))).toBe(true);
  });
});

describe('traces with workers', () => {
  let env: WorkersEnv | undefined;
  afterAll(async () => {
    await env?.close();
  });

  it('a worker’s span (the SDK in the worker process) is a child of the call’s attempt, across the WebSocket', async () => {
    env = await WorkersEnv.start();
    const { tracer, spans } = memoryTracing();
    enableTracing(env.wardrik, { tracer });
    const worker = await env.principal(['*']);
    env.spawn('traced', [join(FIXTURES, 'traced-worker.ts'), env.url, worker.token, env.record, 'traced']);
    await env.connected(worker);
    const result = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'k1' })]));
    expect(result.status).toBe('completed');

    const workerSpans = env.records().filter((line) => (line.event as string) === 'span') as unknown as Array<{
      name: string;
      traceId: string;
      parentSpanId: string;
      meta: Record<string, unknown>;
    }>;
    expect(workerSpans.map((span) => span.name)).toEqual(['worker lookup']);
    const [remote] = workerSpans;
    await until(() => named(spans(), 'invoke_agent support').length === 1, SLOW);
    const mine = spans();
    const call = only(mine, 'execute_tool workers__lookup');
    const attempt = only(mine, 'attempt workers__lookup');
    expect(parentOf(attempt)).toBe(idOf(call));
    expect(remote?.traceId).toBe(traceOf(call));
    expect(remote?.parentSpanId).toBe(idOf(attempt));
    expect(remote?.meta).toMatchObject({ traceparent: `00-${traceOf(call)}-${idOf(attempt)}-01`, run: result.runId });
    expect(parentOf(call)).toBe(idOf(only(mine, 'invoke_agent support')));
  });
});
