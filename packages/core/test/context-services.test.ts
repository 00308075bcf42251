import {
  type ArtifactInfo,
  type ArtifactSource,
  call,
  type Label,
  type MemoryMatch,
  OUTSIDE,
  tool,
} from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { context, contextOptions } from './helpers.js';

const match = (text: string, labels: Label[]): MemoryMatch => ({
  id: text,
  text,
  role: 'user',
  labels,
  at: 1,
  score: 1,
});

/** An artifact source keeping what it is given, for looking at. */
function recordingSource() {
  const saves: { name: string; labels: readonly Label[]; saveIndex: number }[] = [];
  const relabels: { name: string; version: number; labels: readonly Label[] }[] = [];
  const info = (name: string, labels: readonly Label[]): ArtifactInfo => ({
    name,
    version: 1,
    mediaType: 'text/plain',
    size: 1,
    labels,
    savedAt: 1,
    savedBy: 'run-1',
  });
  const source: ArtifactSource = {
    save: async (name, _data, options) => {
      saves.push({ name, labels: options.labels, saveIndex: options.saveIndex });
      return info(name, options.labels);
    },
    load: async (name) => ({ ...info(name, [OUTSIDE]), data: new Uint8Array([104, 105]) }),
    list: async () => [info('a.txt', []), info('b.txt', ['secret'])],
    versions: async (name) => [info(name, [])],
    delete: async () => true,
    relabel: async (name, version, labels) => {
      relabels.push({ name, version, labels });
    },
  };
  return { source, saves, relabels };
}

describe('context.memory', () => {
  it("gives the call's answer the labels of the memories found", async () => {
    const recall = tool({
      name: 'recall',
      description: 'Recalls.',
      run: async (_args, ctx) => (await ctx.memory.search('shop')).map((found) => found.text),
    });
    const memory = { search: async () => [match('moved to Lisbon', [OUTSIDE]), match('likes tea', [])] };
    const answer = await call([recall], { id: 'c1', name: 'recall', arguments: {} }, context({ memory }));
    expect(answer).toMatchObject({ type: 'ok', value: ['moved to Lisbon', 'likes tea'], labels: [OUTSIDE] });
  });

  it('without a memory service, rejects saying so', async () => {
    await expect(context().memory.search('tea')).rejects.toThrow('this call runs without a memory service');
  });
});

describe('context.artifacts', () => {
  it("saves with the run's labels, the call's so far and the tool's, counting the call's saves", async () => {
    const { source, saves } = recordingSource();
    const ctx = context({ artifacts: source, labels: ['pii'], toolLabels: ['vendor'] });
    await ctx.artifacts.save('a.txt', 'hi', { mediaType: 'text/plain' });
    ctx.addLabels(OUTSIDE);
    await ctx.artifacts.save('b.bin', new Uint8Array([1]), { mediaType: 'application/octet-stream', labels: ['x'] });
    expect(saves).toEqual([
      { name: 'a.txt', labels: ['pii', 'vendor'], saveIndex: 0 },
      { name: 'b.bin', labels: [OUTSIDE, 'pii', 'vendor', 'x'], saveIndex: 1 },
    ]);
  });

  it('hands the labels of what it loads, lists or reads the versions of to the call', async () => {
    const { source } = recordingSource();
    const loading = context({ artifacts: source });
    const loaded = await loading.artifacts.load('page.html');
    expect(new TextDecoder().decode(loaded?.data)).toBe('hi');
    expect(loading.addedLabels).toEqual([OUTSIDE]);
    const listing = context({ artifacts: source });
    expect((await listing.artifacts.list()).map((each) => each.name)).toEqual(['a.txt', 'b.txt']);
    expect(listing.addedLabels).toEqual(['secret']);
    const versions = context({ artifacts: source });
    await versions.artifacts.versions('a.txt');
    expect(versions.addedLabels).toEqual([]);
  });

  it("gives what a call saved its answer's labels, once it answered", async () => {
    const { source, relabels } = recordingSource();
    const ctx = context({ artifacts: source });
    await ctx.artifacts.save('page.html', '<p>', { mediaType: 'text/html' });
    await ctx.artifacts.labelSaves([]);
    expect(relabels).toEqual([]);
    await ctx.artifacts.labelSaves([OUTSIDE]);
    expect(relabels).toEqual([{ name: 'page.html', version: 1, labels: [OUTSIDE] }]);
  });

  it('refuses data that is not bytes or text, and calls without a service, saying why', async () => {
    const { source } = recordingSource();
    const ctx = context({ artifacts: source });
    await expect(ctx.artifacts.save('a', 42 as unknown as string, { mediaType: 'text/plain' })).rejects.toThrow(
      'data must be a Uint8Array or a string, got number',
    );
    await expect(context(contextOptions()).artifacts.load('a')).rejects.toThrow(
      'this call runs without an artifact service',
    );
    await expect(context().artifacts.delete('a')).rejects.toThrow('without an artifact service');
  });
});
