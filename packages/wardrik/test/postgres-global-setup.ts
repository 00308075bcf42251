/**
 * Vitest's global setup for the PostgreSQL tests: with WARDRIK_TEST_DATABASE_URL set (`.ci/run`
 * sets it to the machine's server), they use that server; without it, this starts a PostgreSQL of
 * their own (see {@link startTestPostgres}) once for the whole test run, hands its URL to the test
 * workers in that variable, and stops it when the run ends.
 */
import { startTestPostgres } from './embedded-postgres.js';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env['WARDRIK_TEST_DATABASE_URL']) return undefined;
  const postgres = await startTestPostgres();
  process.env['WARDRIK_TEST_DATABASE_URL'] = postgres.url;
  return async () => {
    delete process.env['WARDRIK_TEST_DATABASE_URL'];
    await postgres.stop();
  };
}
