import { type ParseArgsConfig, parseArgs } from 'node:util';
import { usageError } from './cli-error.js';

/** The options of a command, as node:util parseArgs takes them. */
export type Options = NonNullable<ParseArgsConfig['options']>;

/** What a command gets: its options by name and its positional arguments. */
export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** One `wardrik` command. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full help text, shown by `--help` and after a usage error. */
  readonly usage: string;
  readonly options: Options;
  /** Runs the command; resolves to the exit code. */
  readonly run: (parsed: Parsed) => Promise<number>;
}

/**
 * What a command says of itself, without running: its name, summary, usage and options. A command
 * whose implementation loads on demand keeps this apart, so that the implementation can name its
 * usage without importing the command that loads it.
 */
export type CommandHelp = Omit<Command, 'run'>;

/** `--json` and `--help`, which every command takes. */
export const commonOptions = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** `--url` and `--token`, for the commands that talk to the server. */
export const serverOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
} as const satisfies Options;

/** The help lines for the common and server options. */
export const COMMON_HELP = `  --json         print machine-readable JSON on stdout, and nothing else
  -h, --help     show this help`;
export const SERVER_HELP = `  --url URL      the server (env WARDRIK_URL; default http://127.0.0.1:4000)
  --token TOKEN  a bearer token (env WARDRIK_TOKEN; default: ./.wardrik/admin-token)`;

/**
 * Parses a command's arguments strictly: an unknown option, or one missing its value, is a
 * usage error naming it.
 */
export function parseCommand(command: Command, args: readonly string[]): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: command.options,
      strict: true,
      allowPositionals: true,
    });
    return { values: values as Parsed['values'], positionals };
  } catch (thrown) {
    throw usageError(`${describeParseError(thrown)}`, command.usage);
  }
}

function describeParseError(thrown: unknown): string {
  const error = thrown as { code?: string; message?: string };
  const quoted = /'([^']+)'/.exec(error.message ?? '')?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return quoted ? `option ${quoted.split(' ')[0]} needs a value` : (error.message ?? 'invalid option value');
    default:
      return error.message ?? String(thrown);
  }
}

/** A string option's value, if given. */
export function stringOption(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Whether a boolean option was given. */
export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}

/** Exactly `names.length` positional arguments, or a usage error naming what is missing or extra. */
export function positionals(command: Pick<Command, 'usage'>, parsed: Parsed, names: readonly string[]): string[] {
  const given = parsed.positionals;
  if (given.length < names.length) {
    const missing = names.slice(given.length).join(' and ');
    throw usageError(`missing ${missing}`, command.usage);
  }
  if (given.length > names.length) {
    const extra = given
      .slice(names.length)
      .map((each) => JSON.stringify(each))
      .join(' ');
    throw usageError(`unexpected argument ${extra}`, command.usage);
  }
  return [...given];
}

/**
 * A number option, if given: `expected` says what it must be ("a positive number") and `accepts`
 * checks it; anything else is a usage error naming the option.
 */
export function numberOption(
  command: Pick<Command, 'usage'>,
  parsed: Parsed,
  name: string,
  expected: string,
  accepts: (value: number) => boolean,
): number | undefined {
  const text = stringOption(parsed, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !accepts(value)) {
    throw usageError(`--${name} expects ${expected}, got ${JSON.stringify(text)}`, command.usage);
  }
  return value;
}
