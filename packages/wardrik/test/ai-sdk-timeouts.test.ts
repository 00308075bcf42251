/*
 * Time limits of a model call (issue 11, item 17): an idle timeout (no part of the answer for
 * `idleTimeoutMs`) and an overall one (`timeoutMs`), each a retryable failure that aborts the
 * request. Real fake servers that stall or trickle, real `@ai-sdk/*` providers, Wardrik's real
 * runtime on a SQLite file. The limits are small and the servers stall for ever, so the tests
 * assert outcomes (tried again, then failed naming the limit; the request aborted), not durations.
 */
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type AiSdkModelOptions, type Model, type ModelRequest, modelFromString, type Wardrik } from '../src/index.js';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, DEFAULT_MODEL_TIMEOUT_MS } from '../src/model/ai-sdk-model.js';
import { type FakeOpenAI, type Reply, startFakeOpenAI } from './ai-sdk/fake-openai.js';
import { supportAgent } from './ai-sdk/orders.js';
import { PROVIDERS, type ProviderHarness } from './ai-sdk/providers.js';
import type { RecordingServer } from './ai-sdk/recording-server.js';
import { modelSteps, openWardrik, tempDbPath, until } from './helpers.js';

let server: RecordingServer<unknown> | undefined;
let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
  await server?.close();
  server = undefined;
});

async function openRuntime(model: Model): Promise<Wardrik> {
  wardrik = await openWardrik(tempDbPath(), [supportAgent(model)]);
  return wardrik;
}

async function serveOpenAI(handler: (index: number) => Reply): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI((request) => handler(request.index));
  server = fake;
  return fake;
}

function openaiModel(fake: FakeOpenAI, options: AiSdkModelOptions = {}): Model {
  return modelFromString(
    'openai:test-model',
    { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url },
    { log: () => {}, ...options },
  );
}

const IDLE_FAILURE =
  /^the model failed after 3 attempts: [\w:-]+: no part of the answer came for 200 ms \(the idle timeout, idleTimeoutMs\); the request was aborted$/;

describe.each(PROVIDERS)('$name', (provider: ProviderHarness) => {
  it('gives up on a provider that stalls after its headers: each try is aborted by the idle timeout', async () => {
    server = await provider.serve(() => ({ kind: 'stall-after-headers' }));
    const runtime = await openRuntime(provider.model(server, { idleTimeoutMs: 200 }));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(IDLE_FAILURE);
    expect(server.requests).toHaveLength(3);
    expect(await Promise.all(server.requests.map((request) => request.ended))).toEqual(Array(3).fill('unfinished'));
  });
});

describe('time limits of a model call', () => {
  it('counts a server that never sends its headers as idle', async () => {
    const fake = await serveOpenAI(() => ({ hold: true }));
    const runtime = await openRuntime(openaiModel(fake, { idleTimeoutMs: 200 }));

    const result = await runtime.run('support', 'Hi');

    expect(result.error).toMatch(IDLE_FAILURE);
    expect(await Promise.all(fake.requests.map((request) => request.ended))).toEqual(Array(3).fill('unfinished'));
  });

  it('ends a call that keeps streaming but never finishes at the overall timeout', async () => {
    // A piece every 10 ms: never idle for 10 s, and never done.
    const fake = await serveOpenAI(() => ({
      stream: { text: Array(100_000).fill('.'), beforePiece: () => sleep(10) },
    }));
    const runtime = await openRuntime(openaiModel(fake, { idleTimeoutMs: 10_000, timeoutMs: 300 }));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^the model failed after 3 attempts: openai:test-model: the model call took longer than 300 ms \(the timeout, timeoutMs\); the request was aborted$/,
    );
    expect(await Promise.all(fake.requests.map((request) => request.ended))).toEqual(Array(3).fill('unfinished'));
  });

  it('counts the idle timeout from the last part, not from the start of the call', async () => {
    // 40 pieces 25 ms apart: the call lasts well over the idle timeout, but is never idle that long.
    const fake = await serveOpenAI(() => ({ stream: { text: Array(40).fill('.'), beforePiece: () => sleep(25) } }));
    const runtime = await openRuntime(openaiModel(fake, { idleTimeoutMs: 500 }));

    const result = await runtime.run('support', 'Hi');

    expect(result).toMatchObject({ status: 'completed', output: '.'.repeat(40) });
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a stalled call, then completes with the next answer', async () => {
    const fake = await serveOpenAI((index) =>
      index === 1 ? { stallAfterHeaders: true } : { stream: { text: ['All ', 'good.'] } },
    );
    const runtime = await openRuntime(openaiModel(fake, { idleTimeoutMs: 200 }));

    const result = await runtime.run('support', 'Hi');

    expect(result).toMatchObject({ status: 'completed', output: 'All good.' });
    expect(modelSteps((await runtime.getRun(result.runId)).journal)).toHaveLength(1);
  });

  it('aborts the request of a stalled call when its run is cancelled', async () => {
    const fake = await serveOpenAI(() => ({ stallAfterHeaders: true }));
    const runtime = await openRuntime(openaiModel(fake));
    const { runId } = await runtime.start('support', 'Hi');
    await until(() => fake.requests.length === 1);

    const result = await runtime.cancel(runId);

    expect(result.status).toBe('cancelled');
    expect(await fake.requests[0]?.ended).toBe('unfinished');
    expect(fake.requests).toHaveLength(1);
  });

  it('leaves no listener on the run’s signal and no timer behind, call after call', async () => {
    const fake = await serveOpenAI(() => ({ stream: { text: ['ok'] } }));
    const model = openaiModel(fake, { idleTimeoutMs: 60_000, timeoutMs: 600_000 });
    const run = new AbortController();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const request: ModelRequest = { step: 1, instructions: '', messages: [{ role: 'user', content: 'Hi' }], tools: [] };
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    try {
      await model.generate(request, { signal: run.signal }); // warms up what the first call sets up once
      const timersBefore = timers();
      for (let call = 0; call < 30; call++) await model.generate(request, { signal: run.signal });

      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
      expect(timers()).toBeLessThanOrEqual(timersBefore);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('has defaults of 5 minutes idle and 20 minutes overall, and refuses a limit that is not a positive number', () => {
    expect([DEFAULT_MODEL_IDLE_TIMEOUT_MS, DEFAULT_MODEL_TIMEOUT_MS]).toEqual([300_000, 1_200_000]);
    const withLimits = (options: AiSdkModelOptions) =>
      modelFromString('openai:test-model', { OPENAI_API_KEY: 'sk-test' }, options);
    expect(() => withLimits({ idleTimeoutMs: 0 })).toThrow(
      'aiSdkModel: idleTimeoutMs must be a number of milliseconds from 1 to 2147483647, or Infinity for none; got 0',
    );
    expect(() => withLimits({ timeoutMs: Number.NaN })).toThrow(/^aiSdkModel: timeoutMs must be a number/);
    expect(() => withLimits({ timeoutMs: 3e9 })).toThrow(RangeError);
    expect(withLimits({ idleTimeoutMs: Number.POSITIVE_INFINITY, timeoutMs: Number.POSITIVE_INFINITY }).id).toBe(
      'openai:test-model',
    );
  });
});
