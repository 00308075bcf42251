import { COMMON_HELP, type CommandHelp, commonOptions } from '../command.js';

/** `wardrik backup FILE`: copies a SQLite store while it serves. */
export const BACKUP_HELP: CommandHelp = {
  name: 'backup',
  summary: 'copy the SQLite store to a file while it serves (PostgreSQL: pg_dump)',
  usage: `Usage: wardrik backup FILE [--config FILE] [--store PATH]

Copies the config's SQLite store (or --store PATH) to FILE while wardrik serve goes on: one
consistent snapshot holding every run acknowledged before it began, checked, as one file (mode
0600). FILE must not exist. To restore: stop the server, put the copy where the store was
(removing the old -wal and -shm files beside it), start the server.

A PostgreSQL store is backed up with pg_dump (see the README's Operations).

Options:
  --config FILE  the config file
  --store PATH   the SQLite file to copy, instead of the config's store
${COMMON_HELP}`,
  options: { ...commonOptions, config: { type: 'string' }, store: { type: 'string' } },
};
