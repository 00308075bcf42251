import type { Command } from '../command.js';
import { SERVE_HELP } from './serve-help.js';

/** `wardrik serve`: loads the config and serves the HTTP API until SIGINT or SIGTERM. */
export const serve: Command = {
  ...SERVE_HELP,
  async run(parsed) {
    // The implementation loads the runtime: only this command pays for it, not every CLI start.
    const { runServe } = await import('./serve-run.js');
    return runServe(parsed);
  },
};
