import { loadConfig } from '../../config/load-config.js';
import { describeStore } from '../../config/store-setting.js';
import { EXIT } from '../cli-error.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals, stringOption } from '../command.js';
import { print, printJson } from '../output.js';

/** `wardrik migrate`: creates or upgrades the store's schema, then exits. */
export const migrate: Command = {
  name: 'migrate',
  summary: "create or upgrade the store's schema (nodes sharing PostgreSQL can run it before they start)",
  usage: `Usage: wardrik migrate [--config FILE] [--store STORE]

Creates or upgrades the schema of the config's store (or of --store), then exits. Every node
migrates when it starts too, under a lock, so nodes starting together migrate once; run this to
upgrade before rolling nodes out, or to check that a database can be reached.

Options:
  --config FILE  the config file
  --store STORE  a postgres:// URL (also WARDRIK_DATABASE_URL) or a SQLite file path, instead of
                 the config's store
${COMMON_HELP}`,
  options: { ...commonOptions, config: { type: 'string' }, store: { type: 'string' } },
  async run(parsed) {
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
  },
};
