import { CliError, EXIT } from './cli-error.js';
import type { Command } from './command.js';
import { parseCommand } from './command.js';
import { answer } from './commands/answer.js';
import { init } from './commands/init.js';
import { parks } from './commands/parks.js';
import { release } from './commands/release.js';
import { run } from './commands/run.js';
import { runs } from './commands/runs.js';
import { serve } from './commands/serve.js';
import { tokens } from './commands/tokens.js';
import { workers } from './commands/workers.js';
import { print, printError } from './output.js';

/** Every command, in the order `wardrik --help` lists them. */
export const COMMANDS: readonly Command[] = [init, serve, run, runs, parks, answer, release, tokens, workers];

const USAGE = `Usage: wardrik COMMAND [options]

Wardrik runs agents that take real actions, durably; calls that need a person wait for one.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(8)} ${command.summary}`).join('\n')}

Run \`wardrik COMMAND --help\` for a command's options. Every command takes --json and --help;
those that talk to the server take --url (WARDRIK_URL) and --token (WARDRIK_TOKEN).

Exit codes: 0 ok (the run completed), 1 failed, 2 usage error, 3 the run waits for a person,
4 the server can't be reached.`;

/**
 * Runs the `wardrik` command line and resolves to its exit code. Errors are printed as one clear
 * message on stderr, never a stack trace (set WARDRIK_DEBUG=1 to see one).
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(['runs', '--status', 'parked'])
 * ```
 */
export async function runCli(args: readonly string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = COMMANDS.find((each) => each.name === topic);
    if (name === undefined) {
      printError(USAGE);
      return EXIT.usage;
    }
    print(command ? command.usage : USAGE);
    return EXIT.ok;
  }
  const command = COMMANDS.find((each) => each.name === name);
  if (!command) {
    printError(
      `wardrik: unknown command ${JSON.stringify(name)}; expected one of ${COMMANDS.map((each) => each.name).join(', ')}`,
    );
    printError(`\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    const parsed = parseCommand(command, rest);
    if (parsed.values['help'] === true) {
      print(command.usage);
      return EXIT.ok;
    }
    return await command.run(parsed);
  } catch (thrown) {
    return report(command, thrown);
  }
}

function report(command: Command, thrown: unknown): number {
  if (process.env['WARDRIK_DEBUG']) printError(String((thrown as Error)?.stack ?? thrown));
  if (thrown instanceof CliError) {
    printError(`wardrik ${command.name}: ${thrown.message}`);
    if (thrown.usage) printError(`\n${synopsis(thrown.usage)}\nRun \`wardrik ${command.name} --help\` for more.`);
    return thrown.exitCode;
  }
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  printError(`wardrik ${command.name}: ${message}`);
  return EXIT.failed;
}

/** The first paragraph of a usage text: its `Usage:` lines. */
function synopsis(usage: string): string {
  return usage.split(/\n\s*\n/)[0] ?? usage;
}
