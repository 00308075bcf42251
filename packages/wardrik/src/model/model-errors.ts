import type { AISDKError, APICallError } from 'ai';
import { ModelError } from '../errors.js';
import { aiSdk } from './ai-sdk.js';

/** A retryable model failure that says how long the provider asked us to wait. */
export type RetryableModelError = ModelError & { readonly retryAfterMs?: number };

/** Longest `Retry-After` honoured by default; a longer one is cut to this. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/**
 * The AI SDK's setup errors, by name: a missing key or setting, an unknown model or provider, an
 * unsupported model version or feature, a prompt it cannot send. Trying again gives the same
 * error, so they fail the run at once.
 *
 * Matched by `name` (on an error that carries the AI SDK's marker), not by each class's
 * `isInstance`: a class that declares no marker of its own, such as `UnsupportedModelVersionError`,
 * inherits `AISDKError.isInstance`, which checks only the marker every AI SDK error carries, so it
 * matches them all (a malformed chunk included).
 */
const SETUP_ERRORS: ReadonlySet<string> = new Set([
  'AI_InvalidArgumentError',
  'AI_InvalidPromptError',
  'AI_InvalidMessageRoleError',
  'AI_InvalidDataContentError',
  'AI_MessageConversionError',
  'AI_MissingToolResultsError',
  'AI_LoadAPIKeyError',
  'AI_LoadSettingError',
  'AI_NoSuchModelError',
  'AI_NoSuchProviderError',
  'AI_UnsupportedFunctionalityError',
  'AI_UnsupportedModelVersionError',
]);

/** Errors in what a provider sent, by name: worth another try. */
const INVALID_ANSWER_ERRORS: ReadonlySet<string> = new Set([
  'AI_InvalidResponseDataError',
  'AI_EmptyResponseBodyError',
]);

/** How much of a malformed chunk a message quotes. */
const QUOTE_LIMIT = 200;

/**
 * Turns whatever an AI SDK model threw into a `ModelError`, classified by the actual error:
 * - retryable: 408, 409, 429 and 5xx answers (with `retryAfterMs` when the provider sent
 *   `retry-after-ms` or `Retry-After`), network errors before or during the answer (a connection
 *   cut mid-answer is reported as such), a malformed chunk, an invalid or empty answer, and
 *   anything not known to be permanent;
 * - permanent: other 4xx answers (a bad key, no access, an unknown model, a malformed request)
 *   and the AI SDK's setup errors (a missing key or setting, an unknown model, an unsupported
 *   model version or feature, a prompt it cannot send), which fail the run at once.
 *
 * @example
 * ```ts
 * try { await stream() } catch (thrown) { throw toModelError(thrown, 'openai:gpt-4o') }
 * ```
 */
export function toModelError(
  thrown: unknown,
  modelLabel: string,
  maxRetryAfterMs = DEFAULT_MAX_RETRY_AFTER_MS,
): RetryableModelError {
  const { APICallError } = aiSdk();
  if (APICallError.isInstance(thrown)) return fromApiCallError(thrown, modelLabel, maxRetryAfterMs);
  if (isAiSdkError(thrown, SETUP_ERRORS)) {
    return new ModelError(`${modelLabel}: ${describe(thrown)}`, { retryable: false, cause: thrown });
  }
  return new ModelError(`${modelLabel}: ${describeRetryable(thrown)}`, { retryable: true, cause: thrown });
}

/** True when `thrown` is an AI SDK error (it carries the SDK's marker) whose name is in `names`. */
function isAiSdkError(thrown: unknown, names: ReadonlySet<string>): thrown is AISDKError {
  return aiSdk().AISDKError.isInstance(thrown) && names.has(thrown.name);
}

function describeRetryable(thrown: unknown): string {
  const { JSONParseError, TypeValidationError } = aiSdk();
  if (JSONParseError.isInstance(thrown)) {
    return `the provider sent a malformed chunk, not JSON (${describe(thrown.cause)}): ${quote(thrown.text)}`;
  }
  if (TypeValidationError.isInstance(thrown)) {
    return `the provider sent a malformed chunk, of an unexpected shape: ${quote(JSON.stringify(thrown.value))}`;
  }
  if (isAiSdkError(thrown, INVALID_ANSWER_ERRORS)) return `the provider sent an invalid answer: ${describe(thrown)}`;
  return describe(thrown);
}

function quote(text: string | undefined): string {
  const whole = text ?? '';
  return whole.length > QUOTE_LIMIT ? `${whole.slice(0, QUOTE_LIMIT)}…` : whole;
}

function fromApiCallError(error: APICallError, modelLabel: string, maxRetryAfterMs: number): RetryableModelError {
  const status = error.statusCode;
  if (status === undefined) {
    return new ModelError(`${modelLabel}: could not reach ${error.url}: ${error.message}`, {
      retryable: error.isRetryable,
      cause: error,
    });
  }
  if (status < 300) return fromBrokenAnswer(error, modelLabel);
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  const message = `${modelLabel}: HTTP ${status} (${statusMeaning(status)}) from ${error.url}: ${error.message}`;
  const modelError: RetryableModelError = new ModelError(message, { retryable, cause: error });
  const retryAfterMs = retryable ? retryAfterFrom(error.responseHeaders, maxRetryAfterMs) : undefined;
  if (retryAfterMs !== undefined) Object.assign(modelError, { retryAfterMs });
  return modelError;
}

/**
 * The provider accepted the request (a 2xx status) but reading its answer failed: the AI SDK
 * reports this as an `APICallError` carrying the 2xx status, "Failed to process successful
 * response", caused by the socket error. Retryable: a model step can be made again.
 */
function fromBrokenAnswer(error: APICallError, modelLabel: string): ModelError {
  const network = networkError(error.cause);
  const message = network
    ? `the connection was cut mid-answer: ${network.code} (${network.message}), from ${error.url}`
    : `the answer from ${error.url} could not be read: ${describe(innermost(error))}`;
  return new ModelError(`${modelLabel}: ${message}`, { retryable: true, cause: error });
}

/** The first error in a cause chain that has a string `code` (`ECONNRESET`, `UND_ERR_SOCKET`, …). */
function networkError(thrown: unknown): (Error & { code: string }) | undefined {
  const seen = new Set<unknown>();
  for (let current = thrown; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return current as Error & { code: string };
  }
  return undefined;
}

/** The deepest cause of an error (what really went wrong). */
function innermost(thrown: unknown): unknown {
  const seen = new Set<unknown>();
  let current = thrown;
  while (current instanceof Error && current.cause !== undefined && !seen.has(current)) {
    seen.add(current);
    current = current.cause;
  }
  return current;
}

function statusMeaning(status: number): string {
  if (status === 401) return 'the API key was refused';
  if (status === 403) return 'the API key may not use this model';
  if (status === 404) return 'unknown model or endpoint';
  if (status === 429) return 'rate limited';
  if (status >= 500) return 'the provider failed';
  return 'the request was refused';
}

/**
 * The wait a provider asked for, in ms: `retry-after-ms`, else `Retry-After` as seconds or as an
 * HTTP date; cut to `maxMs`. Undefined when there is no usable header.
 */
export function retryAfterFrom(
  headers: Readonly<Record<string, string>> | undefined,
  maxMs = DEFAULT_MAX_RETRY_AFTER_MS,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim()]));
  const ms = lower.get('retry-after-ms');
  let wait = ms ? Number(ms) : Number.NaN;
  const after = lower.get('retry-after');
  if (Number.isNaN(wait) && after) {
    wait = /^\d+(\.\d+)?$/.test(after) ? Number(after) * 1000 : Date.parse(after) - now;
  }
  if (!Number.isFinite(wait)) return undefined;
  return Math.min(Math.max(0, Math.ceil(wait)), maxMs);
}

function describe(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (typeof thrown === 'object' && thrown !== null) {
    const inner =
      (thrown as { message?: unknown; error?: { message?: unknown } }).message ??
      (thrown as { error?: { message?: unknown } }).error?.message;
    if (typeof inner === 'string') return inner;
    return JSON.stringify(thrown);
  }
  return String(thrown);
}
