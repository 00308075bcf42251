import { WardrikError } from '@wardrik/core';

/**
 * A config file that can't be used: not found, failing to load, or malformed. The message names
 * the file and what is wrong with it.
 *
 * @example
 * ```ts
 * try { await loadConfig() } catch (e) {
 *   if (ConfigError.isInstance(e)) console.error(e.message) // e.g. 'no wardrik.config.ts, … in /app'
 * }
 * ```
 */
export class ConfigError extends WardrikError {
  static readonly code = 'config';

  constructor(message: string, options?: ErrorOptions) {
    super('config', message, options);
  }

  static override isInstance(value: unknown): value is ConfigError {
    return WardrikError.isInstance(value) && value.code === 'config';
  }
}
