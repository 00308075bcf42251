import type { Command } from '../command.js';
import { TOKENS_HELP } from './tokens-help.js';

export { KINDS, ROLES } from './tokens-help.js';
/** `wardrik tokens create|list|revoke`: manages tokens on the config's store, without a server. */
export const tokens: Command = {
  ...TOKENS_HELP,
  async run(parsed) {
    // The implementation loads the runtime: only this command pays for it, not every CLI start.
    const { runTokens } = await import('./tokens-run.js');
    return runTokens(parsed);
  },
};
