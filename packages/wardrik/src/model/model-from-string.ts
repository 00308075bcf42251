import type * as Anthropic from '@ai-sdk/anthropic';
import type * as OpenAI from '@ai-sdk/openai';
import type * as OpenAICompatible from '@ai-sdk/openai-compatible';
import { WardrikError } from '@wardrik/core';
import { loadNow } from '../lazy-package.js';
import { type AiSdkLanguageModel, type AiSdkModelOptions, aiSdkModel } from './ai-sdk-model.js';
import type { Model } from './model.js';

/** Environment variables, as `process.env` has them. */
export type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/** A model string is malformed, names an unknown provider, or its API key is missing. */
export class ModelSpecError extends WardrikError {
  static readonly code = 'model_spec';
  constructor(message: string) {
    super('model_spec', message);
  }
  static override isInstance(value: unknown): value is ModelSpecError {
    return WardrikError.isInstance(value) && value.code === 'model_spec';
  }
}

/** The providers a model string may name. */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai-compatible'] as const;

const FORMS =
  '"openai:MODEL" (OPENAI_API_KEY), "anthropic:MODEL" (ANTHROPIC_API_KEY) or ' +
  '"openai-compatible:MODEL@BASE_URL" (or WARDRIK_BASE_URL; optional WARDRIK_API_KEY)';

/**
 * A model from a string, with keys from the environment:
 * - `openai:MODEL` — OpenAI's Chat Completions API; `OPENAI_API_KEY`, optional `OPENAI_BASE_URL`.
 * - `anthropic:MODEL` — `ANTHROPIC_API_KEY`, optional `ANTHROPIC_BASE_URL`.
 * - `openai-compatible:MODEL@BASE_URL` (or `openai-compatible:MODEL` with `WARDRIK_BASE_URL`) —
 *   any server speaking chat completions (Ollama, vLLM, LM Studio, a gateway); optional
 *   `WARDRIK_API_KEY`.
 *
 * Throws {@link ModelSpecError} naming the problem: an unknown provider, no model, a missing key
 * (naming its variable). `options` are {@link aiSdkModel}'s: prices, the model call's time limits
 * (`idleTimeoutMs`, default 5 minutes; `timeoutMs`, default 20 minutes), and so on.
 *
 * @example
 * ```ts
 * const model = modelFromString('openai:gpt-4.1-mini')
 * const local = modelFromString('openai-compatible:llama3.2@http://127.0.0.1:11434/v1')
 * const patient = modelFromString('anthropic:claude-sonnet-4-5', process.env, { idleTimeoutMs: 60_000, timeoutMs: 600_000 })
 * ```
 */
export function modelFromString(
  spec: string,
  env: ModelEnvironment = process.env,
  options: AiSdkModelOptions = {},
): Model {
  return aiSdkModel(languageModelFromString(spec, env), options);
}

/**
 * The model named by `WARDRIK_MODEL` (see {@link modelFromString}), or undefined when it is not
 * set: the caller then falls back to its offline model, and should say so.
 *
 * @example
 * ```ts
 * const model = modelFromEnvironment() ?? demoModel
 * ```
 */
export function modelFromEnvironment(
  env: ModelEnvironment = process.env,
  options: AiSdkModelOptions = {},
): Model | undefined {
  const spec = env.WARDRIK_MODEL?.trim();
  if (!spec) return undefined;
  try {
    return modelFromString(spec, env, options);
  } catch (thrown) {
    if (ModelSpecError.isInstance(thrown)) throw new ModelSpecError(`WARDRIK_MODEL: ${thrown.message}`);
    throw thrown;
  }
}

/** The AI SDK language model a model string names (see {@link modelFromString}). */
export function languageModelFromString(spec: string, env: ModelEnvironment = process.env): AiSdkLanguageModel {
  const colon = spec.indexOf(':');
  if (colon <= 0) throw new ModelSpecError(`"${spec}" is not a model string: use ${FORMS}`);
  const provider = spec.slice(0, colon).trim();
  const rest = spec.slice(colon + 1).trim();
  if (provider === 'openai') {
    const modelId = required(rest, spec);
    const { createOpenAI } = loadNow<typeof OpenAI>('@ai-sdk/openai', `the model "${spec}"`);
    const openai = createOpenAI({ apiKey: key(env, 'OPENAI_API_KEY', spec), ...baseURL(env.OPENAI_BASE_URL) });
    return openai.chat(modelId);
  }
  if (provider === 'anthropic') {
    const modelId = required(rest, spec);
    const { createAnthropic } = loadNow<typeof Anthropic>('@ai-sdk/anthropic', `the model "${spec}"`);
    const anthropic = createAnthropic({
      apiKey: key(env, 'ANTHROPIC_API_KEY', spec),
      ...baseURL(env.ANTHROPIC_BASE_URL),
    });
    return anthropic(modelId);
  }
  if (provider === 'openai-compatible') {
    const at = rest.search(/@https?:\/\//);
    const modelId = required(at === -1 ? rest : rest.slice(0, at), spec);
    const url = at === -1 ? env.WARDRIK_BASE_URL?.trim() : rest.slice(at + 1);
    if (!url) {
      throw new ModelSpecError(
        `"${spec}" names no server: write "openai-compatible:${modelId}@BASE_URL" or set WARDRIK_BASE_URL`,
      );
    }
    const apiKey = env.WARDRIK_API_KEY?.trim();
    const { createOpenAICompatible } = loadNow<typeof OpenAICompatible>(
      '@ai-sdk/openai-compatible',
      `the model "${spec}"`,
    );
    const compatible = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: url,
      includeUsage: true,
      ...(apiKey ? { apiKey } : {}),
    });
    return compatible.chatModel(modelId);
  }
  throw new ModelSpecError(`unknown model provider "${provider}" in "${spec}": use ${FORMS}`);
}

function required(modelId: string, spec: string): string {
  if (modelId === '') throw new ModelSpecError(`"${spec}" names no model: use ${FORMS}`);
  return modelId;
}

function key(env: ModelEnvironment, name: string, spec: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ModelSpecError(`"${spec}" needs an API key: set ${name}`);
  return value;
}

function baseURL(value: string | undefined): { baseURL?: string } {
  const trimmed = value?.trim();
  return trimmed ? { baseURL: trimmed } : {};
}
