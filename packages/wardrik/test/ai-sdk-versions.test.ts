/*
 * The provider models `aiSdkModel` takes (issue 28, item 1): Wardrik runs on AI SDK 7, whose
 * providers implement the language model specification v4; models of AI SDK 6 providers (v3) and
 * AI SDK 5 providers (v2) still work. Each runs the same tool conversation through its real
 * `@ai-sdk/openai` package (4.x, 3.x, 2.x) against the local chat-completions server, driven by
 * Wardrik's real runtime on a SQLite file. Anything else is refused when the model is made, with
 * an error that names Wardrik and the fix.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv2 } from 'ai-sdk-openai-v2';
import { createOpenAI as createOpenAIv3 } from 'ai-sdk-openai-v3';
import { afterEach, describe, expect, it } from 'vitest';
import { type AiSdkLanguageModel, aiSdkModel, type Wardrik } from '../src/index.js';
import { type ChatRequest, type FakeOpenAI, startFakeOpenAI } from './ai-sdk/fake-openai.js';
import { ordersReply, supportAgent } from './ai-sdk/orders.js';
import { modelSteps, openWardrik, tempDbPath } from './helpers.js';

let server: FakeOpenAI | undefined;
let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
  await server?.close();
  server = undefined;
});

/** The chat-completions models of each `@ai-sdk/openai` major, as their packages make them. */
const VERSIONS = [
  {
    specification: 'v4',
    pkg: '@ai-sdk/openai 4.x (AI SDK 7)',
    chat: (url: string) => createOpenAI({ apiKey: 'sk-test', baseURL: url }).chat('test-model'),
  },
  {
    specification: 'v3',
    pkg: '@ai-sdk/openai 3.x (AI SDK 6)',
    chat: (url: string) => createOpenAIv3({ apiKey: 'sk-test', baseURL: url }).chat('test-model'),
  },
  {
    specification: 'v2',
    pkg: '@ai-sdk/openai 2.x (AI SDK 5)',
    chat: (url: string) => createOpenAIv2({ apiKey: 'sk-test', baseURL: url }).chat('test-model'),
  },
] as const;

describe.each(VERSIONS)('a model of specification $specification, from $pkg', ({ specification, chat }) => {
  it('is what its package makes', async () => {
    server = await startFakeOpenAI(ordersReply);
    expect(chat(server.url).specificationVersion).toBe(specification);
  });

  it('runs a tool conversation: tools, calls under their ids, results, usage and usd', async () => {
    server = await startFakeOpenAI(ordersReply);
    const prices = { 'test-model': { input: 2, output: 8, cachedInput: 0.5 } };
    const model = aiSdkModel(chat(server.url) as AiSdkLanguageModel, { prices, log: () => {} });
    wardrik = await openWardrik(tempDbPath(), [supportAgent(model)]);

    const result = await wardrik.run('support', 'Where are A1 and B2?');

    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'Here you are: call_A1={"order_id":"A1","status":"shipped"}; call_B2={"order_id":"B2","status":"packed"}',
    );
    const [first, second] = server.requests as ChatRequest[];
    expect(first?.body.tools?.map((tool) => tool.function.name)).toEqual(['lookup_order']);
    expect(second?.body.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
    ]);
    const steps = modelSteps((await wardrik.getRun(result.runId)).journal);
    expect(steps.map((step) => step.model)).toEqual(['openai:test-model', 'openai:test-model']);
    expect(steps.map((step) => step.usage)).toEqual([
      { inputTokens: 100, outputTokens: 20 },
      { inputTokens: 300, outputTokens: 40, cachedInputTokens: 100 },
    ]);
    expect(result.measures.usd).toBeCloseTo((100 * 2 + 20 * 8 + 200 * 2 + 100 * 0.5 + 40 * 8) / 1e6, 12);
  });
});

describe('the AI SDK’s warning about a v2 model', () => {
  it('comes once, when the model is made, not at every step', async () => {
    server = await startFakeOpenAI(ordersReply);
    const warnings: unknown[] = [];
    const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
    const before = global.AI_SDK_LOG_WARNINGS;
    global.AI_SDK_LOG_WARNINGS = (options: { warnings: unknown[] }) => warnings.push(...options.warnings);
    try {
      const model = aiSdkModel(createOpenAIv2({ apiKey: 'sk-test', baseURL: server.url }).chat('test-model'), {
        log: () => {},
      });
      wardrik = await openWardrik(tempDbPath(), [supportAgent(model)]);
      const result = await wardrik.run('support', 'Where are A1 and B2?');

      expect(result.status).toBe('completed');
      expect(server.requests).toHaveLength(2);
      expect(warnings).toEqual([expect.objectContaining({ type: 'compatibility', feature: 'specificationVersion' })]);
    } finally {
      global.AI_SDK_LOG_WARNINGS = before;
    }
  });
});

describe('a model aiSdkModel cannot take is refused when the model is made', () => {
  /** A model of another specification, complete but for its version. */
  const modelOf = (specificationVersion: string) =>
    ({
      specificationVersion,
      provider: 'legacy.chat',
      modelId: 'old-model',
      supportedUrls: {},
      doGenerate: async () => ({}),
      doStream: async () => ({}),
    }) as unknown as AiSdkLanguageModel;

  it('one of specification v1 (an AI SDK 4 provider): update the provider package', () => {
    expect(() => aiSdkModel(modelOf('v1'))).toThrow(
      new TypeError(
        'wardrik: the model given to aiSdkModel (provider "legacy.chat", model "old-model") implements AI SDK specification "v1", which Wardrik cannot use: ' +
          'Wardrik runs on AI SDK 7, which takes provider models of specification v4 (AI SDK 7 providers, e.g. @ai-sdk/openai 4.x), ' +
          'v3 (AI SDK 6 providers, @ai-sdk/openai 3.x) or v2 (AI SDK 5 providers, @ai-sdk/openai 2.x). ' +
          "Update the provider package that made the model to a version made for AI SDK 5, 6 or 7 (for one of the AI SDK's own providers: npm install @ai-sdk/legacy@latest).",
      ),
    );
  });

  it('one of a newer specification: the provider version made for AI SDK 7, or a newer Wardrik', () => {
    expect(() => aiSdkModel(modelOf('v5'))).toThrow(
      /^wardrik: the model given to aiSdkModel .* implements AI SDK specification "v5", which Wardrik cannot use: Wardrik runs on AI SDK 7.*Install the version of the provider package made for AI SDK 7, the one that depends on @ai-sdk\/provider 4\.x \(e\.g\. @ai-sdk\/openai 4\.x, @ai-sdk\/openai-compatible 3\.x\), or a Wardrik release built on a newer AI SDK\.$/,
    );
  });

  it('a model string: use modelFromString', () => {
    expect(() => aiSdkModel('openai:gpt-4.1-mini' as unknown as AiSdkLanguageModel)).toThrow(
      "wardrik: aiSdkModel takes an AI SDK language model object, such as openai('gpt-4.1-mini') from @ai-sdk/openai, " +
        `not a string ("openai:gpt-4.1-mini"): for a model string, use modelFromString('openai:gpt-4.1-mini')`,
    );
  });

  it('something that is not a model', () => {
    expect(() => aiSdkModel({ provider: 'openai' } as unknown as AiSdkLanguageModel)).toThrow(
      "wardrik: aiSdkModel takes an AI SDK language model object, such as openai('gpt-4.1-mini') from @ai-sdk/openai; got an object without doStream (keys: provider)",
    );
    expect(() => aiSdkModel(undefined as unknown as AiSdkLanguageModel)).toThrow(/; got undefined$/);
  });
});

describe('what an AI SDK model tells telemetry', () => {
  it('its provider, the model it asks for and where its requests go; each answer its id and the model that gave it', async () => {
    server = await startFakeOpenAI(() => ({ stream: { text: ['hello'] } }));
    const model = aiSdkModel(
      createOpenAI({ apiKey: 'sk-test', baseURL: server.url }).chat('test-model') as AiSdkLanguageModel,
      {
        log: () => {},
      },
    );
    expect(model).toMatchObject({ provider: 'openai.chat', modelName: 'test-model' });
    expect(new URL(model.baseUrl ?? '').host).toBe(new URL(server.url).host);
    const response = await model.generate(
      { step: 1, instructions: '', messages: [{ role: 'user', content: 'hi' }], tools: [] },
      { signal: new AbortController().signal },
    );
    expect(response).toMatchObject({ text: 'hello', responseId: 'chatcmpl-test', responseModel: 'test-model' });
  });
});
