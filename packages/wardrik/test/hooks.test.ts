/*
 * Hooks (issue 17, part 1): typed events for what happens between journal records — model calls
 * (with duration and attempt), call attempts, settled calls, parks, runs started, resumed and ended,
 * store commits, workers — and trace context journaled with a run and handed to each attempt
 * (the tool's context, a worker's `_meta`).
 */
import { inspect } from 'node:util';
import { OUTSIDE, ok, park, tool } from '@wardrik/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineAgent, type HookEvents, type HookName, ModelError, type Wardrik } from '../src/index.js';
import { deferredCarrier } from '../src/runtime/hooks.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';
import { plan, SLOW, until, WorkersEnv, workerCall } from './workers-env.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const seenContexts: unknown[] = [];
const lookup = tool({
  name: 'lookup',
  description: 'Looks up (flaky once).',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }, context) => {
    seenContexts.push(context.traceContext);
    if (context.idempotencyKey.endsWith('c1.0') && seenContexts.length === 1) throw new Error('flaky');
    return ok({ key }, { labels: [OUTSIDE] });
  },
});
const approve = tool({
  name: 'needs_person',
  description: 'Parks.',
  schema: {},
  run: (_args, context) => (context.approval ? 'approved' : park('ask a person')),
});

/** Records every event of `names`, in order, as [name, event]. */
function record(target: Wardrik, names: readonly HookName[]): Array<[HookName, Record<string, unknown>]> {
  const events: Array<[HookName, Record<string, unknown>]> = [];
  for (const name of names) {
    target.hooks.on(name, (event: HookEvents[typeof name]) => events.push([name, event as Record<string, unknown>]));
  }
  return events;
}

describe('hooks', () => {
  it('tell a run’s model calls, attempts, settled calls, parks and its start, resumption and end, in order', async () => {
    seenContexts.length = 0;
    let failedOnce = false;
    const scripted = new ScriptedModel((request) => {
      const last = lastToolResults(request)[0];
      if (request.step === 1) return { toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] };
      if (last?.name === 'lookup') return { toolCalls: [{ name: 'needs_person', arguments: {} }] };
      return { text: 'done' };
    });
    const agent = defineAgent({
      name: 'hooked',
      instructions: '',
      tools: [lookup, approve],
      model: {
        id: 'flaky-model',
        generate: async (request, options) => {
          if (request.step === 2 && !failedOnce) {
            failedOnce = true;
            throw new ModelError('overloaded', { retryable: true });
          }
          return scripted.generate(request, options);
        },
      },
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const events = record(wardrik, [
      'run-started',
      'run-resumed',
      'run-ended',
      'model-call-started',
      'model-call-ended',
      'call-attempt-started',
      'call-attempt-ended',
      'call-settled',
      'park-opened',
      'park-answered',
    ]);
    const parked = await wardrik.run('hooked', 'go');
    expect(parked.status).toBe('parked');
    const [held] = parked.parks;
    await wardrik.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'alice' });
    const done = await wardrik.wait(parked.runId);
    expect(done.status).toBe('completed');

    const summary = events.map(([name, event]) => {
      if (name.startsWith('model-call')) return `${name} ${event.step}/${event.attempt}${event.error ? ' error' : ''}`;
      if (name.startsWith('call-attempt'))
        return `${name} ${event.tool}#${event.attempt}${event.outcome ? ` ${event.outcome}` : ''}`;
      if (name === 'call-settled') return `${name} ${event.tool} ${event.outcome}`;
      if (name.startsWith('park'))
        return `${name} ${event.kind}${event.decision ? ` ${event.decision} by ${event.by}` : ''}`;
      return name;
    });
    expect(summary).toEqual([
      'run-started',
      'model-call-started 1/1',
      'model-call-ended 1/1',
      'call-attempt-started lookup#1',
      'call-attempt-ended lookup#1 error',
      'call-attempt-started lookup#2',
      'call-attempt-ended lookup#2 ok',
      'call-settled lookup ok',
      'model-call-started 2/1',
      'model-call-ended 2/1 error',
      'model-call-started 2/2',
      'model-call-ended 2/2',
      // Held by the gate (the run read outside text): no attempt until a person allows it.
      'call-settled needs_person parked',
      'park-opened approval',
      'park-answered approval retry by alice',
      'run-resumed',
      'call-attempt-started needs_person#1',
      'call-attempt-ended needs_person#1 ok',
      'call-settled needs_person ok',
      'model-call-started 3/1',
      'model-call-ended 3/1',
      'run-ended',
    ]);
    const modelEnded = events.find(([name, event]) => name === 'model-call-ended' && event.step === 1)?.[1];
    expect(modelEnded).toMatchObject({
      runId: parked.runId,
      agent: 'hooked',
      model: 'flaky-model',
      finishReason: 'tool-calls',
      toolCalls: 1,
    });
    expect(modelEnded?.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(typeof modelEnded?.durationMs).toBe('number');
    const retried = events.find(([name, event]) => name === 'model-call-ended' && event.error)?.[1];
    expect(retried).toMatchObject({ retrying: true, error: expect.stringContaining('overloaded') });
    const ended = events.at(-1)?.[1];
    expect(ended).toMatchObject({ status: 'completed', labels: [OUTSIDE] });
    expect(ended?.measures).toMatchObject({ inputTokens: 30, outputTokens: 15 });
    // Without telemetry, no trace context anywhere.
    expect(seenContexts.every((each) => each === undefined)).toBe(true);
  });

  it('tell store commits; a listener that throws harms nothing; nobody listening costs no source', async () => {
    const agent = defineAgent({
      name: 'plain',
      instructions: '',
      tools: [lookup],
      model: new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { key: 'b' } }] }, { text: 'ok' }]),
    });
    seenContexts.length = 1; // no flaky failure this time
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const commits: HookEvents['store-committed'][] = [];
    const stop = wardrik.hooks.on('store-committed', (commit) => commits.push(commit));
    wardrik.hooks.on('model-call-started', () => {
      throw new Error('a broken listener');
    });
    const result = await wardrik.run('plain', 'go');
    expect(result.status).toBe('completed');
    expect(commits.length).toBeGreaterThan(0);
    const records = commits.reduce((sum, commit) => sum + commit.records, 0);
    expect(records).toBe((await wardrik.getRun(result.runId)).journal.length);
    expect(commits.every((commit) => commit.bytes > 0 && commit.durationMs >= 0 && commit.writes > 0)).toBe(true);
    stop();
    const before = commits.length;
    await wardrik.run('plain', 'again');
    expect(commits.length).toBe(before);
  });

  it('trace context made as a run starts is journaled with it and handed to each attempt, also after a restart', async () => {
    seenContexts.length = 1;
    const path = tempDbPath();
    const agent = () =>
      defineAgent({
        name: 'traced',
        instructions: '',
        tools: [lookup, approve],
        model: new ScriptedModel([
          { toolCalls: [{ name: 'needs_person', arguments: {} }] },
          { toolCalls: [{ name: 'lookup', arguments: { key: 'c' } }] },
          { text: 'ok' },
        ]),
      });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    wardrik = await openWardrik(path, [agent()]);
    wardrik.hooks.propagate({
      runStarting: () => ({ traceparent }),
      attemptContext: ({ callId, attempt }) => ({ traceparent, tracestate: `wardrik=${callId}.${attempt}` }),
    });
    const parked = await wardrik.run('traced', 'go');
    const started = (await wardrik.getRun(parked.runId)).journal[0]?.record;
    expect(started).toMatchObject({ type: 'run-started', trace: { traceparent } });
    await wardrik.close();

    // Another process resumes the run: its events carry the run's trace context from the journal.
    wardrik = await openWardrik(path, [agent()]);
    const resumed: Array<Record<string, unknown>> = [];
    wardrik.hooks.on('run-resumed', (event) => resumed.push(event));
    wardrik.hooks.on('call-attempt-started', (event) => resumed.push(event));
    wardrik.hooks.propagate({
      runStarting: () => undefined,
      attemptContext: ({ callId }) => ({ traceparent, tracestate: `after=${callId}` }),
    });
    const [held] = parked.parks;
    await wardrik.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash });
    await until(async () => (await wardrik!.getRunSummary(parked.runId)).status === 'completed', SLOW);
    expect(resumed[0]).toMatchObject({ runId: parked.runId, trace: { traceparent } });
    expect(
      resumed
        .filter((event) => event.tool)
        .every((event) => (event.trace as { traceparent?: string }).traceparent === traceparent),
    ).toBe(true);
    expect(seenContexts.slice(1)).toEqual([{ traceparent, tracestate: 'after=c2.0' }]);
  });
});

describe('deferred trace context', () => {
  it('is made when a tool first reads it (once), never for a tool that does not; it reads like a plain record', async () => {
    const made: string[] = [];
    const reads: unknown[] = [];
    const reader = tool({
      name: 'reader',
      description: 'Reads its trace context.',
      schema: {},
      annotations: { readOnly: true },
      run: (_args, context) => {
        const carrier = context.traceContext ?? {};
        reads.push(carrier['traceparent'], { ...carrier }, Object.entries(carrier), JSON.stringify(carrier));
        reads.push('traceparent' in carrier, 'nothing' in carrier, carrier['nothing']);
        return ok('read');
      },
    });
    const quiet = tool({
      name: 'quiet',
      description: 'Does not read it.',
      schema: {},
      annotations: { readOnly: true },
      run: () => ok('quiet'),
    });
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({
        name: 'deferred',
        instructions: '',
        tools: [reader, quiet],
        model: new ScriptedModel([
          { toolCalls: [{ name: 'quiet', arguments: {} }] },
          { toolCalls: [{ name: 'reader', arguments: {} }] },
          { text: 'done' },
        ]),
      }),
    ]);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    wardrik.hooks.propagate({
      runStarting: () => undefined,
      attemptContext: ({ callId }) =>
        deferredCarrier(() => {
          made.push(callId);
          return { traceparent, tracestate: 42 as unknown as string };
        }),
    });
    expect((await wardrik.run('deferred', 'go')).status).toBe('completed');
    // Made once, for the call that read it (its second call: step 2's first), with only its string fields.
    expect(made).toEqual(['c2.0']);
    expect(reads).toEqual([
      traceparent,
      { traceparent },
      [['traceparent', traceparent]],
      JSON.stringify({ traceparent }),
      true,
      false,
      undefined,
    ]);
  });

  it('is not made by awaiting it, logging it or asking what every object has', async () => {
    let made = 0;
    const carrier = deferredCarrier(() => {
      made += 1;
      return { traceparent: 'made' };
    });
    expect(await Promise.resolve(carrier)).toBe(carrier);
    expect(inspect(carrier)).toBe('TraceContext {}');
    expect(typeof carrier.toString).toBe('function');
    expect(made).toBe(0);
    expect(carrier['traceparent']).toBe('made');
    expect(inspect(carrier)).toBe("TraceContext { traceparent: 'made' }");
    expect(made).toBe(1);
  });

  it('is empty, not failing its reader, when making it throws', () => {
    const carrier = deferredCarrier(() => {
      throw new Error('no tracer');
    });
    expect(carrier['traceparent']).toBeUndefined();
    expect({ ...carrier }).toEqual({});
    expect(() => {
      (carrier as Record<string, string>)['traceparent'] = 'forged';
    }).toThrow(TypeError);
  });
});

describe('hooks with workers', () => {
  let env: WorkersEnv;
  afterAll(async () => {
    await env?.close();
  });

  it('tell workers connecting and leaving, and hand each worker call its attempt’s trace context in _meta', async () => {
    env = await WorkersEnv.start();
    const seen: Array<[string, Record<string, unknown>]> = [];
    env.wardrik.hooks.on('worker-connected', (event) => seen.push(['connected', event]));
    env.wardrik.hooks.on('worker-disconnected', (event) => seen.push(['disconnected', event]));
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    env.wardrik.hooks.propagate({
      runStarting: () => undefined,
      attemptContext: () => ({ traceparent, tracestate: 'k=v' }),
    });
    const worker = await env.principal(['*']);
    env.startWorker('traced', worker.token);
    await env.connected(worker);
    const result = await env.wardrik.run('support', plan([workerCall('lookup', { key: 'k1' })]));
    expect(result.status).toBe('completed');
    const [call] = env.records('lookup', 'call');
    expect(call?.meta).toMatchObject({ traceparent, tracestate: 'k=v', run: result.runId });
    expect(seen[0]).toEqual(['connected', expect.objectContaining({ principal: worker.name })]);
    await env.killWorkers();
    await until(() => seen.some(([type]) => type === 'disconnected'), SLOW);
    expect(seen.find(([type]) => type === 'disconnected')?.[1]).toMatchObject({ principal: worker.name });
  });
});
