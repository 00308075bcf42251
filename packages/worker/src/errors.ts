const brand = Symbol.for('wardrik.error');

/** What went wrong with a worker's connection to Wardrik. */
export type WorkerErrorCode =
  /** Wardrik answered the upgrade with 401: the token is missing, unknown or revoked. Not retried. */
  | 'worker_unauthorized'
  /** Wardrik answered the upgrade with 403: the token's principal may not serve as a worker. Not retried. */
  | 'worker_forbidden'
  /** Wardrik (or a proxy) answered the upgrade with another HTTP status. 4xx other than 408/429 are not retried. */
  | 'worker_rejected'
  /** The connection was closed with `close()` before it was ever ready (Wardrik had the worker's tools). */
  | 'worker_closed'
  /** `reconnect.maxAttempts` attempts in a row failed. */
  | 'worker_attempts_exhausted'
  /** The MCP server could not be attached to the connection (e.g. it is already connected elsewhere). */
  | 'worker_server';

/**
 * An error of a worker's connection to Wardrik. Wardrik errors carry a string `code` and are
 * checked with `WorkerError.isInstance(e)` (works across package copies), not `instanceof`. It
 * shares its brand with `@wardrik/core`'s `WardrikError`, so `WardrikError.isInstance` accepts it.
 *
 * @example
 * ```ts
 * const connection = connectWorker({ url, token, server })
 * try {
 *   await connection.ready
 * } catch (e) {
 *   if (WorkerError.isInstance(e) && e.code === 'worker_unauthorized') console.error('bad token:', e.reason)
 * }
 * ```
 */
export class WorkerError extends Error {
  readonly code: WorkerErrorCode;
  /** The HTTP status Wardrik answered the upgrade with, when it refused it. */
  readonly status: number | undefined;
  /** Wardrik's reason, from its problem body (`title: detail`), when it gave one. */
  readonly reason: string | undefined;

  constructor(
    code: WorkerErrorCode,
    message: string,
    details: { status?: number; reason?: string } = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'WorkerError';
    this.code = code;
    this.status = details.status;
    this.reason = details.reason;
    Object.defineProperty(this, brand, { value: true, enumerable: false });
  }

  /** Whether `value` is a worker error (any code). */
  static isInstance(value: unknown): value is WorkerError {
    return (
      typeof value === 'object' &&
      value !== null &&
      brand in value &&
      'code' in value &&
      typeof value.code === 'string' &&
      value.code.startsWith('worker_')
    );
  }

  /** Whether retrying cannot help: Wardrik refused the worker (401, 403, most other 4xx) or it was closed. */
  get fatal(): boolean {
    if (this.code === 'worker_rejected') {
      const status = this.status ?? 0;
      return status >= 400 && status < 500 && status !== 408 && status !== 429;
    }
    return this.code !== 'worker_attempts_exhausted';
  }
}
