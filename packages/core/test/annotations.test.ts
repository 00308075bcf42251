import {
  annotate,
  annotation,
  checkAnnotations,
  getPrivate,
  putPrivate,
  repeatable,
  ToolDefinitionError,
  type ToolOptions,
  tool,
  updatePrivate,
} from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { thrown } from './helpers.js';

const lookup = tool({ name: 'lookup', description: 'Look a customer up.', run: () => ({ found: true }) });

function withAnnotations(annotations: Record<string, unknown>) {
  return tool({ name: 'lookup', description: 'Look up.', run: () => null, annotations } as unknown as ToolOptions);
}

describe('annotations', () => {
  it('a tool that sets none has none of them, and is not repeatable', () => {
    expect(lookup.annotations).toEqual({});
    for (const key of [
      'readOnly',
      'destructive',
      'idempotent',
      'openWorld',
      'timeout',
      'resources',
      'labels',
    ] as const) {
      expect(annotation(lookup, key, 'unset')).toBe('unset');
    }
    expect(repeatable(lookup)).toBe(false);
  });

  it('keeps every kind of annotation', () => {
    const resources = (args: Record<string, unknown>) => [String(args.path)];
    const built = tool({
      name: 'write_file',
      description: 'Write a file.',
      run: () => null,
      annotations: {
        readOnly: false,
        destructive: true,
        idempotent: false,
        openWorld: false,
        timeout: 2_000,
        resources,
        labels: ['secret'],
      },
    });
    expect(annotation(built, 'readOnly', true)).toBe(false);
    expect(annotation(built, 'destructive', false)).toBe(true);
    expect(annotation(built, 'idempotent', true)).toBe(false);
    expect(annotation(built, 'openWorld', true)).toBe(false);
    expect(annotation(built, 'timeout', 30_000)).toBe(2_000);
    expect(annotation(built, 'resources', null)?.({ path: '/tmp/a' })).toEqual(['/tmp/a']);
    expect(annotation(built, 'labels', [])).toEqual(['secret']);
  });

  it('an explicit false is set (not absent): annotation returns false, not the fallback', () => {
    const built = withAnnotations({ readOnly: false });
    expect(annotation(built, 'readOnly', 'unset')).toBe(false);
  });

  it('drops annotations given as undefined', () => {
    expect(withAnnotations({ readOnly: undefined }).annotations).toEqual({});
  });

  it.each([
    ['destructiv', 'a misspelt destructive'],
    ['readonly', 'the wrong case'],
    ['readOnlyHint', "MCP's spelling"],
    ['title', 'a key that is not an annotation'],
  ])('rejects the unknown key %s (%s), naming it', (key) => {
    const error = thrown(() => withAnnotations({ [key]: true }));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`annotations.${key}: unknown annotation`);
    expect(error.message).toContain('readOnly, destructive, idempotent, openWorld, timeout, resources, labels');
  });

  it.each(['readOnly', 'destructive', 'idempotent', 'openWorld'])('rejects a %s that is not a boolean', (key) => {
    expect(thrown(() => withAnnotations({ [key]: 'yes' })).message).toContain(
      `annotations.${key}: expected a boolean, got string`,
    );
    expect(() => withAnnotations({ [key]: 1 })).toThrow(ToolDefinitionError);
  });

  it.each([['30s'], [0], [-5], [Number.NaN], [Number.POSITIVE_INFINITY], [null]])('rejects timeout %s', (timeout) => {
    expect(thrown(() => withAnnotations({ timeout })).message).toContain(
      'annotations.timeout: expected a positive number of milliseconds',
    );
  });

  it.each([[['/tmp']], ['/tmp'], [{}]])('rejects resources that are not a function (%j)', (resources) => {
    expect(thrown(() => withAnnotations({ resources })).message).toContain(
      'annotations.resources: expected a function of the arguments',
    );
  });

  it.each([['outside'], [[1]], [['']], [[null]], [{ 0: 'outside' }]])('rejects labels %j', (labels) => {
    expect(thrown(() => withAnnotations({ labels })).message).toContain(
      'annotations.labels: expected an array of non-empty strings',
    );
  });

  it('rejects annotations that are not an object', () => {
    expect(thrown(() => withAnnotations(['readOnly'] as never)).message).toContain('expected an object, got array');
    expect(() => checkAnnotations(null)).toThrow('annotations: expected an object, got null');
  });
});

describe('annotate', () => {
  it('returns a new tool and leaves the old one unchanged', () => {
    const safe = annotate(lookup, { readOnly: true, timeout: 2_000 });
    expect(safe).not.toBe(lookup);
    expect(safe.annotations).toEqual({ readOnly: true, timeout: 2_000 });
    expect(lookup.annotations).toEqual({});
    expect(repeatable(lookup)).toBe(false);
    expect(repeatable(safe)).toBe(true);
    expect(Object.isFrozen(safe)).toBe(true);
    expect(Object.isFrozen(safe.annotations)).toBe(true);
  });

  it('keeps everything else of the tool', () => {
    const titled = tool({
      name: 'lookup',
      title: 'Lookup',
      description: 'd',
      run: () => 1,
      schema: { q: { type: 'string' } },
    });
    const marked = putPrivate(titled, 'owner', 1);
    const annotated = annotate(marked, { openWorld: true });
    expect(annotated.name).toBe('lookup');
    expect(annotated.title).toBe('Lookup');
    expect(annotated.run).toBe(titled.run);
    expect(annotated.schema).toBe(titled.schema);
    expect(getPrivate(annotated, 'owner', 0)).toBe(1);
  });

  it('replaces annotations with the same key and keeps the others', () => {
    const first = annotate(lookup, { readOnly: true, timeout: 1_000, labels: ['outside'] });
    const second = annotate(first, { timeout: 5_000, idempotent: true });
    expect(second.annotations).toEqual({ readOnly: true, timeout: 5_000, labels: ['outside'], idempotent: true });
    expect(first.annotations).toEqual({ readOnly: true, timeout: 1_000, labels: ['outside'] });
  });

  it('checks what it adds', () => {
    expect(thrown(() => annotate(lookup, { destructiv: true } as never)).message).toContain(
      'annotations.destructiv: unknown annotation',
    );
    expect(() => annotate(lookup, { timeout: -1 })).toThrow(ToolDefinitionError);
  });
});

describe('repeatable', () => {
  it.each([
    [{}, false],
    [{ readOnly: true }, true],
    [{ idempotent: true }, true],
    [{ readOnly: true, idempotent: true }, true],
    [{ readOnly: false, idempotent: false }, false],
    [{ destructive: false }, false],
    [{ openWorld: false }, false],
  ])('%j → %s', (annotations, expected) => {
    expect(repeatable(annotate(lookup, annotations))).toBe(expected);
  });
});

describe('private data', () => {
  const mine = Symbol('my-package');
  const theirs = Symbol('their-package');

  it('getPrivate gives the fallback when nothing is stored', () => {
    expect(getPrivate(lookup, mine, 'none')).toBe('none');
  });

  it('putPrivate returns a new tool and leaves the old one unchanged', () => {
    const marked = putPrivate(lookup, mine, { region: 'eu' });
    expect(marked).not.toBe(lookup);
    expect(getPrivate(marked, mine, null)).toEqual({ region: 'eu' });
    expect(getPrivate(lookup, mine, null)).toBeNull();
    expect(Object.isFrozen(marked)).toBe(true);
    expect(marked.annotations).toBe(lookup.annotations);
  });

  it('keeps each owner apart', () => {
    const marked = putPrivate(putPrivate(lookup, mine, 1), theirs, 2);
    expect(getPrivate(marked, mine, 0)).toBe(1);
    expect(getPrivate(marked, theirs, 0)).toBe(2);
    expect(getPrivate(marked, Symbol('my-package'), 0)).toBe(0);
  });

  it('stores falsy values (not confused with "none")', () => {
    const marked = putPrivate(lookup, mine, undefined);
    expect(getPrivate(marked, mine, 'fallback')).toBeUndefined();
    expect(getPrivate(putPrivate(lookup, mine, 0), mine, 9)).toBe(0);
  });

  it('updatePrivate puts the fallback first, then updates, each time a new tool', () => {
    const once = updatePrivate(lookup, mine, 1, (n: number) => n + 1);
    expect(getPrivate(once, mine, 0)).toBe(1);
    const twice = updatePrivate(once, mine, 1, (n: number) => n + 1);
    expect(getPrivate(twice, mine, 0)).toBe(2);
    expect(getPrivate(once, mine, 0)).toBe(1);
    expect(getPrivate(lookup, mine, 0)).toBe(0);
  });
});
