/**
 * The provider paths behind one interface, for tests that must hold on each: OpenAI Chat
 * Completions (`openai:`), OpenAI Responses, Anthropic Messages (`anthropic:`) and any
 * chat-completions server (`openai-compatible:`), through today's AI SDK 7 providers
 * (specification v4); and OpenAI's two wire formats again through the providers of AI SDK 6
 * (`@ai-sdk/openai` 3.x, specification v3) and AI SDK 5 (2.x, specification v2), which
 * `aiSdkModel` also takes. Each speaks through its real `@ai-sdk/*` provider to its own fake
 * server; a test says what the server does per request with a provider-neutral
 * {@link Behaviour}, and each harness turns it into its fake's wire format.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv2 } from 'ai-sdk-openai-v2';
import { createOpenAI as createOpenAIv3 } from 'ai-sdk-openai-v3';
import { type AiSdkModelOptions, aiSdkModel, type Model, modelFromString } from '../../src/index.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { startFakeOpenAI } from './fake-openai.js';
import { startFakeOpenAIResponses } from './fake-openai-responses.js';
import type { RecordingServer, StreamCut } from './recording-server.js';

/** What the server does with one request. */
export type Behaviour =
  /** Streams the text pieces and finishes properly. */
  | { readonly kind: 'answer'; readonly text: readonly string[] }
  /** Streams the text pieces, awaits `beforeCut`, then goes wrong (see {@link StreamCut}). */
  | {
      readonly kind: 'cut';
      readonly cut: StreamCut;
      readonly text: readonly string[];
      readonly beforeCut?: () => Promise<void>;
    }
  /** Streams the text pieces, then one chunk that is not JSON (`json`) or JSON of the wrong shape (`shape`). */
  | { readonly kind: 'malformed'; readonly form: 'json' | 'shape'; readonly text: readonly string[] }
  /** Sends the headers of a streamed answer, then nothing. */
  | { readonly kind: 'stall-after-headers' };

export interface ProviderHarness {
  readonly name: string;
  serve(behaviour: (index: number) => Behaviour): Promise<RecordingServer<unknown>>;
  model(server: RecordingServer<unknown>, options?: AiSdkModelOptions): Model;
}

const quiet = { log: () => {} };

/** `openai:test-model` (Chat Completions) and `openai-compatible:test-model@URL` share the fake. */
function chatCompletions(name: string, model: ProviderHarness['model']): ProviderHarness {
  const malformed = {
    json: '{"id":"chatcmpl-test","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x',
    shape: '{"id":"chatcmpl-test","object":"chat.completion.chunk","choices":"none"}',
  };
  return {
    name,
    model,
    serve: (behaviour) =>
      startFakeOpenAI((request) => {
        const each = behaviour(request.index);
        if (each.kind === 'stall-after-headers') return { stallAfterHeaders: true };
        if (each.kind === 'answer') return { stream: { text: each.text } };
        if (each.kind === 'malformed') return { stream: { text: each.text, malformed: malformed[each.form] } };
        return {
          stream: { text: each.text, cut: each.cut, ...(each.beforeCut ? { beforeFinish: each.beforeCut } : {}) },
        };
      }),
  };
}

const openaiChat = chatCompletions('openai chat completions', (server, options) =>
  modelFromString(
    'openai:test-model',
    { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url },
    { ...quiet, ...options },
  ),
);

const openaiCompatible = chatCompletions('openai-compatible', (server, options) =>
  modelFromString(`openai-compatible:test-model@${server.url}`, {}, { ...quiet, ...options }),
);

/** OpenAI's Responses API, through the provider `model` makes for the fake's URL. */
function responses(name: string, model: ProviderHarness['model']): ProviderHarness {
  return {
    name,
    model,
    serve: (behaviour) => serveResponses(behaviour),
  };
}

function serveResponses(behaviour: (index: number) => Behaviour): Promise<RecordingServer<unknown>> {
  const malformed = {
    json: '{"type":"response.output_text.delta","item_id":"msg_test","delta":"x',
    shape: '{"type":42,"delta":"x"}',
  };
  return startFakeOpenAIResponses((request) => {
    const each = behaviour(request.index);
    if (each.kind === 'stall-after-headers') return { stallAfterHeaders: true };
    if (each.kind === 'answer') return { stream: { text: each.text } };
    if (each.kind === 'malformed') return { stream: { text: each.text, malformed: malformed[each.form] } };
    return {
      stream: { text: each.text, cut: each.cut, ...(each.beforeCut ? { beforeFinish: each.beforeCut } : {}) },
    };
  });
}

const openaiResponses = responses('openai responses', (server, options) =>
  aiSdkModel(createOpenAI({ apiKey: 'sk-test', baseURL: server.url }).responses('test-model'), {
    ...quiet,
    ...options,
  }),
);

/** The same wire formats through the providers of AI SDK 6 (specification v3) and AI SDK 5 (v2). */
const olderSpecifications: ProviderHarness[] = [
  { version: 'v3', createOpenAI: createOpenAIv3, pkg: '@ai-sdk/openai 3.x' },
  { version: 'v2', createOpenAI: createOpenAIv2, pkg: '@ai-sdk/openai 2.x' },
].flatMap(({ version, createOpenAI: create, pkg }) => [
  chatCompletions(`openai chat completions, ${pkg} (specification ${version})`, (server, options) =>
    aiSdkModel(create({ apiKey: 'sk-test', baseURL: server.url }).chat('test-model'), { ...quiet, ...options }),
  ),
  responses(`openai responses, ${pkg} (specification ${version})`, (server, options) =>
    aiSdkModel(create({ apiKey: 'sk-test', baseURL: server.url }).responses('test-model'), { ...quiet, ...options }),
  ),
]);

const anthropic: ProviderHarness = {
  name: 'anthropic',
  // An explicit maxOutputTokens: the provider knows no limit for an unknown model id (and warns).
  model: (server, options) =>
    modelFromString(
      'anthropic:test-model',
      { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url },
      { ...quiet, maxOutputTokens: 1024, ...options },
    ),
  serve: (behaviour) => {
    const malformed = {
      json: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x',
      shape: '{"type":"content_block_delta","index":"first","delta":{"type":"text_delta"}}',
    };
    return startFakeAnthropic((request) => {
      const each = behaviour(request.index);
      if (each.kind === 'stall-after-headers') return { stallAfterHeaders: true };
      if (each.kind === 'answer') return { stream: { text: each.text } };
      if (each.kind === 'malformed') return { stream: { text: each.text, malformed: malformed[each.form] } };
      return {
        stream: { text: each.text, cut: each.cut, ...(each.beforeCut ? { beforeFinish: each.beforeCut } : {}) },
      };
    });
  },
};

/** Every provider path Wardrik supports, through today's providers (specification v4). */
export const CURRENT_PROVIDERS: readonly ProviderHarness[] = [openaiChat, openaiResponses, anthropic, openaiCompatible];

/** Every provider path, then OpenAI's two through the providers of specification v3 and v2. */
export const PROVIDERS: readonly ProviderHarness[] = [...CURRENT_PROVIDERS, ...olderSpecifications];
