/** What the CLI's exit codes mean. */
export const EXIT = {
  /** Done; for `run` and `answer`, the run completed. */
  ok: 0,
  /** Something failed: the run failed or was cancelled, the server refused, a config is broken. */
  failed: 1,
  /** The command line is wrong: unknown command or option, missing argument. */
  usage: 2,
  /** The run is parked, waiting for a person. */
  parked: 3,
  /** The server could not be reached. */
  unreachable: 4,
} as const;

/**
 * An error the CLI reports as one clear message (never a stack trace), exiting with `exitCode`.
 * Usage errors carry the usage text of their command.
 *
 * @example
 * ```ts
 * throw new CliError(EXIT.usage, 'expected AGENT and MESSAGE', { usage: run.usage })
 * ```
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly usage: string | undefined;

  constructor(exitCode: number, message: string, options: { usage?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.usage = options.usage;
  }
}

/** A usage error (exit 2). */
export function usageError(message: string, usage?: string): CliError {
  return new CliError(EXIT.usage, message, usage === undefined ? {} : { usage });
}
