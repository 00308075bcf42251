/*
 * The store contract for workers across nodes (issue 13): node liveness judged by the store's
 * clock, the registry of what each node's workers offer, and mail between nodes (a message can be
 * withdrawn until it is taken). Runs on every adapter (store-factories.ts); several "nodes" are
 * several node ids on one store. PostgreSQL's signals are also checked across two stores on one
 * schema, and forgetting dead nodes on a memory store whose clock the test moves.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../src/auth/types.js';
import { StoreError } from '../src/errors.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { Store, WorkerNode, WorkerOffer, WorkerSignal } from '../src/store/store.js';
import { MAX_NOTE_BYTES } from '../src/store/worker-store.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, storeFactories, testSchemaName } from './store-factories.js';

const principal: Principal = {
  id: 'p1',
  name: 'billing-worker',
  kind: 'worker',
  role: 'worker',
  agents: ['support'],
  createdAt: 1,
};

function node(name: string): WorkerNode {
  return { id: randomUUID(), name };
}

function offer(
  workerId: string,
  at: WorkerNode,
  tools: unknown[] = [{ name: 'lookup', inputSchema: {} }],
): WorkerOffer {
  return { workerId, node: at, principal, tools, rejected: [{ name: 'bad!', reason: 'invalid name' }], revision: 1 };
}

const TTL = 60_000;

describe.each(storeFactories)('$name: workers across nodes', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('a beat keeps a node alive and names the other live nodes; the first beat says it did not continue', async () => {
    const a = node('node-a');
    const b = node('node-b');
    expect((await store.beat({ node: a, ttlMs: TTL })).continued).toBe(false);
    const first = await store.beat({ node: b, ttlMs: TTL });
    expect(first.continued).toBe(false);
    expect([...first.nodes]).toEqual([[a.id, 'node-a']]);
    const again = await store.beat({ node: a, ttlMs: TTL });
    expect(again.continued).toBe(true);
    expect([...again.nodes]).toEqual([[b.id, 'node-b']]);
  });

  it('a node that stops beating is dead once its ttl passes: not listed, its offers not listed, no mail for it; beating again it did not continue', async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: 300 });
    await store.putOffer(offer('wkr_b', b));
    expect((await store.listOffers()).offers.map((each) => each.workerId)).toEqual(['wkr_b']);
    await until(async () => !(await store.beat({ node: a, ttlMs: TTL })).nodes.has(b.id), 20_000);
    expect((await store.listOffers()).offers).toEqual([]);
    expect(await store.post(b.id, { id: randomUUID(), from: a.id, body: '{}' })).toBe(false);
    expect((await store.beat({ node: b, ttlMs: TTL })).continued).toBe(false);
    // Its offer is listed again once it is alive (it was not forgotten yet).
    expect((await store.listOffers()).offers.map((each) => each.workerId)).toEqual(['wkr_b']);
  });

  it('offers: listed oldest first with their node; a new put keeps the connection time; every change moves the version', async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: TTL });
    const empty = await store.listOffers();
    expect(empty.offers).toEqual([]);
    const firstAt = await store.putOffer(offer('wkr_1', a));
    const secondAt = await store.putOffer(offer('wkr_2', b));
    expect(secondAt).toBeGreaterThanOrEqual(firstAt);
    const listed = await store.listOffers();
    expect(listed.version).not.toBe(empty.version);
    expect(listed.offers).toEqual([
      { ...offer('wkr_1', a), connectedAt: firstAt, load: 0 },
      { ...offer('wkr_2', b), connectedAt: secondAt, load: 0 },
    ]);
    const tools = [
      { name: 'lookup', inputSchema: {} },
      { name: 'late', inputSchema: { type: 'object' } },
    ];
    expect(await store.putOffer({ ...offer('wkr_1', a, tools), revision: 2 })).toBe(firstAt);
    const replaced = await store.listOffers();
    expect(replaced.version).not.toBe(listed.version);
    expect(replaced.offers[0]).toMatchObject({ workerId: 'wkr_1', tools, revision: 2, connectedAt: firstAt });
    await store.removeOffer('wkr_1');
    await store.removeOffer('wkr_unknown');
    const removed = await store.listOffers();
    expect(removed.version).not.toBe(replaced.version);
    expect(removed.offers.map((each) => each.workerId)).toEqual(['wkr_2']);
    expect((await store.beat({ node: a, ttlMs: TTL })).offersVersion).toBe(removed.version);
  });

  it('a worker id offered by one node cannot be offered by another', async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: TTL });
    await store.putOffer(offer('wkr_1', a));
    await expect(store.putOffer(offer('wkr_1', b))).rejects.toThrow(StoreError);
    expect((await store.listOffers()).offers[0]?.node).toEqual(a);
  });

  it("a beat records its workers' loads; other nodes see them, not their own", async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: TTL });
    await store.putOffer(offer('wkr_a', a));
    await store.putOffer(offer('wkr_b', b));
    await store.beat({ node: a, ttlMs: TTL, loads: { wkr_a: 3, wkr_b: 9 } });
    const seenByB = await store.beat({ node: b, ttlMs: TTL, loads: { wkr_b: 1 } });
    expect([...seenByB.loads]).toEqual([['wkr_a', 3]]);
    expect([...(await store.beat({ node: a, ttlMs: TTL })).loads]).toEqual([['wkr_b', 1]]);
    const listed = await store.listOffers();
    expect(listed.offers.map((each) => [each.workerId, each.load])).toEqual([
      ['wkr_a', 3],
      ['wkr_b', 1],
    ]);
    await store.beat({ node: a, ttlMs: TTL, loads: { wkr_a: 0 } });
    expect([...(await store.beat({ node: b, ttlMs: TTL })).loads]).toEqual([]);
  });

  it('mail: posted to a live node only, taken oldest first and once; withdrawn only until taken', async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: TTL });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [index, id] of ids.entries()) {
      expect(await store.post(b.id, { id, from: a.id, body: `{"n":${index}}` })).toBe(true);
    }
    expect(await store.post(randomUUID(), { id: randomUUID(), from: a.id, body: '{}' })).toBe(false);
    await expect(store.post(b.id, { id: ids[0] as string, from: a.id, body: '{}' })).rejects.toThrow();
    expect(await store.withdraw(ids[1] as string)).toBe(true);
    expect(await store.withdraw(ids[1] as string)).toBe(false);
    expect(await store.takeMail(a.id)).toEqual([]);
    expect(await store.takeMail(b.id)).toEqual([
      { id: ids[0], from: a.id, body: '{"n":0}' },
      { id: ids[2], from: a.id, body: '{"n":2}' },
    ]);
    expect(await store.takeMail(b.id)).toEqual([]);
    expect(await store.withdraw(ids[2] as string)).toBe(false);
  });

  it('a node that leaves is not alive and its offers go; mail left for it can still be withdrawn', async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: TTL });
    await store.putOffer(offer('wkr_b', b));
    const id = randomUUID();
    expect(await store.post(b.id, { id, from: a.id, body: '{}' })).toBe(true);
    const before = await store.listOffers();
    await store.leave(b.id);
    const after = await store.listOffers();
    expect(after.offers).toEqual([]);
    expect(after.version).not.toBe(before.version);
    expect((await store.beat({ node: a, ttlMs: TTL })).nodes.has(b.id)).toBe(false);
    expect(await store.post(b.id, { id: randomUUID(), from: a.id, body: '{}' })).toBe(false);
    expect(await store.withdraw(id)).toBe(true);
  });

  it('signals: workers-changed names the node, mail names its addressee, a note carries its body', async () => {
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: TTL });
    await store.beat({ node: b, ttlMs: TTL });
    const heard: WorkerSignal[] = [];
    const stop = store.onWorkerSignal((signal) => heard.push(signal));
    await store.putOffer(offer('wkr_a', a));
    await store.post(b.id, { id: randomUUID(), from: a.id, body: '{}' });
    await store.note(a.id, '{"progress":1}');
    await until(() => heard.length >= 3);
    expect(heard).toEqual(
      expect.arrayContaining([
        { type: 'workers-changed', from: a.id },
        { type: 'mail', to: b.id },
        { type: 'note', to: a.id, body: '{"progress":1}' },
      ]),
    );
    stop();
  });

  it('a note over MAX_NOTE_BYTES is refused', async () => {
    await expect(store.note(randomUUID(), 'é'.repeat(MAX_NOTE_BYTES))).rejects.toThrow(StoreError);
  });
});

describe('PostgresStore: workers across two stores on one schema', () => {
  const schema = testSchemaName();
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((each) => each.close()));
  });
  afterEach(async () => {
    await dropTestSchema(schema);
  });

  it("one node's offers, mail and notes are heard by the other", async () => {
    const first = openPostgresTestStore({ schema, keepSchema: true });
    const second = openPostgresTestStore({ schema, keepSchema: true });
    stores.push(first, second);
    const a = node('node-a');
    const b = node('node-b');
    await first.beat({ node: a, ttlMs: TTL });
    await second.beat({ node: b, ttlMs: TTL });
    const heard: WorkerSignal[] = [];
    second.onWorkerSignal((signal) => heard.push(signal));
    await (second as unknown as { listening(): Promise<void> }).listening();
    await first.putOffer(offer('wkr_a', a));
    const id = randomUUID();
    await first.post(b.id, { id, from: a.id, body: '{"call":1}' });
    await first.note(b.id, '{"progress":2}');
    await until(() => heard.length >= 3, 20_000);
    expect(heard).toEqual([
      { type: 'workers-changed', from: a.id },
      { type: 'mail', to: b.id },
      { type: 'note', to: b.id, body: '{"progress":2}' },
    ]);
    expect(await second.takeMail(b.id)).toEqual([{ id, from: a.id, body: '{"call":1}' }]);
    expect((await second.listOffers()).offers.map((each) => each.node)).toEqual([a]);
  });
});

describe('MemoryStore: dead nodes are forgotten', () => {
  it('a minute after a node died its offers and mail are gone; when it beats again it must offer again', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    const a = node('node-a');
    const b = node('node-b');
    await store.beat({ node: a, ttlMs: 5_000 });
    await store.beat({ node: b, ttlMs: 5_000 });
    await store.putOffer(offer('wkr_b', b));
    const id = randomUUID();
    await store.post(b.id, { id, from: a.id, body: '{}' });
    now += 5_000 + 60_001;
    await store.beat({ node: a, ttlMs: 5_000 });
    expect(await store.withdraw(id)).toBe(false);
    expect((await store.beat({ node: b, ttlMs: 5_000 })).continued).toBe(false);
    expect((await store.listOffers()).offers).toEqual([]);
  });
});
