import type { Command } from '../command.js';
import { LISTINGS_HELP } from './listings-help.js';

/** `wardrik listings`: what the untrusted tool sources of the config's agents say of their tools, to review and pin. */
export const listings: Command = {
  ...LISTINGS_HELP,
  async run(parsed) {
    // The implementation loads the config and the runtime: only this command pays for it.
    const { runListings } = await import('./listings-run.js');
    return runListings(parsed);
  },
};
