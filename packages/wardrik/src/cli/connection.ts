import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from './cli-error.js';
import { type Command, type Parsed, stringOption } from './command.js';

/** Where the CLI looks for the admin token `wardrik serve` saves, relative to the current directory. */
export const ADMIN_TOKEN_FILE = join('.wardrik', 'admin-token');

/** Where `wardrik serve` saves the URL it listens on, relative to the current directory. */
export const SERVER_URL_FILE = join('.wardrik', 'server-url');

/** Where the CLI looks for the server when neither --url, WARDRIK_URL nor a saved server URL says. */
export const DEFAULT_URL = 'http://127.0.0.1:4000';

/** The server the CLI talks to and the token it uses. */
export interface Connection {
  /** Without a trailing slash. */
  readonly url: string;
  readonly token: string | undefined;
  /** Where the token came from, for messages: `--token`, `WARDRIK_TOKEN`, a file, or none. */
  readonly tokenSource: string;
}

/**
 * `--url`, else `WARDRIK_URL`, else the URL `wardrik serve` saved in `./.wardrik/server-url` (so a
 * config's `server.port` is followed), else http://127.0.0.1:4000; `--token`, else
 * `WARDRIK_TOKEN`, else the admin token in `./.wardrik/admin-token` if there is one.
 */
export function resolveConnection(command: Pick<Command, 'usage'>, parsed: Parsed, cwd = process.cwd()): Connection {
  const rawUrl = stringOption(parsed, 'url') ?? process.env['WARDRIK_URL'] ?? savedUrl(cwd) ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw usageError(`--url expects a URL such as http://127.0.0.1:4000, got ${JSON.stringify(rawUrl)}`, command.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`--url must be http or https, got ${JSON.stringify(rawUrl)}`, command.usage);
  }
  const base = url.href.replace(/\/+$/, '');
  const flagToken = stringOption(parsed, 'token');
  if (flagToken !== undefined) return { url: base, token: flagToken, tokenSource: '--token' };
  const envToken = process.env['WARDRIK_TOKEN'];
  if (envToken) return { url: base, token: envToken, tokenSource: 'WARDRIK_TOKEN' };
  const file = join(cwd, ADMIN_TOKEN_FILE);
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token) return { url: base, token, tokenSource: file };
  }
  return { url: base, token: undefined, tokenSource: 'none' };
}

/** The URL `wardrik serve` saved in this folder, if it did. */
function savedUrl(cwd: string): string | undefined {
  const file = join(cwd, SERVER_URL_FILE);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').trim() || undefined;
}
