import { loadConfig } from '../../config/load-config.js';
import { describeStore } from '../../config/store-setting.js';
import { EXIT } from '../cli-error.js';
import type { Parsed } from '../command.js';
import { flag, positionals, stringOption } from '../command.js';
import { print, printJson } from '../output.js';
import { MIGRATE_HELP as migrate } from './migrate-help.js';

/** Runs `wardrik migrate` (loaded when the command runs). */
export async function runMigrate(parsed: Parsed): Promise<number> {
  positionals(migrate, parsed, []);
  const config = await loadConfig(stringOption(parsed, 'config'), process.cwd(), {
    store: stringOption(parsed, 'store'),
  });
  const where = describeStore(config.store);
  try {
    await config.store.migrate();
  } finally {
    await config.store.close();
  }
  if (flag(parsed, 'json')) printJson({ store: where, migrated: true });
  else print(`The schema of ${where} is up to date.`);
  return EXIT.ok;
}
