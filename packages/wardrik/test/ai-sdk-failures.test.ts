/*
 * Model calls that go wrong on the wire (issue 11, items 14–17), on every provider path: a
 * connection reset mid-answer, a stream that ends without its finish, a malformed chunk, a
 * provider that stalls. Each is a fake server speaking the provider's real wire format, reached
 * through the real `@ai-sdk/*` provider, driven by Wardrik's real runtime on a SQLite file. Model
 * steps are repeatable, so each of these is retried, and the run fails, saying what happened, if
 * it keeps happening; none of them may end a run with a partial answer.
 */
import { createOpenAI } from '@ai-sdk/openai';
import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoSuchModelError,
  TypeValidationError,
  UnsupportedModelVersionError,
} from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aiSdkModel, type Model, type Wardrik } from '../src/index.js';
import { toModelError } from '../src/model/model-errors.js';
import { supportAgent } from './ai-sdk/orders.js';
import type { Behaviour, ProviderHarness } from './ai-sdk/providers.js';
import { PROVIDERS } from './ai-sdk/providers.js';
import type { RecordingServer } from './ai-sdk/recording-server.js';
import { modelSteps, openWardrik, tempDbPath } from './helpers.js';

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

/**
 * Counts the text deltas the runtime has streamed to its listeners. A fake that must cut its
 * stream *mid-answer* waits until the client has read what it sent so far: a reset that arrives
 * before the client read the answer would be a failure to connect, not a cut answer.
 */
function deltaCounter(runtime: Wardrik) {
  let seen = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  runtime.subscribe('*', (event) => {
    if (event.type !== 'text-delta') return;
    seen++;
    for (const waiter of waiting.filter((each) => each.count <= seen)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    reached: (count: number) =>
      new Promise<void>((resolve) => (count <= seen ? resolve() : waiting.push({ count, resolve }))),
  };
}

const PARTIAL = ['Your order ', 'A1 has'];
const ANSWER = { kind: 'answer', text: ['All ', 'good.'] } as const;

describe.each(PROVIDERS)('$name', (provider: ProviderHarness) => {
  /** Starts the fake, then a runtime whose model talks to it; the fake's behaviour may use the runtime. */
  async function setUp(behaviour: (index: number, deltas: ReturnType<typeof deltaCounter>) => Behaviour) {
    let deltas: ReturnType<typeof deltaCounter> | undefined;
    server = await provider.serve((index) => behaviour(index, deltas as ReturnType<typeof deltaCounter>));
    const runtime = await openRuntime(provider.model(server));
    deltas = deltaCounter(runtime);
    return { fake: server, runtime };
  }

  /** The server cuts attempt `index` by a reset once the client has read its text. */
  const resetMidAnswer = (index: number, deltas: ReturnType<typeof deltaCounter>): Behaviour => ({
    kind: 'cut',
    cut: 'reset',
    text: PARTIAL,
    beforeCut: () => deltas.reached(index * PARTIAL.length),
  });

  it('retries an answer whose connection was reset mid-stream, then completes with the next answer', async () => {
    const { fake, runtime } = await setUp((index, deltas) => (index === 1 ? resetMidAnswer(index, deltas) : ANSWER));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result).toMatchObject({ status: 'completed', output: 'All good.' });
    expect(fake.requests).toHaveLength(2);
    expect(modelSteps((await runtime.getRun(result.runId)).journal).map((step) => step.text)).toEqual(['All good.']);
  });

  it('fails the run when every answer is cut by a reset, saying the connection was cut mid-answer', async () => {
    const { fake, runtime } = await setUp(resetMidAnswer);

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^the model failed after 3 attempts: .+: the connection was cut mid-answer: ECONNRESET/,
    );
    expect(result.error).not.toContain('HTTP 200');
    expect(fake.requests).toHaveLength(3);
  });

  it('retries a stream that ends without a finish, and never takes its text as the answer', async () => {
    const { fake, runtime } = await setUp((index) =>
      index === 1 ? { kind: 'cut', cut: 'end', text: PARTIAL } : ANSWER,
    );

    const result = await runtime.run('support', 'Where is A1?');

    expect(result).toMatchObject({ status: 'completed', output: 'All good.' });
    expect(fake.requests).toHaveLength(2);
    expect(modelSteps((await runtime.getRun(result.runId)).journal).map((step) => step.text)).toEqual(['All good.']);
  });

  it('fails the run when every stream ends without a finish, journaling no step', async () => {
    const { fake, runtime } = await setUp(() => ({ kind: 'cut', cut: 'end', text: PARTIAL }));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.status).toBe('failed');
    expect(result.output).toBeUndefined();
    expect(result.error).toMatch(/^the model failed after 3 attempts: .+ended without a finish reason/);
    expect(fake.requests).toHaveLength(3);
    expect(modelSteps((await runtime.getRun(result.runId)).journal)).toEqual([]);
  });

  it('retries a malformed chunk (not JSON, or JSON of the wrong shape)', async () => {
    const { fake, runtime } = await setUp((index) =>
      index === 1
        ? { kind: 'malformed', form: 'json', text: PARTIAL }
        : index === 2
          ? { kind: 'malformed', form: 'shape', text: PARTIAL }
          : ANSWER,
    );

    const result = await runtime.run('support', 'Where is A1?');

    expect(result).toMatchObject({ status: 'completed', output: 'All good.' });
    expect(fake.requests).toHaveLength(3);
  });

  it('fails the run, quoting the malformed chunk, when every answer carries one', async () => {
    const { runtime } = await setUp(() => ({ kind: 'malformed', form: 'json', text: PARTIAL }));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^the model failed after 3 attempts: .+: the provider sent a malformed chunk, not JSON \(.+\): \{"/,
    );
  });
});

describe('setup errors fail the run at once', () => {
  it('a missing API key, before any request is sent', async () => {
    server = await PROVIDERS[0]?.serve(() => ANSWER);
    vi.stubEnv('OPENAI_API_KEY', undefined);
    try {
      const openai = createOpenAI({ baseURL: server?.url ?? '' });
      const runtime = await openRuntime(aiSdkModel(openai.chat('test-model'), { log: () => {} }));

      const result = await runtime.run('support', 'Hi');

      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/^the model failed: openai:test-model: OpenAI API key is missing/);
      expect(server?.requests).toHaveLength(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('toModelError', () => {
  const url = 'https://api.example.com/v1/chat/completions';
  const classify = (thrown: unknown) => {
    const error = toModelError(thrown, 'openai:gpt-4o');
    return { retryable: error.retryable, message: error.message };
  };

  it('keeps the AI SDK’s setup errors permanent, and only them', () => {
    expect(classify(new UnsupportedModelVersionError({ version: 'v1', provider: 'p', modelId: 'm' })).retryable).toBe(
      false,
    );
    expect(classify(new LoadAPIKeyError({ message: 'no key' })).retryable).toBe(false);
    expect(classify(new NoSuchModelError({ modelId: 'm', modelType: 'languageModel' })).retryable).toBe(false);
    // UnsupportedModelVersionError.isInstance matches any AI SDK error: it must not decide this.
    expect(UnsupportedModelVersionError.isInstance(new JSONParseError({ text: '{', cause: new Error('x') }))).toBe(
      true,
    );
    expect(classify(new JSONParseError({ text: '{"a":', cause: new SyntaxError('Unexpected end') }))).toEqual({
      retryable: true,
      message: 'openai:gpt-4o: the provider sent a malformed chunk, not JSON (Unexpected end): {"a":',
    });
    expect(classify(TypeValidationError.wrap({ value: { choices: 'none' }, cause: new Error('bad') }))).toEqual({
      retryable: true,
      message: 'openai:gpt-4o: the provider sent a malformed chunk, of an unexpected shape: {"choices":"none"}',
    });
    expect(classify(new InvalidResponseDataError({ data: {}, message: 'no finish' })).retryable).toBe(true);
  });

  it('quotes at most 200 characters of a malformed chunk', () => {
    const { message } = classify(new JSONParseError({ text: `{"text":"${'x'.repeat(500)}`, cause: new Error('end') }));
    expect(message).toHaveLength('openai:gpt-4o: the provider sent a malformed chunk, not JSON (end): '.length + 201);
    expect(message.endsWith('x…')).toBe(true);
  });

  it('calls a 2xx answer that failed while it was read a cut connection, and retries it', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const cut = new APICallError({
      message: 'Failed to process successful response',
      url,
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError('terminated', { cause: reset }),
      isRetryable: false,
    });
    expect(classify(cut)).toEqual({
      retryable: true,
      message: `openai:gpt-4o: the connection was cut mid-answer: ECONNRESET (read ECONNRESET), from ${url}`,
    });
    const unreadable = new APICallError({
      message: 'Failed to process successful response',
      url,
      requestBodyValues: {},
      statusCode: 200,
      cause: new Error('invalid gzip data'),
    });
    expect(classify(unreadable)).toEqual({
      retryable: true,
      message: `openai:gpt-4o: the answer from ${url} could not be read: invalid gzip data`,
    });
  });
});
