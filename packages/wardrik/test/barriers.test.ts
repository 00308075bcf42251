/*
 * Barriers only where the outside world can notice (issue 18, part 1): `start()` returns an id, so
 * its run is on disk first; `run()` tells its caller nothing until the run parks or ends, so its
 * start rides to disk with that barrier, as does a child run's (its parent journaled its id first).
 */
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, type SqliteStore, sqliteStore, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const lookup = tool({
  name: 'lookup',
  description: 'Reads.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ({ key }),
});
const agent = () =>
  defineAgent({
    name: 'reader',
    instructions: '',
    tools: [lookup],
    model: new ScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { key: 'a' } }] }, { text: 'done' }]),
  });

describe('durability barriers of a run', () => {
  it('run() commits once, at the end, for a run of repeatable calls; start() commits its start first', async () => {
    const store = sqliteStore(tempDbPath()) as SqliteStore;
    wardrik = await createWardrik({ store, agents: [agent()] });
    await wardrik.run('reader', 'warm up');
    const before = store.stats().flushes;
    const result = await wardrik.run('reader', 'go');
    expect(result.status).toBe('completed');
    expect(store.stats().flushes - before).toBe(1);
    // All of it is on disk, the start included.
    expect((await wardrik.getRun(result.runId)).journal.map(({ record }) => record.type)).toEqual([
      'run-started',
      'model-step',
      'call-started',
      'call-answered',
      'model-step',
      'run-ended',
    ]);

    const started = store.stats().flushes;
    const { runId } = await wardrik.start('reader', 'go');
    expect(store.stats().flushes - started).toBe(1); // the start, before the id is returned
    await wardrik.wait(runId);
    expect(store.stats().flushes - started).toBe(2);
  });
});
