/*
 * The retention queries every store adapter implements (issue 29 item 2): purging runs, idle
 * sessions, old memories and old artifact versions, a batch at a time, and the lock that lets one
 * node sweep at a time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../src/errors.js';
import type { JournalRecord, Park } from '../src/journal/records.js';
import type { StoredMemory } from '../src/store/memory-index.js';
import type { PurgeableStatus } from '../src/store/retention-store.js';
import type { RunRow, Store } from '../src/store/store.js';
import { storeFactories } from './store-factories.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 31);
const terms = { node: 'node-a', incarnation: 'a-1', leaseMs: 60_000 };

function row(id: string, status: RunRow['status'], updatedAt: number, agent = 'support'): RunRow {
  return { id, agent, principal: 'alice', status, createdAt: updatedAt, updatedAt, measures: {}, labels: [] };
}

function record(type: 'run-started' | 'model-step', at: number): JournalRecord {
  return type === 'run-started'
    ? { v: 4, at, type, agent: 'support', principal: 'alice', input: 'hi', budget: {}, maxSteps: 5 }
    : {
        v: 4,
        at,
        type,
        step: 1,
        model: 'scripted',
        text: 'hello',
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
      };
}

function park(id: string, runId: string, at: number): Park {
  return {
    id,
    runId,
    kind: 'approval',
    reason: 'a person decides',
    call: { callId: 'c1.0', name: 'refund', arguments: {}, idempotencyKey: `${runId}:c1.0` },
    labels: [],
    callHash: `hash-${id}`,
    createdAt: at,
  };
}

/** Writes a run with a row, `records` journal records and (parked) an open park, under a lease that is then released. */
async function putRun(
  store: Store,
  id: string,
  status: RunRow['status'],
  updatedAt: number,
  options: { agent?: string; records?: number; keepLease?: boolean } = {},
): Promise<void> {
  const lease = await store.claimRun(id, terms);
  if (!lease) throw new Error(`could not claim ${id}`);
  const count = options.records ?? 2;
  await store.write(
    {
      runId: id,
      run: row(id, status, updatedAt, options.agent),
      records: Array.from({ length: count }, (_, index) => ({
        runId: id,
        seq: index + 1,
        record: record(index === 0 ? 'run-started' : 'model-step', updatedAt),
      })),
      ...(status === 'parked' ? { parks: [park(`park-${id}`, id, updatedAt)] } : {}),
      lease,
    },
    { durable: true },
  );
  if (!options.keepLease) await store.releaseLease(lease);
}

function memory(id: string, at: number, app = 'shop'): StoredMemory {
  return { id, app, principal: 'alice', role: 'user', text: `said ${id}`, labels: [], at };
}

const ended: PurgeableStatus[] = ['completed', 'failed', 'cancelled'];

describe.each(storeFactories)('$name: retention', ({ open, leasesExpire }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('purges ended runs older than the cut-off, oldest first, a batch at a time, with their journals, parks and run artifacts', async () => {
    await putRun(store, 'old-1', 'completed', NOW - 40 * DAY, { records: 3 });
    await putRun(store, 'old-2', 'failed', NOW - 35 * DAY);
    await putRun(store, 'old-3', 'cancelled', NOW - 31 * DAY);
    await putRun(store, 'recent', 'completed', NOW - 2 * DAY);
    await putRun(store, 'parked', 'parked', NOW - 90 * DAY);
    await putRun(store, 'running', 'running', NOW - 90 * DAY);
    await store.saveArtifact({
      scope: 'run:old-1',
      name: 'report.txt',
      mediaType: 'text/plain',
      data: new TextEncoder().encode('hi'),
      labels: [],
      savedAt: NOW - 40 * DAY,
      savedBy: 'old-1',
    });
    const before = NOW - 30 * DAY;

    const first = await store.purgeRuns({ statuses: ended, before, limit: 2 });
    expect(first).toEqual({ runIds: ['old-1', 'old-2'], records: 5 });
    const second = await store.purgeRuns({ statuses: ended, before, limit: 2 });
    expect(second).toEqual({ runIds: ['old-3'], records: 2 });
    expect(await store.purgeRuns({ statuses: ended, before, limit: 2 })).toEqual({ runIds: [], records: 0 });

    for (const id of ['old-1', 'old-2', 'old-3']) {
      expect(await store.getRun(id)).toBeUndefined();
      expect(await store.loadJournal(id)).toEqual([]);
    }
    expect(await store.listArtifacts(['run:old-1'])).toEqual([]);
    // What the rule does not cover is left as it was.
    expect((await store.listRuns()).map((each) => each.id).sort()).toEqual(['parked', 'recent', 'running']);
    expect(await store.loadJournal('recent')).toHaveLength(2);
    expect(await store.getPark('park-parked')).toMatchObject({ status: 'open' });
  });

  it('purges parked runs only when told to, their parks with them', async () => {
    await putRun(store, 'parked', 'parked', NOW - 90 * DAY);
    expect((await store.purgeRuns({ statuses: ended, before: NOW, limit: 100 })).runIds).toEqual([]);
    expect((await store.purgeRuns({ statuses: ['parked'], before: NOW, limit: 100 })).runIds).toEqual(['parked']);
    expect(await store.getPark('park-parked')).toBeUndefined();
    expect(await store.countOpenParks()).toEqual({});
  });

  it('narrows to one agent, or to every agent but those with rules of their own', async () => {
    await putRun(store, 'a', 'completed', NOW - 40 * DAY, { agent: 'support' });
    await putRun(store, 'b', 'completed', NOW - 40 * DAY, { agent: 'billing' });
    await putRun(store, 'c', 'completed', NOW - 40 * DAY, { agent: 'retired' });
    const before = NOW - 30 * DAY;
    expect(
      (await store.purgeRuns({ statuses: ended, before, agents: { exceptAgents: ['support', 'billing'] }, limit: 10 }))
        .runIds,
    ).toEqual(['c']);
    expect(
      (await store.purgeRuns({ statuses: ended, before, agents: { agent: 'billing' }, limit: 10 })).runIds,
    ).toEqual(['b']);
    expect((await store.listRuns()).map((each) => each.id)).toEqual(['a']);
  });

  it('leaves a run whose lease a node holds, one an answer or a cancel waits for, and one a kept session holds', async () => {
    await putRun(store, 'held', 'completed', NOW - 40 * DAY, { keepLease: true });
    await putRun(store, 'answered', 'parked', NOW - 40 * DAY);
    await store.requestAnswer({
      parkId: 'park-answered',
      decision: { type: 'approve' },
      by: 'bob',
      at: NOW,
      callHash: 'hash-park-answered',
    });
    await putRun(store, 'to-cancel', 'parked', NOW - 40 * DAY);
    await store.requestCancel('to-cancel', 'no longer needed', NOW);
    await store.createSession({
      id: 'ses-1',
      agent: 'support',
      app: 'shop',
      principal: 'alice',
      createdAt: NOW - 50 * DAY,
      updatedAt: NOW - 50 * DAY,
      runs: 0,
    });
    expect(await store.claimTurn('ses-1', 'in-session', NOW - 50 * DAY, 10_000)).toEqual({ claimed: true });
    await putRun(store, 'in-session', 'completed', NOW - 40 * DAY);

    const statuses: PurgeableStatus[] = [...ended, 'parked'];
    expect((await store.purgeRuns({ statuses, before: NOW - DAY, limit: 100 })).runIds).toEqual([]);

    // Once the session goes (idle for long enough, its last run ended), its runs follow the runs' rule.
    expect(await store.purgeSessions({ idleBefore: NOW - 45 * DAY, limit: 100 })).toBe(1);
    expect((await store.purgeRuns({ statuses, before: NOW - DAY, limit: 100 })).runIds).toEqual(['in-session']);
  });

  it('refuses to purge running runs, and a batch that is not a whole number, naming them', async () => {
    await expect(store.purgeRuns({ statuses: ['running' as PurgeableStatus], before: NOW, limit: 10 })).rejects.toThrow(
      InvalidInputError,
    );
    await expect(store.purgeRuns({ statuses: ['running' as PurgeableStatus], before: NOW, limit: 10 })).rejects.toThrow(
      /"running" can't be purged/,
    );
    await expect(store.purgeRuns({ statuses: [], before: NOW, limit: 10 })).rejects.toThrow(/statuses/);
    await expect(store.purgeRuns({ statuses: ended, before: NOW, limit: 0 })).rejects.toThrow(/limit/);
    await expect(store.purgeMemories({ before: Number.NaN, limit: 10 })).rejects.toThrow(/before/);
    await expect(store.purgeArtifactVersions({ keepVersions: 0, limit: 10 })).rejects.toThrow(/keepVersions/);
  });

  it('purges idle sessions with their state and artifacts, never one whose last run is going', async () => {
    const base = { agent: 'support', app: 'shop', principal: 'alice', runs: 0 };
    await store.createSession({ id: 'idle', ...base, createdAt: NOW - 100 * DAY, updatedAt: NOW - 100 * DAY });
    await store.createSession({ id: 'busy', ...base, createdAt: NOW - 100 * DAY, updatedAt: NOW - 100 * DAY });
    await store.createSession({ id: 'fresh', ...base, createdAt: NOW, updatedAt: NOW });
    await store.createSession({
      id: 'other-agent',
      ...base,
      agent: 'billing',
      createdAt: NOW - 100 * DAY,
      updatedAt: NOW - 100 * DAY,
    });
    expect(await store.claimTurn('busy', 'busy-run', NOW - 100 * DAY, 10_000)).toEqual({ claimed: true });
    await putRun(store, 'busy-run', 'parked', NOW - 100 * DAY);
    await store.editState({
      writes: [{ scope: 'session:idle', key: 'cart', value: ['tea'], labels: [] }],
      by: 'olga',
      reason: 'test',
      at: NOW - 100 * DAY,
    });
    await store.saveArtifact({
      scope: 'session:idle',
      name: 'notes.txt',
      mediaType: 'text/plain',
      data: new TextEncoder().encode('x'),
      labels: [],
      savedAt: NOW - 100 * DAY,
      savedBy: 'olga',
    });

    expect(await store.purgeSessions({ idleBefore: NOW - 30 * DAY, agents: { agent: 'support' }, limit: 10 })).toBe(1);
    expect(await store.getSession('idle')).toBeUndefined();
    expect(await store.loadState(['session:idle'])).toEqual([]);
    expect(await store.listStateEdits('session:idle')).toEqual([]);
    expect(await store.listArtifacts(['session:idle'])).toEqual([]);
    expect(await store.getSession('busy')).toBeDefined();
    expect(await store.getSession('fresh')).toBeDefined();
    expect(await store.getSession('other-agent')).toBeDefined();
    expect(await store.purgeSessions({ idleBefore: NOW - 30 * DAY, limit: 10 })).toBe(1);
    expect(await store.getSession('other-agent')).toBeUndefined();
  });

  it('purges memories said before the cut-off, by app', async () => {
    await store.addMemories([
      memory('m-old', NOW - 400 * DAY),
      memory('m-new', NOW - DAY),
      memory('m-old-other', NOW - 400 * DAY, 'crm'),
    ]);
    expect(await store.purgeMemories({ before: NOW - 365 * DAY, apps: { app: 'shop' }, limit: 10 })).toBe(1);
    expect((await store.knownMemories(['m-old', 'm-new', 'm-old-other'])).sort()).toEqual(['m-new', 'm-old-other']);
    expect(await store.searchMemories({ app: 'shop', principal: 'alice', words: ['said'], limit: 10 })).toHaveLength(1);
    expect(await store.purgeMemories({ before: NOW - 365 * DAY, apps: { exceptApps: ['shop'] }, limit: 10 })).toBe(1);
    expect(await store.knownMemories(['m-old-other'])).toEqual([]);
  });

  it('keeps the newest versions of each artifact, by app; the next save goes on numbering', async () => {
    const bytes = new TextEncoder().encode('v');
    const saveIn = (scope: string, name: string) =>
      store.saveArtifact({ scope, name, mediaType: 'text/plain', data: bytes, labels: [], savedAt: NOW, savedBy: 'r' });
    for (let version = 0; version < 5; version++) await saveIn('user:shop:alice', 'profile.json');
    for (let version = 0; version < 3; version++) await saveIn('user:crm:alice', 'profile.json');
    expect(await store.purgeArtifactVersions({ keepVersions: 2, apps: { app: 'shop' }, limit: 2 })).toBe(2);
    expect(await store.purgeArtifactVersions({ keepVersions: 2, apps: { app: 'shop' }, limit: 2 })).toBe(1);
    expect(await store.purgeArtifactVersions({ keepVersions: 2, apps: { app: 'shop' }, limit: 2 })).toBe(0);
    expect((await store.artifactVersions('user:shop:alice', 'profile.json')).map((each) => each.version)).toEqual([
      4, 5,
    ]);
    expect(await store.artifactVersions('user:crm:alice', 'profile.json')).toHaveLength(3);
    expect((await saveIn('user:shop:alice', 'profile.json')).version).toBe(6);
    expect(await store.purgeArtifactVersions({ keepVersions: 1, apps: { exceptApps: ['shop'] }, limit: 10 })).toBe(2);
    expect(await store.artifactVersions('user:shop:alice', 'profile.json')).toHaveLength(3);
  });

  it('lets one holder at a time sweep, until it releases the sweep or its claim expires', async () => {
    expect(await store.claimSweep('node-a', 60_000)).toBe(true);
    expect(await store.claimSweep('node-a', 60_000)).toBe(true); // extended
    expect(await store.claimSweep('node-b', 60_000)).toBe(false);
    await store.releaseSweep('node-b'); // not its own: nothing happens
    expect(await store.claimSweep('node-b', 60_000)).toBe(false);
    await store.releaseSweep('node-a');
    expect(await store.claimSweep('node-b', 50)).toBe(true);
    if (leasesExpire) {
      // Past its claim, another holder takes it.
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(await store.claimSweep('node-a', 60_000)).toBe(true);
    }
  });

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
