import type { Command } from '../command.js';
import { MIGRATE_HELP } from './migrate-help.js';

/** `wardrik migrate`: creates or upgrades the store's schema, then exits. */
export const migrate: Command = {
  ...MIGRATE_HELP,
  async run(parsed) {
    // The implementation loads the runtime: only this command pays for it, not every CLI start.
    const { runMigrate } = await import('./migrate-run.js');
    return runMigrate(parsed);
  },
};
