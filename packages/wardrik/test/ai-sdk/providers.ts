/**
 * The four provider paths behind one interface, for tests that must hold on each: OpenAI Chat
 * Completions (`openai:`), OpenAI Responses, Anthropic Messages (`anthropic:`) and any
 * chat-completions server (`openai-compatible:`). Each speaks through its real `@ai-sdk/*`
 * provider to its own fake server; a test says what the server does per request with a
 * provider-neutral {@link Behaviour}, and each harness turns it into its fake's wire format.
 */
import { createOpenAI } from '@ai-sdk/openai';
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

const openaiResponses: ProviderHarness = {
  name: 'openai responses',
  model: (server, options) =>
    aiSdkModel(createOpenAI({ apiKey: 'sk-test', baseURL: server.url }).responses('test-model'), {
      ...quiet,
      ...options,
    }),
  serve: (behaviour) => {
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
  },
};

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

/** Every provider path Wardrik supports. */
export const PROVIDERS: readonly ProviderHarness[] = [openaiChat, openaiResponses, anthropic, openaiCompatible];
