import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { existingConfigFiles } from '../../config/load-config.js';
import { CliError, EXIT } from '../cli-error.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals } from '../command.js';
import { EXAMPLE_CONFIG } from '../example-config.js';
import { cliName, print, printJson } from '../output.js';

/** `wardrik init [--force]`: writes an example config in the current directory. */
export const init: Command = {
  name: 'init',
  summary: 'write an example wardrik.config.ts here',
  usage: `Usage: wardrik init [--force]

Writes an example config in the current directory: a support agent on a scripted model
(offline, no model key) with a read-only tool and a refund that waits for a person. Adds
.wardrik/ (the SQLite file and the admin token) to .gitignore.

The config is TypeScript (no compiler needed) and an ES module: wardrik.config.ts in a
package whose package.json says "type": "module", else wardrik.config.mts (a .ts file is
CommonJS there to TypeScript and editors; Wardrik loads either as an ES module).

Options:
  --force        overwrite an existing wardrik.config.ts or .mts
${COMMON_HELP}`,
  options: { ...commonOptions, force: { type: 'boolean' } },
  async run(parsed) {
    positionals(init, parsed, []);
    const cwd = process.cwd();
    const file = configFileToWrite(cwd, flag(parsed, 'force'));
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

/**
 * The config file `init` writes in `cwd`: the existing TypeScript config when `force` is given;
 * else wardrik.config.ts in an ES-module package, wardrik.config.mts in any other. Refuses to
 * overwrite without `force`, and to leave two configs side by side.
 */
function configFileToWrite(cwd: string, force: boolean): string {
  const existing = existingConfigFiles(cwd);
  const [first] = existing;
  if (first === undefined) return join(cwd, isModulePackage(cwd) ? 'wardrik.config.ts' : 'wardrik.config.mts');
  if (!force) throw new CliError(EXIT.failed, `${first} exists already; pass --force to overwrite it`);
  if (existing.length > 1 || !/\.m?ts$/.test(first)) {
    const names = existing.map((path) => basename(path)).join(' and ');
    throw new CliError(
      EXIT.failed,
      `${names} ${existing.length > 1 ? 'exist' : 'exists'} in ${cwd}; init writes one TypeScript config: remove ${existing.length > 1 ? 'them' : 'it'} first`,
    );
  }
  return first;
}

/** Whether the package `directory` belongs to (its nearest package.json) says `"type": "module"`. */
function isModulePackage(directory: string): boolean {
  for (let current = directory; ; current = dirname(current)) {
    const file = join(current, 'package.json');
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type === 'module';
      } catch (cause) {
        throw new CliError(EXIT.failed, `${file} is not valid JSON: ${(cause as Error).message}`);
      }
    }
    if (dirname(current) === current) return false;
  }
}

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
