/*
 * An answer refused after its run was loaded for it (a stale callHash, a second answer) still
 * gives the run back: on PostgreSQL the node that loaded it releases its lease, so that any node
 * may take the run when it is answered (regression: the loaded run stayed held, unrested).
 */
import { park, tool } from '@wardrik/core';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, StaleParkAnswerError, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

let wardrik: Wardrik | undefined;
let schema: string | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
  if (schema) await dropTestSchema(schema);
  schema = undefined;
});

async function leaseHolder(runId: string): Promise<string | null | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ node: string | null }>(
      `SELECT node FROM "${schema}".leases WHERE run_id = $1`,
      [runId],
    );
    return rows[0]?.node;
  } finally {
    await client.end();
  }
}

describe('a refused answer gives the run it loaded back', () => {
  it('on PostgreSQL, the lease taken to check the answer is released when the answer is refused', async () => {
    schema = testSchemaName();
    const ask = tool({ name: 'ask', description: 'Needs a person.', run: () => park('a person must say') });
    wardrik = await createWardrik({
      store: openPostgresTestStore({ schema, keepSchema: true }),
      node: 'a',
      agents: [
        defineAgent({
          name: 'asker',
          instructions: '',
          tools: [ask],
          model: new ScriptedModel([{ toolCalls: [{ name: 'ask' }] }]),
        }),
      ],
    });
    const parked = await wardrik.run('asker', 'ask');
    const held = parked.parks[0]!;
    // Parked: nobody holds it.
    await until(async () => (await leaseHolder(parked.runId)) === null, 60_000);
    await expect(wardrik.answerPark(held.id, { type: 'retry' }, { callHash: 'not-this-call' })).rejects.toThrow(
      StaleParkAnswerError,
    );
    await until(async () => (await leaseHolder(parked.runId)) === null, 60_000);
    expect((await wardrik.getPark(held.id)).status).toBe('open');
  });
});
