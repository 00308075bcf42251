import { parseArgs } from 'node:util';
import { workerEndpoint } from './endpoint.js';

/** How to run `wardrik-worker`. */
export const BRIDGE_USAGE = `Usage: wardrik-worker --url URL --token TOKEN [--max-payload-bytes N] -- COMMAND [ARGS...]

Starts COMMAND as a stdio MCP server and offers its tools to Wardrik as a worker.

  --url URL               Wardrik's base URL, e.g. https://wardrik.example.com (or WARDRIK_URL)
  --token TOKEN           a bearer token with the worker role (or WARDRIK_TOKEN, which keeps it
                          out of the process list; it is not passed on to COMMAND)
  --max-payload-bytes N   the largest WebSocket frame either side may send (default 4194304)
  -h, --help              show this help

The connection to Wardrik is kept with reconnection and backoff; COMMAND is started anew for each
connection. When COMMAND exits, wardrik-worker exits with its code.`;

/** What the command line asks for. */
export type BridgeArguments =
  | { readonly type: 'help' }
  | {
      readonly type: 'run';
      readonly url: string;
      readonly token: string;
      readonly command: string;
      readonly args: readonly string[];
      readonly maxPayloadBytes?: number;
    };

/** A command line that cannot be run; the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Reads `wardrik-worker`'s command line (without `node` and the script). Everything after the
 * first `--` is the command to run. `WARDRIK_URL` and `WARDRIK_TOKEN` stand in for missing options.
 *
 * @example
 * ```ts
 * parseBridgeArguments(['--url', 'http://127.0.0.1:8080', '--', 'node', 'server.mjs'], { WARDRIK_TOKEN: 't' })
 * // { type: 'run', url: 'http://127.0.0.1:8080', token: 't', command: 'node', args: ['server.mjs'] }
 * ```
 */
export function parseBridgeArguments(argv: readonly string[], env: NodeJS.ProcessEnv): BridgeArguments {
  const separator = argv.indexOf('--');
  const options = separator === -1 ? argv : argv.slice(0, separator);
  const commandLine = separator === -1 ? [] : argv.slice(separator + 1);
  let values: { url?: string; token?: string; 'max-payload-bytes'?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...options],
      strict: true,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        'max-payload-bytes': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { type: 'help' };
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected ${JSON.stringify(positionals[0])}: put the command to run after --, e.g. wardrik-worker --url URL -- ${positionals.join(' ')}`,
    );
  }
  const url = values.url ?? env['WARDRIK_URL'];
  const token = values.token ?? env['WARDRIK_TOKEN'];
  const [command, ...args] = commandLine;
  if (!url) throw new UsageError('missing --url (or WARDRIK_URL): the base URL of Wardrik');
  try {
    workerEndpoint(url);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!token) throw new UsageError('missing --token (or WARDRIK_TOKEN): a bearer token with the worker role');
  if (!command) throw new UsageError('missing the command to run after --, e.g. -- node my-mcp-server.js');
  const size = values['max-payload-bytes'];
  let maxPayloadBytes: number | undefined;
  if (size !== undefined) {
    maxPayloadBytes = Number(size);
    if (!Number.isSafeInteger(maxPayloadBytes) || maxPayloadBytes < 1024) {
      throw new UsageError(`--max-payload-bytes must be a whole number of at least 1024, got ${JSON.stringify(size)}`);
    }
  }
  return { type: 'run', url, token, command, args, ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }) };
}
