import type { JsonSchema, Label, Measures } from '@wardrik/core';

/** A tool call as the model asked for it, and as the journal keeps it. */
export interface ModelToolCall {
  /** Wardrik's id for the call, unique in the run (`c<step>.<index>`). */
  readonly callId: string;
  /** The id the model gave the call, if any (providers echo it back with the result). */
  readonly modelCallId?: string;
  readonly name: string;
  /** The arguments, normalized to a JSON object when they could be (see `normalizeArguments`). */
  readonly arguments: unknown;
  /** Why the arguments can't be used; `arguments` then holds what could be kept of them (or null). */
  readonly invalidArguments?: string;
}

/** One message of a run's conversation, as the model sees it. */
export type Message =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ModelToolCall[] }
  | {
      readonly role: 'tool';
      readonly callId: string;
      readonly modelCallId?: string;
      readonly name: string;
      /** What the model reads: the ok value, or `{ error: reason }`. */
      readonly content: unknown;
      readonly isError: boolean;
      readonly labels: readonly Label[];
    };

/** A tool as offered to the model. */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

/** What a model is asked: its instructions, the conversation so far and the tools it may call. */
export interface ModelRequest {
  /** Which model step of the run this is, from 1. */
  readonly step: number;
  readonly instructions: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ModelToolDefinition[];
  /**
   * The JSON Schema the final answer must match, when the agent has an `outputSchema`: a model
   * that supports structured output is asked for it (the answer is checked either way).
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/** Token usage of one model call. */
export interface Usage {
  /** All input tokens, cached and cache-written included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic), priced at `cacheWriteInput`. */
  readonly cacheWriteInputTokens?: number;
}

/** A tool call as a model returns it, before Wardrik names it. */
export interface RequestedToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: unknown;
}

/** What a model answers: text, tool calls, or both, and what it cost. */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly RequestedToolCall[];
  readonly usage: Usage;
  /** Extra measures, such as `usd` when the model knows its price. */
  readonly measures?: Measures;
  /**
   * True when the model stopped because it reached its output token limit: the text (and the list
   * of tool calls) may be incomplete. Wardrik then ends the run as failed, without running the
   * step's calls, rather than take a cut-off answer as final.
   */
  readonly truncated?: boolean;
  /** The provider's id for this answer (e.g. `chatcmpl-…`), for telemetry (`gen_ai.response.id`). */
  readonly responseId?: string;
  /** The model that answered, as the provider names it (e.g. `gpt-4o-mini-2024-07-18`), for telemetry. */
  readonly responseModel?: string;
}

/** Options for one model call. */
export interface GenerateOptions {
  readonly signal: AbortSignal;
  /** Called with each piece of text as it streams in, if the model streams. */
  readonly onTextDelta?: (delta: string) => void;
}

/**
 * A language model, as Wardrik drives it. Model calls are repeatable: a step lost in a crash is
 * made again, and its cost is metered every time.
 *
 * @example
 * ```ts
 * const echo: Model = {
 *   id: 'echo',
 *   async generate(request) {
 *     const last = request.messages.at(-1)
 *     return { text: last?.role === 'user' ? last.content : 'done', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }
 *   },
 * }
 * ```
 */
export interface Model {
  readonly id: string;
  /**
   * Who serves the model, for telemetry (`gen_ai.provider.name`): `openai`, `anthropic`, or an AI
   * SDK provider's name. Default: the part of `id` before `:`.
   */
  readonly provider?: string;
  /** The model's name as the provider is asked for it (`gpt-4o-mini`). Default: the part of `id` after `:`. */
  readonly modelName?: string;
  /** Where its requests go (`https://api.openai.com/v1`), for telemetry (`server.address`, `server.port`). */
  readonly baseUrl?: string;
  generate(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse>;
}
