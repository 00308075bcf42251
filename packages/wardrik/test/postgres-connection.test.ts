/*
 * How a PostgreSQL store sets up each connection (issue 13): its schema as the search path, and
 * synchronous_commit at least `on` by default (a stronger server setting kept), `off` when asked.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { describeConfig, sessionSetup } from '../src/store/postgres/connection.js';
import { TEST_DATABASE_URL } from './store-factories.js';

const clients: pg.Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.end();
});

async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  clients.push(client);
  return client;
}

async function setting(client: pg.Client, name: 'synchronous_commit' | 'search_path'): Promise<string> {
  const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
  return String(Object.values(rows[0] ?? {})[0]);
}

describe('PostgreSQL session setup', () => {
  it('raises synchronous_commit to on by default, keeps a stronger setting, and turns it off when asked', async () => {
    for (const [server, expected] of [
      ['off', 'on'],
      ['local', 'on'],
      ['on', 'on'],
      ['remote_apply', 'remote_apply'],
      ['remote_write', 'remote_write'],
    ] as const) {
      const client = await connection();
      await client.query(`SET synchronous_commit TO ${server}`); // as the server's configuration would
      await client.query(sessionSetup(undefined, true));
      expect(await setting(client, 'synchronous_commit'), `server set to ${server}`).toBe(expected);
    }
    const relaxed = await connection();
    await relaxed.query(sessionSetup(undefined, false));
    expect(await setting(relaxed, 'synchronous_commit')).toBe('off');
  });

  it('sets the search path to the store schema, quoted, and leaves it alone without one', async () => {
    const client = await connection();
    const before = await setting(client, 'search_path');
    await client.query(sessionSetup(undefined, true));
    expect(await setting(client, 'search_path')).toBe(before);
    await client.query(sessionSetup('Wardrik_Nodes', true));
    expect(await setting(client, 'search_path')).toBe('"Wardrik_Nodes"');
  });

  it('shows a pool configuration as a URL without its password', () => {
    expect(describeConfig({ host: 'db', port: 6432, user: 'app', password: 'x', database: 'w' })).toBe(
      'postgres://app:***@db:6432/w',
    );
    expect(describeConfig({ connectionString: 'postgres://app:secret@db/w' })).toBe('postgres://app:***@db/w');
  });
});
