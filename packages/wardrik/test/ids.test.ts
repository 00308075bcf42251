/*
 * Runs, parks and sessions get time-ordered ids (UUID version 7): a new run's rows go in at the end
 * of the store's indexes instead of in a random page of them (see `timeOrderedId`).
 */
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, type Wardrik } from '../src/index.js';
import { timeOrderedId } from '../src/runtime/ids.js';
import { memoryStore, ScriptedModel } from '../src/testing/index.js';

const VERSION_7 = /^[a-z]+_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The ms an id says it was made at: its first 48 bits. */
function timeOf(id: string): number {
  return Number.parseInt(
    id
      .slice(id.indexOf('_') + 1)
      .replace('-', '')
      .slice(0, 12),
    16,
  );
}

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('timeOrderedId', () => {
  it('is a UUID version 7 after the prefix, holding the time it was made at', () => {
    const now = Date.UTC(2026, 11, 2, 6, 30, 0, 123);
    const id = timeOrderedId('run', now);
    expect(id).toMatch(VERSION_7);
    expect(timeOf(id)).toBe(now);
    expect(timeOf(timeOrderedId('park'))).toBeGreaterThan(Date.now() - 60_000);
  });

  it('sorts ids of a later ms after earlier ones, across every byte of the time', () => {
    const times = [0, 1, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, Date.now(), 2 ** 48 - 2, 2 ** 48 - 1];
    for (let index = 1; index < times.length; index++) {
      for (let repeat = 0; repeat < 20; repeat++) {
        const earlier = timeOrderedId('run', times[index - 1] as number);
        const later = timeOrderedId('run', times[index] as number);
        expect(earlier < later, `${earlier} < ${later}`).toBe(true);
      }
    }
  });

  it('is unique and random within one ms (74 random bits)', () => {
    const now = Date.now();
    const ids = Array.from({ length: 20_000 }, () => timeOrderedId('run', now));
    expect(new Set(ids).size).toBe(ids.length);
    const tails = new Set(ids.map((id) => id.slice(-12)));
    expect(tails.size).toBe(ids.length);
  });
});

describe('the ids a runtime makes', () => {
  it('orders runs, parks and sessions by the time they were made', async () => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order.',
      schema: { order: { type: 'string', required: true } },
      annotations: { destructive: true }, // always gated: the run parks
      run: () => 'refunded',
    });
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: 'refund', arguments: { order: 'o1' } }] }));
    wardrik = await createWardrik({
      store: memoryStore(),
      agents: [defineAgent({ name: 'clerk', instructions: '', tools: [refund], model })],
    });
    const made: string[] = [];
    for (let index = 0; index < 3; index++) {
      const result = await wardrik.run('clerk', 'refund o1');
      expect(result.status).toBe('parked');
      made.push(result.runId, ...result.parks.map((park) => park.id));
      made.push((await wardrik.createSession('clerk')).id);
      await new Promise((resolve) => setTimeout(resolve, 2)); // the next ones in a later ms
    }
    for (const id of made) expect(id).toMatch(VERSION_7);
    const byKind = (prefix: string) => made.filter((id) => id.startsWith(prefix));
    for (const prefix of ['run_', 'park_', 'ses_']) {
      const ids = byKind(prefix);
      expect(ids).toHaveLength(3);
      expect([...ids].sort()).toEqual(ids);
    }
  });
});
