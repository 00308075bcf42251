// The external-work desk's look over open waits, on a real SQLite store: it reads them a page at a
// time (so that thousands of waits do not stall the process), and still finds every one of them.
import { afterEach, describe, expect, it } from 'vitest';
import type { Park, ParkDecision } from '../src/journal/records.js';
import { ExternalWorkDesk } from '../src/runtime/external-work.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { tempDbPath } from './helpers.js';

let store: Store | undefined;
let desk: ExternalWorkDesk | undefined;
afterEach(async () => {
  desk?.close();
  await store?.close();
  desk = undefined;
  store = undefined;
});

/** An open wait on `handle`, made at `createdAt`, whose deadline (if any) is `deadline`. */
function wait(index: number, options: { createdAt: number; deadline?: number }): Park {
  return {
    id: `park-${String(index).padStart(5, '0')}`,
    runId: 'run-0',
    kind: 'external',
    reason: 'the job runs',
    handle: `job-${index}`,
    labels: [],
    callHash: `hash-${index}`,
    createdAt: options.createdAt,
    ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
  };
}

describe('looking over the open waits', () => {
  it('reads them a page at a time, each once, ties in time included, and ends every overdue one', async () => {
    store = sqliteStore(tempDbPath());
    await store.migrate();
    const now = 1_000_000;
    // 1,234 waits over three pages; many share a creation time (the page boundary falls among them).
    const parks = Array.from({ length: 1_234 }, (_, index) =>
      wait(index, {
        createdAt: now - 10_000 + Math.floor(index / 100),
        ...(index % 2 === 0 ? { deadline: now - 1 } : {}),
      }),
    );
    await store.write({ runId: 'run-0', records: [], parks }, { durable: true });
    const answered: Array<{ parkId: string; decision: ParkDecision }> = [];
    const pages: number[] = [];
    desk = new ExternalWorkDesk({
      store,
      now: () => now,
      answer: async (park, decision) => {
        answered.push({ parkId: park.id, decision });
      },
      onWaiting: (page) => pages.push(page.length),
    });

    const handles = await desk.scan();
    expect(handles).toHaveLength(1_234);
    expect(new Set(handles).size).toBe(1_234);
    expect(pages).toEqual([500, 500, 234]);
    await expect.poll(() => answered.length, { timeout: 30_000 }).toBe(617);
    expect(new Set(answered.map((each) => each.parkId)).size).toBe(617);
    expect(answered.every((each) => each.decision.type === 'fail')).toBe(true);
    // A look while a page is being read by another finds the same waits.
    const [again, meanwhile] = await Promise.all([desk.scan(), desk.scan()]);
    expect(new Set(again)).toEqual(new Set(handles));
    expect(new Set(meanwhile)).toEqual(new Set(handles));
  });

  it('watches the soonest deadline whichever order they come in, and ends each when it is due', async () => {
    store = sqliteStore(tempDbPath());
    await store.migrate();
    let now = 1_000_000;
    const parks = [
      wait(1, { createdAt: now - 3, deadline: now + 60_000 }),
      wait(2, { createdAt: now - 2, deadline: now + 40 }),
      wait(3, { createdAt: now - 1, deadline: now + 20 }),
    ];
    await store.write({ runId: 'run-0', records: [], parks }, { durable: true });
    const answered: string[] = [];
    desk = new ExternalWorkDesk({
      store,
      now: () => now,
      answer: async (park) => {
        answered.push(park.id);
      },
    });
    await desk.scan();
    now += 30;
    await expect.poll(() => answered, { timeout: 30_000 }).toEqual(['park-00003']);
    now += 30;
    await expect.poll(() => answered, { timeout: 30_000 }).toEqual(['park-00003', 'park-00002']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toEqual(['park-00003', 'park-00002']);
  });
});
