import { DEFAULT_URL } from './connection.js';
import { cliName } from './output.js';

/** What a printed command must name to work when pasted: the server, and the config if one was named. */
export interface HintTarget {
  /** The server's URL; named with `--url` unless it is the default address. */
  readonly url?: string;
  /** A config file named with `--config`; named again in the hint. */
  readonly config?: string;
}

/**
 * A command for people to copy: `wardrik answer park_1 approve`, plus `--url URL` when the server
 * is not at the default address (http://127.0.0.1:4000) and `--config FILE` when one was named,
 * so that it works when pasted. `comment` follows it after three spaces.
 *
 * @example
 * ```ts
 * commandHint('answer park_1 approve', { url: 'http://127.0.0.1:4100' })
 * // 'wardrik answer park_1 approve --url http://127.0.0.1:4100'
 * ```
 */
export function commandHint(words: string, target: HintTarget = {}, comment?: string): string {
  const url = target.url !== undefined && target.url !== DEFAULT_URL ? ` --url ${shellWord(target.url)}` : '';
  const config = target.config === undefined ? '' : ` --config ${shellWord(target.config)}`;
  return `${cliName()} ${words}${url}${config}${comment === undefined ? '' : `   ${comment}`}`;
}

/** A word as a POSIX shell reads it: unchanged when safe, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
