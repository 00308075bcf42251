import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, EXIT } from '../cli-error.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals } from '../command.js';
import { EXAMPLE_CONFIG } from '../example-config.js';
import { cliName, print, printJson } from '../output.js';

const FILE = 'wardrik.config.ts';

/** `wardrik init [--force]`: writes an example config in the current directory. */
export const init: Command = {
  name: 'init',
  summary: 'write an example wardrik.config.ts here',
  usage: `Usage: wardrik init [--force]

Writes an example ${FILE} in the current directory: a support agent on a scripted model
(offline, no model key) with a read-only tool and a refund that waits for a person. Adds
.wardrik/ (the SQLite file and the admin token) to .gitignore.

Options:
  --force        overwrite an existing ${FILE}
${COMMON_HELP}`,
  options: { ...commonOptions, force: { type: 'boolean' } },
  async run(parsed) {
    positionals(init, parsed, []);
    const cwd = process.cwd();
    const file = join(cwd, FILE);
    if (existsSync(file) && !flag(parsed, 'force')) {
      throw new CliError(EXIT.failed, `${file} exists already; pass --force to overwrite it`);
    }
    writeFileSync(file, EXAMPLE_CONFIG);
    const gitignore = ignoreStateDirectory(cwd);
    if (flag(parsed, 'json')) {
      printJson({ config: file, gitignore });
      return EXIT.ok;
    }
    print(`Wrote ${file}: a support agent on a scripted offline model (no model key needed).`);
    if (gitignore.changed) print(`Added .wardrik/ to ${gitignore.file}: it holds the SQLite file and the admin token.`);
    else print(`.wardrik/ is in ${gitignore.file} already: it holds the SQLite file and the admin token.`);
    print();
    print('Next:');
    print(`  ${cliName()} serve                                 # start the server (prints a token)`);
    print(`  ${cliName()} run support "Please refund order A1"  # in another terminal, here`);
    return EXIT.ok;
  },
};

/** Makes sure the project's .gitignore lists `.wardrik/`. */
function ignoreStateDirectory(cwd: string): { file: string; changed: boolean } {
  const file = join(cwd, '.gitignore');
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const listed = before.split(/\r?\n/).some((line) => /^\/?\.wardrik\/?$/.test(line.trim()));
  if (listed) return { file, changed: false };
  const separator = before === '' || before.endsWith('\n') ? '' : '\n';
  writeFileSync(file, `${before}${separator}.wardrik/\n`);
  return { file, changed: true };
}
