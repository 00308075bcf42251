import { CliError, EXIT, usageError } from './cli-error.js';
import type { Command } from './command.js';
import { parseCommand } from './command.js';
import { agents } from './commands/agents.js';
import { answer } from './commands/answer.js';
import { artifacts } from './commands/artifacts.js';
import { backup } from './commands/backup.js';
import { cancel } from './commands/cancel.js';
import { chat } from './commands/chat.js';
import { follow } from './commands/follow.js';
import { init } from './commands/init.js';
import { listings } from './commands/listings.js';
import { memory } from './commands/memory.js';
import { migrate } from './commands/migrate.js';
import { parks } from './commands/parks.js';
import { release } from './commands/release.js';
import { run } from './commands/run.js';
import { runs } from './commands/runs.js';
import { serve } from './commands/serve.js';
import { show } from './commands/show.js';
import { tokens } from './commands/tokens.js';
import { workers } from './commands/workers.js';
import { print, printError, printJson } from './output.js';
import { problemOf } from './problem.js';
import { wardrikVersion } from './version.js';

/** Every command, in the order `wardrik --help` lists them. */
export const COMMANDS: readonly Command[] = [
  init,
  serve,
  run,
  chat,
  follow,
  show,
  runs,
  parks,
  answer,
  cancel,
  release,
  agents,
  workers,
  listings,
  artifacts,
  memory,
  tokens,
  migrate,
  backup,
];

const USAGE = `Usage: wardrik COMMAND [options]
       wardrik --version

Wardrik runs agents that take real actions, durably; calls that need a person wait for one.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(9)} ${command.summary}`).join('\n')}

Run \`wardrik COMMAND --help\` for a command's options. Every command takes --json and --help;
those that talk to the server take --url (WARDRIK_URL) and --token (WARDRIK_TOKEN).
-v, --version prints the version of wardrik.

Exit codes: 0 ok (the run completed), 1 failed, 2 usage error, 3 the run waits for a person,
4 the server can't be reached.`;

/**
 * Runs the `wardrik` command line and resolves to its exit code. Errors are printed as one clear
 * message on stderr, never a stack trace (set WARDRIK_DEBUG=1 to see one); with `--json`, stdout
 * gets the error as a JSON problem too (and nothing else).
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(['runs', '--status', 'parked'])
 * ```
 */
export async function runCli(args: readonly string[]): Promise<number> {
  const asJson = wantsJson(args);
  const [name, ...rest] = args;
  if (name === '--version' || name === '-v') return version(asJson);
  if (name === undefined) return report(undefined, usageError('missing COMMAND'), asJson);
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = COMMANDS.find((each) => each.name === topic);
    if (topic !== undefined && !command) return unknownCommand(topic, asJson);
    return help(command ? command.usage : USAGE, asJson);
  }
  if (name.startsWith('-')) {
    return report(undefined, usageError(`expected a command before any option, got ${JSON.stringify(name)}`), asJson);
  }
  const command = COMMANDS.find((each) => each.name === name);
  if (!command) return unknownCommand(name, asJson);
  try {
    const parsed = parseCommand(command, rest);
    if (parsed.values['help'] === true) return help(command.usage, asJson);
    return await command.run(parsed);
  } catch (thrown) {
    return report(command, thrown, asJson);
  }
}

/** Whether `--json` is among the options (before a `--` that ends them). */
function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

function version(asJson: boolean): number {
  const { name, version } = wardrikVersion();
  if (asJson) printJson({ name, version });
  else print(`${name} ${version}`);
  return EXIT.ok;
}

function help(usage: string, asJson: boolean): number {
  if (asJson) printJson({ usage });
  else print(usage);
  return EXIT.ok;
}

function unknownCommand(name: string, asJson: boolean): number {
  const error = usageError(
    `unknown command ${JSON.stringify(name)}; expected one of ${COMMANDS.map((each) => each.name).join(', ')}`,
  );
  return report(undefined, error, asJson);
}

/**
 * Reports what a command threw: one message on stderr (with the usage synopsis for a usage error);
 * with `--json`, the problem on stdout as well. Resolves to the exit code.
 */
function report(command: Command | undefined, thrown: unknown, asJson: boolean): number {
  if (process.env['WARDRIK_DEBUG']) printError(String((thrown as Error)?.stack ?? thrown));
  const problem = problemOf(thrown);
  const prefix = command ? `wardrik ${command.name}` : 'wardrik';
  const message = thrown instanceof CliError ? thrown.message : problem.detail;
  if (asJson) printJson(problem);
  printError(`${prefix}: ${message}`);
  if (!asJson && problem.exitCode === EXIT.usage) {
    const usage = thrown instanceof CliError ? thrown.usage : undefined;
    if (usage) printError(`\n${synopsis(usage)}\nRun \`wardrik ${command?.name ?? 'COMMAND'} --help\` for more.`);
    else if (!command) printError(`\n${USAGE}`);
  }
  return problem.exitCode;
}

/** The first paragraph of a usage text: its `Usage:` lines. */
function synopsis(usage: string): string {
  return usage.split(/\n\s*\n/)[0] ?? usage;
}
