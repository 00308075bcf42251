import { CliError, EXIT } from './cli-error.js';
import { ServerProblem } from './client.js';

/**
 * An error as `--json` prints it: an RFC 9457 problem with the exit code the CLI exits with. The
 * server's problems are passed on as it sent them (with `status`); the CLI's own are
 * `https://wardrik.dev/problems/usage` (exit 2), `…/unreachable` (exit 4) and `…/failed` (exit 1).
 */
export interface CliProblem {
  readonly type: string;
  readonly title: string;
  readonly status?: number;
  readonly detail: string;
  readonly errors?: readonly { readonly path: string; readonly message: string }[];
  /** The exit code of the command. */
  readonly exitCode: number;
}

const TITLES: Readonly<Record<number, readonly [code: string, title: string]>> = {
  [EXIT.usage]: ['usage', 'Usage error'],
  [EXIT.unreachable]: ['unreachable', 'Server unreachable'],
};

/**
 * The problem for what a command threw.
 *
 * @example
 * ```ts
 * problemOf(usageError('missing MESSAGE'))
 * // { type: 'https://wardrik.dev/problems/usage', title: 'Usage error', detail: 'missing MESSAGE', exitCode: 2 }
 * ```
 */
export function problemOf(thrown: unknown): CliProblem {
  if (thrown instanceof ServerProblem) {
    const { type, title, detail, ...rest } = thrown.problem as Record<string, unknown>;
    return {
      ...rest,
      type: typeof type === 'string' ? type : 'about:blank',
      title: typeof title === 'string' ? title : 'Server error',
      status: thrown.status,
      detail: typeof detail === 'string' ? detail : thrown.message,
      exitCode: thrown.exitCode,
    };
  }
  const exitCode = thrown instanceof CliError ? thrown.exitCode : EXIT.failed;
  const [code, title] = TITLES[exitCode] ?? ['failed', 'Failed'];
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  return { type: `https://wardrik.dev/problems/${code}`, title, detail, exitCode };
}
