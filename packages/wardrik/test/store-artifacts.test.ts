import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ArtifactSave } from '../src/store/artifact-store.js';
import type { Store } from '../src/store/store.js';
import { storeFactories } from './store-factories.js';

function save(name: string, data: Uint8Array, extra: Partial<ArtifactSave> = {}): ArtifactSave {
  return {
    scope: 'session:s1',
    name,
    mediaType: 'application/octet-stream',
    data,
    labels: [],
    savedAt: 1000,
    savedBy: 'r1',
    ...extra,
  };
}

/** Every byte value, zeros and invalid UTF-8 included. */
const everyByte = Uint8Array.from({ length: 512 }, (_, index) => index % 256);

describe.each(storeFactories)('$name: artifacts', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('gives each save of a name the next version, and round-trips the bytes of each exactly', async () => {
    const big = new Uint8Array(randomBytes(3 * 1024 * 1024));
    const first = await store.saveArtifact(save('data.bin', everyByte, { labels: ['outside'] }));
    expect(first).toEqual({
      name: 'data.bin',
      version: 1,
      mediaType: 'application/octet-stream',
      size: 512,
      labels: ['outside'],
      savedAt: 1000,
      savedBy: 'r1',
    });
    const second = await store.saveArtifact(save('data.bin', big, { savedAt: 2000 }));
    expect(second.version).toBe(2);
    const empty = await store.saveArtifact(save('data.bin', new Uint8Array(0), { savedAt: 3000 }));
    expect(empty).toMatchObject({ version: 3, size: 0 });

    const v1 = await store.loadArtifact('session:s1', 'data.bin', 1);
    expect(v1?.data).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(v1?.data ?? []).equals(Buffer.from(everyByte))).toBe(true);
    expect(v1?.labels).toEqual(['outside']);
    const v2 = await store.loadArtifact('session:s1', 'data.bin', 2);
    expect(Buffer.from(v2?.data ?? []).equals(Buffer.from(big))).toBe(true);
    const latest = await store.loadArtifact('session:s1', 'data.bin');
    expect(latest).toMatchObject({ version: 3, size: 0 });
    expect(latest?.data.byteLength).toBe(0);
    expect(await store.loadArtifact('session:s1', 'data.bin', 4)).toBeUndefined();
    expect(await store.loadArtifact('session:s1', 'nope.bin')).toBeUndefined();
    expect(await store.loadArtifact('session:s2', 'data.bin')).toBeUndefined();
    expect((await store.artifactVersions('session:s1', 'data.bin')).map((each) => each.version)).toEqual([1, 2, 3]);
  });

  it('lists the latest version of every name of the scopes, by name', async () => {
    await store.saveArtifact(save('b.txt', everyByte, { mediaType: 'text/plain' }));
    await store.saveArtifact(save('b.txt', everyByte, { mediaType: 'text/markdown' }));
    await store.saveArtifact(save('a.txt', everyByte));
    await store.saveArtifact(save('user:c.png', everyByte, { scope: 'user:shop:alice', mediaType: 'image/png' }));
    await store.saveArtifact(save('other.txt', everyByte, { scope: 'session:s2' }));
    const listed = await store.listArtifacts(['session:s1', 'user:shop:alice']);
    expect(listed.map((each) => [each.name, each.version, each.mediaType])).toEqual([
      ['a.txt', 1, 'application/octet-stream'],
      ['b.txt', 2, 'text/markdown'],
      ['user:c.png', 1, 'image/png'],
    ]);
    expect(await store.listArtifacts([])).toEqual([]);
  });

  it('saves once per key: saving again with the same key returns the version saved then', async () => {
    const first = await store.saveArtifact(save('report.csv', everyByte, { key: 'r1:c1.1#0' }));
    const again = await store.saveArtifact(save('report.csv', new Uint8Array([1]), { key: 'r1:c1.1#0', savedAt: 9 }));
    expect(again).toEqual(first);
    const next = await store.saveArtifact(save('report.csv', new Uint8Array([1]), { key: 'r1:c1.1#1' }));
    expect(next.version).toBe(2);
    expect((await store.artifactVersions('session:s1', 'report.csv')).map((each) => each.version)).toEqual([1, 2]);
  });

  it('gives saves made at once versions of their own', async () => {
    const saved = await Promise.all(
      Array.from({ length: 8 }, (_, index) => store.saveArtifact(save('log.txt', new Uint8Array([index])))),
    );
    expect(saved.map((each) => each.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('deletes every version of a name, and a deleted session takes its artifacts (not its principal’s)', async () => {
    await store.saveArtifact(save('a.txt', everyByte));
    await store.saveArtifact(save('a.txt', everyByte));
    await store.saveArtifact(save('b.txt', everyByte));
    expect(await store.deleteArtifact('session:s1', 'a.txt')).toBe(2);
    expect(await store.deleteArtifact('session:s1', 'a.txt')).toBe(0);
    expect(await store.loadArtifact('session:s1', 'a.txt')).toBeUndefined();
    // A name saved again after its deletion starts over.
    expect((await store.saveArtifact(save('a.txt', everyByte))).version).toBe(1);

    await store.createSession({
      id: 's1',
      agent: 'support',
      app: 'shop',
      principal: 'alice',
      createdAt: 1,
      updatedAt: 1,
      runs: 0,
    });
    await store.saveArtifact(save('user:keep.txt', everyByte, { scope: 'user:shop:alice' }));
    expect(await store.deleteSession('s1')).toBe(true);
    expect(await store.listArtifacts(['session:s1'])).toEqual([]);
    expect((await store.listArtifacts(['user:shop:alice'])).map((each) => each.name)).toEqual(['user:keep.txt']);
  });
});
