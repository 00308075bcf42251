import {
  APICallError,
  InvalidArgumentError,
  InvalidPromptError,
  LoadAPIKeyError,
  LoadSettingError,
  MissingToolResultsError,
  NoSuchModelError,
  UnsupportedFunctionalityError,
  UnsupportedModelVersionError,
} from 'ai';
import { ModelError } from '../errors.js';

/** A retryable model failure that says how long the provider asked us to wait. */
export type RetryableModelError = ModelError & { readonly retryAfterMs?: number };

/** Longest `Retry-After` honoured by default; a longer one is cut to this. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

const permanentErrors = [
  InvalidArgumentError,
  InvalidPromptError,
  LoadAPIKeyError,
  LoadSettingError,
  MissingToolResultsError,
  NoSuchModelError,
  UnsupportedFunctionalityError,
  UnsupportedModelVersionError,
] as const;

/**
 * Turns whatever an AI SDK model threw into a `ModelError`: 408, 409, 429, 5xx and network errors
 * are retryable (with `retryAfterMs` when the provider sent `retry-after-ms` or `Retry-After`);
 * other 4xx answers (a bad key, no access, an unknown model, a malformed request) and the SDK's
 * own setup errors are not, and fail the run at once.
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
  if (APICallError.isInstance(thrown)) return fromApiCallError(thrown, modelLabel, maxRetryAfterMs);
  const message = describe(thrown);
  if (permanentErrors.some((family) => family.isInstance(thrown))) {
    return new ModelError(`${modelLabel}: ${message}`, { retryable: false, cause: thrown });
  }
  // Network failures, a stream cut short, a malformed chunk: worth another try.
  return new ModelError(`${modelLabel}: ${message}`, { retryable: true, cause: thrown });
}

function fromApiCallError(error: APICallError, modelLabel: string, maxRetryAfterMs: number): RetryableModelError {
  const status = error.statusCode;
  if (status === undefined) {
    return new ModelError(`${modelLabel}: could not reach ${error.url}: ${error.message}`, {
      retryable: error.isRetryable,
      cause: error,
    });
  }
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  const message = `${modelLabel}: HTTP ${status} (${statusMeaning(status)}) from ${error.url}: ${error.message}`;
  const modelError: RetryableModelError = new ModelError(message, { retryable, cause: error });
  const retryAfterMs = retryable ? retryAfterFrom(error.responseHeaders, maxRetryAfterMs) : undefined;
  if (retryAfterMs !== undefined) Object.assign(modelError, { retryAfterMs });
  return modelError;
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
