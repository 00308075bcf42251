import type { LanguageModel } from 'ai';
import { aiSdk } from './ai-sdk.js';

/** An AI SDK language model object, as providers such as `@ai-sdk/openai` make (specification v4, v3 or v2). */
export type AiSdkLanguageModel = Exclude<LanguageModel, string>;

/**
 * The language model specifications Wardrik's AI SDK (7) takes, newest first, with the provider
 * packages that implement each: v4 from AI SDK 7 providers (`@ai-sdk/openai` 4.x), v3 from AI SDK 6
 * providers (3.x), v2 from AI SDK 5 providers (2.x).
 */
export const SUPPORTED_SPECIFICATION_VERSIONS = ['v4', 'v3', 'v2'] as const;

const SUPPORTED =
  'Wardrik runs on AI SDK 7, which takes provider models of specification v4 (AI SDK 7 providers, e.g. @ai-sdk/openai 4.x), ' +
  'v3 (AI SDK 6 providers, @ai-sdk/openai 3.x) or v2 (AI SDK 5 providers, @ai-sdk/openai 2.x)';

/**
 * Checks that `model` is an AI SDK language model object of a specification Wardrik can use, and
 * returns it as a specification v4 model, converted once here (the AI SDK would otherwise convert
 * an older one, and warn about a v2 one, on every call). Throws a `TypeError` naming Wardrik, what
 * was given and the fix: a string (use `modelFromString`), something that is not a model, or a
 * model of another specification (v1 from an AI SDK 4 provider: update the provider package; a
 * newer one: install the provider version made for AI SDK 7).
 *
 * @example
 * ```ts
 * import { createOpenAI } from '@ai-sdk/openai'
 *
 * const model = checkedLanguageModel(createOpenAI({ apiKey })('gpt-4.1-mini')) // a v4 model
 * checkedLanguageModel({ specificationVersion: 'v1', provider: 'ollama.chat', modelId: 'llama3' }) // throws, naming the fix
 * ```
 */
export function checkedLanguageModel(model: unknown): AiSdkLanguageModel {
  if (typeof model === 'string') {
    throw new TypeError(
      `wardrik: aiSdkModel takes an AI SDK language model object, such as openai('gpt-4.1-mini') from @ai-sdk/openai, ` +
        `not a string ("${model}"): for a model string, use modelFromString('${model}')`,
    );
  }
  if (typeof model !== 'object' || model === null || typeof (model as { doStream?: unknown }).doStream !== 'function') {
    throw new TypeError(
      `wardrik: aiSdkModel takes an AI SDK language model object, such as openai('gpt-4.1-mini') from @ai-sdk/openai; ` +
        `got ${describe(model)}`,
    );
  }
  const { specificationVersion, provider, modelId } = model as {
    specificationVersion?: unknown;
    provider?: unknown;
    modelId?: unknown;
  };
  if (!(SUPPORTED_SPECIFICATION_VERSIONS as readonly unknown[]).includes(specificationVersion)) {
    const which = `provider "${String(provider)}", model "${String(modelId)}"`;
    const version = typeof specificationVersion === 'string' ? `"${specificationVersion}"` : 'no';
    throw new TypeError(
      `wardrik: the model given to aiSdkModel (${which}) implements AI SDK specification ${version}, which Wardrik cannot use: ` +
        `${SUPPORTED}. ${fix(specificationVersion, provider)}`,
    );
  }
  return aiSdk().wrapLanguageModel({ model: model as AiSdkLanguageModel, middleware: [] });
}

function fix(version: unknown, provider: unknown): string {
  const newer = typeof version === 'string' && /^v\d+$/.test(version) && Number(version.slice(1)) > 4;
  if (newer) {
    return (
      'Install the version of the provider package made for AI SDK 7, the one that depends on @ai-sdk/provider 4.x ' +
      '(e.g. @ai-sdk/openai 4.x, @ai-sdk/openai-compatible 3.x), or a Wardrik release built on a newer AI SDK.'
    );
  }
  const name = typeof provider === 'string' ? provider.split('.')[0] : undefined;
  const example = name ? ` (for one of the AI SDK's own providers: npm install @ai-sdk/${name}@latest)` : '';
  return `Update the provider package that made the model to a version made for AI SDK 5, 6 or 7${example}.`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') {
    const keys = Object.keys(value).slice(0, 5);
    return `an object without doStream (keys: ${keys.length === 0 ? 'none' : keys.join(', ')})`;
  }
  return `a ${typeof value}`;
}
