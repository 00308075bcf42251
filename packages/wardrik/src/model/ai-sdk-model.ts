import type { LanguageModelUsage } from 'ai';
import { ModelError } from '../errors.js';
import { aiSdk } from './ai-sdk.js';
import { toModelMessages, toToolSet } from './ai-sdk-prompt.js';
import { type AiSdkLanguageModel, checkedLanguageModel } from './ai-sdk-version.js';
import { CallDeadline, type ModelCallLimits, type ModelTimeout } from './call-deadline.js';
import type { GenerateOptions, Model, ModelRequest, ModelResponse, RequestedToolCall, Usage } from './model.js';
import { DEFAULT_MAX_RETRY_AFTER_MS, toModelError } from './model-errors.js';
import { defaultPrices, mergePrices, type PriceTable, usdFor } from './prices.js';

export type { AiSdkLanguageModel } from './ai-sdk-version.js';

/**
 * Default longest wait for the next part of an answer (the first one included): 5 minutes. A
 * reasoning model may think that long before its first token, and OpenAI's Chat Completions API
 * streams nothing while it does; a false timeout costs a whole step made again (and can fail the
 * run), while a stall caught later only costs the wait.
 */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 300_000;

/**
 * Default longest model call, from the request to the end of the answer: 20 minutes. It catches
 * a provider that keeps a stream alive without finishing it, and leaves room for the longest
 * real steps (minutes of reasoning, then tens of thousands of output tokens).
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 1_200_000;

/** The longest timer Node.js can set (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /** The model's id in Wardrik (journal, events). Default `provider:modelId`, e.g. `openai:gpt-4.1-mini`. */
  readonly id?: string;
  /**
   * Where the provider's requests go, for telemetry (`server.address`, `server.port`), when the
   * provider model does not say (the AI SDK's own providers do).
   */
  readonly baseUrl?: string;
  /** Prices added to (or replacing, for the same model id) {@link defaultPrices}. */
  readonly prices?: PriceTable;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** The longest `Retry-After` honoured; a longer one is cut to this. Default 60 s. */
  readonly maxRetryAfterMs?: number;
  /** Where notices go (once per model: "no price for this model"). Default `console.warn`. */
  readonly log?: (message: string) => void;
  /**
   * The longest wait, in ms, for the next part of an answer (the first one included; the
   * provider's keep-alive events count). Past it, the request is aborted and the step fails with
   * a retryable `ModelError` naming the idle timeout. Default {@link DEFAULT_MODEL_IDLE_TIMEOUT_MS}
   * (5 minutes); `Infinity` for none.
   */
  readonly idleTimeoutMs?: number;
  /**
   * The longest model call, in ms, from the request to the end of the answer. Past it, the
   * request is aborted and the step fails with a retryable `ModelError` naming the timeout.
   * Default {@link DEFAULT_MODEL_TIMEOUT_MS} (20 minutes); `Infinity` for none.
   */
  readonly timeoutMs?: number;
}

/**
 * Adapts any AI SDK language model to Wardrik's `Model`: the run's conversation and tools become
 * the AI SDK prompt, text streams to `onTextDelta` as it arrives, and the answer comes back with
 * its tool calls, token usage and — when the price table knows the model — its cost as `usd`.
 *
 * Wardrik runs on AI SDK 7, which takes provider models of specification v4 (AI SDK 7 providers:
 * `@ai-sdk/openai` 4.x, `@ai-sdk/anthropic` 4.x, …), v3 (AI SDK 6 providers, 3.x) and v2 (AI SDK 5
 * providers, 2.x). Anything else — a string, an object that is not a model, a model of another
 * specification (v1 from an AI SDK 4 provider) — is a `TypeError` here, naming the fix.
 *
 * The AI SDK does not retry (`maxRetries: 0`): Wardrik's run loop does, with backoff. Retryable
 * `ModelError`s: rate limits (429, with the provider's `Retry-After`), 408/409, 5xx answers,
 * network errors (before or in the middle of an answer), a malformed chunk, a stream that ends
 * without a finish reason (its partial text is never taken as the answer), and the idle and
 * overall timeouts (`idleTimeoutMs`, `timeoutMs`), which abort the request. Other 4xx answers (a
 * bad key, an unknown model) and the AI SDK's setup errors fail the run at once.
 *
 * @example
 * ```ts
 * import { createOpenAI } from '@ai-sdk/openai'
 * import { aiSdkModel, defineAgent } from 'wardrik'
 *
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY })
 * const model = aiSdkModel(openai('gpt-4.1-mini'), { idleTimeoutMs: 60_000, timeoutMs: 600_000 })
 * const agent = defineAgent({ name: 'support', instructions: '…', model, tools })
 * ```
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): Model {
  return new AiSdkModel(languageModel, options);
}

/** What one model step streamed, before it becomes a `ModelResponse`. */
interface StreamedStep {
  text: string;
  readonly toolCalls: RequestedToolCall[];
  usage: LanguageModelUsage | undefined;
  truncated: boolean;
  finished: boolean;
  /** The provider's id for the answer and the model that gave it (from the step's finish). */
  responseId?: string;
  responseModel?: string;
}

class AiSdkModel implements Model {
  readonly id: string;
  readonly provider: string;
  readonly modelName: string;
  readonly baseUrl?: string;
  readonly #model: AiSdkLanguageModel;
  readonly #options: AiSdkModelOptions;
  readonly #prices: PriceTable;
  readonly #limits: ModelCallLimits;
  #toldNoPrice = false;

  constructor(given: AiSdkLanguageModel, options: AiSdkModelOptions) {
    const model = checkedLanguageModel(given);
    this.#model = model;
    this.#options = options;
    this.#prices = options.prices ? mergePrices(defaultPrices, options.prices) : defaultPrices;
    this.id = options.id ?? `${model.provider.split('.')[0]}:${model.modelId}`;
    this.provider = model.provider;
    this.modelName = model.modelId;
    const baseUrl = options.baseUrl ?? providerBaseUrl(model);
    if (baseUrl !== undefined) this.baseUrl = baseUrl;
    this.#limits = {
      idleTimeoutMs: checkTimeout('idleTimeoutMs', options.idleTimeoutMs, DEFAULT_MODEL_IDLE_TIMEOUT_MS),
      timeoutMs: checkTimeout('timeoutMs', options.timeoutMs, DEFAULT_MODEL_TIMEOUT_MS),
    };
  }

  async generate(request: ModelRequest, { signal, onTextDelta }: GenerateOptions): Promise<ModelResponse> {
    const deadline = new CallDeadline(signal, this.#limits);
    let step: StreamedStep;
    try {
      step = await this.#stream(request, deadline, onTextDelta);
    } catch (thrown) {
      throw this.#failure(thrown, signal, deadline);
    } finally {
      deadline.dispose();
    }
    const { wardrikUsage, reported } = convertUsage(step.usage);
    const usd = reported ? this.#usd(wardrikUsage) : undefined;
    return {
      text: step.text,
      toolCalls: step.toolCalls,
      usage: wardrikUsage,
      ...(usd === undefined ? {} : { measures: { usd } }),
      ...(step.truncated ? { truncated: true } : {}),
      ...(step.responseId === undefined ? {} : { responseId: step.responseId }),
      ...(step.responseModel === undefined ? {} : { responseModel: step.responseModel }),
    };
  }

  async #stream(
    request: ModelRequest,
    deadline: CallDeadline,
    onTextDelta: ((delta: string) => void) | undefined,
  ): Promise<StreamedStep> {
    const step: StreamedStep = { text: '', toolCalls: [], usage: undefined, truncated: false, finished: false };
    const result = aiSdk().streamText({
      model: this.#model,
      ...(request.instructions === '' ? {} : { instructions: request.instructions }),
      messages: toModelMessages(request.messages),
      tools: toToolSet(request.tools),
      maxRetries: 0,
      abortSignal: deadline.signal,
      include: { rawChunks: true }, // every event on the wire (keep-alive pings too) is a sign of life
      ...(this.#options.maxOutputTokens === undefined ? {} : { maxOutputTokens: this.#options.maxOutputTokens }),
      ...(this.#options.temperature === undefined ? {} : { temperature: this.#options.temperature }),
      onError: () => {}, // errors arrive as stream parts, below
    });
    for await (const part of result.stream) {
      deadline.touch();
      if (part.type === 'text-delta') {
        step.text += part.text;
        onTextDelta?.(part.text);
      } else if (part.type === 'tool-call' && part.providerExecuted !== true) {
        step.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
      } else if (part.type === 'finish-step') {
        this.#checkFinish(part.finishReason, part.rawFinishReason);
        step.usage = part.usage;
        step.truncated = part.finishReason === 'length';
        step.finished = true;
        const response = (part as { response?: { id?: unknown; modelId?: unknown } }).response;
        if (typeof response?.id === 'string' && response.id !== '') step.responseId = response.id;
        if (typeof response?.modelId === 'string' && response.modelId !== '') step.responseModel = response.modelId;
      } else if (part.type === 'error') {
        throw part.error;
      } else if (part.type === 'abort') {
        throw deadline.signal.reason ?? new Error('the model call was aborted');
      }
    }
    if (!step.finished) this.#checkFinish(undefined, undefined);
    return step;
  }

  /**
   * A step is an answer only if the provider said why it stopped. A stream that ended without its
   * finish (no finish reason, no `[DONE]`, no `message_stop`, no `response.completed`) is reported
   * as `interrupted` by AI SDK 7 providers (specification v4), as `other` with no raw reason by
   * older ones (v3, and v2 through the AI SDK's conversion), or with no finish at all; `other`
   * with a raw reason is a finish the AI SDK does not name, and is one.
   */
  #checkFinish(finishReason: string | undefined, rawFinishReason: string | undefined): void {
    if (finishReason === 'error') {
      throw new ModelError(`${this.id}: the provider ended the answer with an error`, { retryable: true });
    }
    if (
      finishReason === undefined ||
      finishReason === 'interrupted' ||
      (finishReason === 'other' && rawFinishReason === undefined)
    ) {
      throw new ModelError(
        `${this.id}: the answer ended without a finish reason (the stream was cut short), so it may be incomplete`,
        { retryable: true },
      );
    }
  }

  #failure(thrown: unknown, runSignal: AbortSignal, deadline: CallDeadline): unknown {
    if (runSignal.aborted) return runSignal.reason;
    if (deadline.expired) return this.#timeoutError(deadline.expired, thrown);
    if (ModelError.isInstance(thrown)) return thrown;
    return toModelError(thrown, this.id, this.#options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
  }

  #timeoutError(limit: ModelTimeout, cause: unknown): ModelError {
    const message =
      limit === 'idle'
        ? `no part of the answer came for ${this.#limits.idleTimeoutMs} ms (the idle timeout, idleTimeoutMs)`
        : `the model call took longer than ${this.#limits.timeoutMs} ms (the timeout, timeoutMs)`;
    return new ModelError(`${this.id}: ${message}; the request was aborted`, { retryable: true, cause });
  }

  #usd(usage: Usage): number | undefined {
    const usd = usdFor(this.#model.modelId, usage, this.#prices);
    if (usd === undefined && !this.#toldNoPrice) {
      this.#toldNoPrice = true;
      (this.#options.log ?? console.warn)(
        `wardrik: no price for model "${this.#model.modelId}" (${this.id}), so its steps get no usd measure (and a usd budget never stops it); ` +
          `add one in USD per million tokens with aiSdkModel(model, { prices: { '${this.#model.modelId}': { input, output, cachedInput } } }), ` +
          `or, for the model WARDRIK_MODEL names, in your config: modelFromEnvironment(process.env, { prices: { '${this.#model.modelId}': { input: 2, output: 8 } } })`,
      );
    }
    return usd;
  }
}

/** A timeout option: a positive number of ms, `Infinity` for none, or the default when unset. */
function checkTimeout(name: string, value: number | undefined, byDefault: number): number {
  if (value === undefined) return byDefault;
  if (value === Number.POSITIVE_INFINITY || (value > 0 && value <= MAX_TIMER_MS)) return value;
  throw new RangeError(
    `aiSdkModel: ${name} must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, or Infinity for none; got ${value}`,
  );
}

/** The AI SDK's usage as Wardrik's; `reported` is false when the provider reported no token counts. */
function convertUsage(usage: LanguageModelUsage | undefined): { wardrikUsage: Usage; reported: boolean } {
  const inputTokens = usage?.inputTokens;
  const outputTokens = usage?.outputTokens;
  const cached = usage?.inputTokenDetails?.cacheReadTokens;
  const written = usage?.inputTokenDetails?.cacheWriteTokens;
  const wardrikUsage: Usage = {
    inputTokens: inputTokens ?? 0,
    outputTokens: outputTokens ?? 0,
    ...(cached ? { cachedInputTokens: cached } : {}),
    ...(written ? { cacheWriteInputTokens: written } : {}),
  };
  return { wardrikUsage, reported: inputTokens !== undefined || outputTokens !== undefined };
}

/**
 * Where a provider model sends its requests, as far as it says (for telemetry's `server.address`
 * and `server.port`): the AI SDK's providers keep it in their config (`baseURL`, or a `url`
 * function); anything else gives undefined, and `aiSdkModel(model, { baseUrl })` says it instead.
 */
function providerBaseUrl(model: AiSdkLanguageModel): string | undefined {
  const config = (model as { config?: { baseURL?: unknown; url?: unknown } }).config;
  try {
    if (typeof config?.baseURL === 'string') return new URL(config.baseURL).href;
    if (typeof config?.url === 'function') {
      const url = (config.url as (input: { path: string; modelId: string }) => unknown)({
        path: '',
        modelId: model.modelId,
      });
      if (typeof url === 'string') return new URL(url).href;
    }
  } catch {
    // Not a URL: say nothing rather than something wrong.
  }
  return undefined;
}
