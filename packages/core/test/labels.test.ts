import { annotate, call, mergeLabels, OUTSIDE, ok, tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { contextOptions } from './helpers.js';

describe('labels on answers', () => {
  it('OUTSIDE is "outside"', () => {
    expect(OUTSIDE).toBe('outside');
  });

  it('mergeLabels unions, sorts and de-duplicates', () => {
    expect(mergeLabels(['b', 'a'], undefined, ['a', 'c'], [])).toEqual(['a', 'b', 'c']);
    expect(mergeLabels()).toEqual([]);
  });

  it("carries the answer's labels", async () => {
    const fetchPage = tool({ name: 'fetch_page', description: 'd', run: () => ok('<html>', { labels: ['outside'] }) });
    expect((await call([fetchPage], { id: 'c', name: 'fetch_page' }, contextOptions())).labels).toEqual(['outside']);
  });

  it("carries the tool's labels annotation on every answer: ok, error, park and thrown", async () => {
    for (const run of [() => 'fine', () => ok('fine'), () => Promise.reject(new Error('x'))]) {
      const search = tool({ name: 'search', description: 'd', run, annotations: { labels: ['outside'] } });
      expect((await call([search], { id: 'c', name: 'search' }, contextOptions())).labels).toEqual(['outside']);
    }
  });

  it('merges labels from the answer, the context and the annotation, sorted and without duplicates', async () => {
    const search = tool({
      name: 'search',
      description: 'd',
      annotations: { labels: ['web', 'outside'] },
      run: (_a, ctx) => {
        ctx.addLabels('zeta', 'outside');
        return ok('results', { labels: ['outside', 'ads', 'web'] });
      },
    });
    expect((await call([search], { id: 'c', name: 'search' }, contextOptions())).labels).toEqual([
      'ads',
      'outside',
      'web',
      'zeta',
    ]);
  });

  it('annotating labels later changes the answers of the new tool only', async () => {
    const plain = tool({ name: 'plain', description: 'd', run: () => 'x' });
    const labelled = annotate(plain, { labels: ['outside'] });
    expect((await call([plain], { id: 'c', name: 'plain' }, contextOptions())).labels).toEqual([]);
    expect((await call([labelled], { id: 'c', name: 'plain' }, contextOptions())).labels).toEqual(['outside']);
  });
});
