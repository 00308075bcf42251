import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** The shortest metrics token accepted. */
export const METRICS_TOKEN_MIN_LENGTH = 16;

/**
 * The tokens a metrics token file holds: its lines, trimmed, each of at least 16 characters
 * (shorter lines and blank ones are not tokens). Throws what reading the file throws.
 *
 * @example
 * ```ts
 * readMetricsTokens('/run/secrets/metrics-token') // ['3f9c…', '81be…'] while a rotation is under way
 * ```
 */
export function readMetricsTokens(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= METRICS_TOKEN_MIN_LENGTH);
}

/**
 * Which bearer tokens `GET /metrics` accepts: one fixed token, or the lines of a file, read again
 * whenever the file changes (its size, modification time or inode), so that a token is rotated
 * without a restart: write the new token beside the old, move the scrapers to it, remove the old.
 * A file that can no longer be read accepts nothing until it can. Compared in constant time.
 *
 * @example
 * ```ts
 * const tokens = new MetricsTokens({ tokenFile: '/run/secrets/metrics-token' })
 * tokens.accepts(bearer) // true for any token in the file now
 * ```
 */
export class MetricsTokens {
  readonly #file: string | undefined;
  #digests: Buffer[] = [];
  #version = '';

  constructor(source: { readonly token: string } | { readonly tokenFile: string }) {
    if ('token' in source) {
      if (source.token.length < METRICS_TOKEN_MIN_LENGTH) {
        throw new RangeError(`the metrics token must have at least ${METRICS_TOKEN_MIN_LENGTH} characters`);
      }
      this.#digests = [digest(source.token)];
    } else {
      this.#file = source.tokenFile;
    }
  }

  /** Whether `given` is an accepted token now. */
  accepts(given: string): boolean {
    const candidate = digest(given);
    let accepted = false;
    // Every digest is compared, whichever matches: the time does not say which token was used.
    for (const expected of this.#current()) if (timingSafeEqual(candidate, expected)) accepted = true;
    return accepted;
  }

  #current(): Buffer[] {
    if (this.#file === undefined) return this.#digests;
    try {
      const stat = statSync(this.#file);
      const version = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      if (version !== this.#version) {
        this.#digests = readMetricsTokens(this.#file).map(digest);
        this.#version = version;
      }
    } catch {
      this.#digests = [];
      this.#version = '';
    }
    return this.#digests;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
