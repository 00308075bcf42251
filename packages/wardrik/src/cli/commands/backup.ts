import type { Command } from '../command.js';
import { BACKUP_HELP } from './backup-help.js';

/** `wardrik backup FILE`: copies a SQLite store while it serves. */
export const backup: Command = {
  ...BACKUP_HELP,
  async run(parsed) {
    // The implementation loads the store: only this command pays for it, not every CLI start.
    const { runBackup } = await import('./backup-run.js');
    return runBackup(parsed);
  },
};
