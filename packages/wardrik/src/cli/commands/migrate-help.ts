import { COMMON_HELP, type CommandHelp, commonOptions } from '../command.js';

/** `wardrik migrate`: creates or upgrades the store's schema, then exits. */
export const MIGRATE_HELP: CommandHelp = {
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
};
