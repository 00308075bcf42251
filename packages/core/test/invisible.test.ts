import { escapeInvisible, hasInvisible, revealInvisible, showCodePoint, splitInvisible } from '@wardrik/core';
import { describe, expect, it } from 'vitest';

/** Every character the review named, and the classes around them. */
const HIDDEN: readonly number[] = [
  ...range(0x202a, 0x202e), // bidi embeddings and overrides
  ...range(0x2066, 0x2069), // bidi isolates
  ...range(0x200b, 0x200f), // zero-width space, joiners, LRM/RLM
  0x2028,
  0x2029,
  0x061c, // Arabic letter mark
  0xfeff, // zero-width no-break space (BOM)
  0x00ad, // soft hyphen
  ...range(0x00, 0x08),
  ...range(0x0b, 0x1f), // C0 controls, tab and newline aside (CR and ESC included)
  0x7f,
  ...range(0x80, 0x9f), // C1 controls
  ...range(0xe0000, 0xe007f), // tag characters
  0x2060, // word joiner
  0x180e, // Mongolian vowel separator
  0x3164, // Hangul filler
  0xfe00, // a variation selector that is not a presentation selector
  0xe0100, // a variation selector past U+FFFF
  0xd800, // a lone surrogate
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

describe('invisible characters', () => {
  it('the review’s cases read as what they hold', () => {
    expect(revealInvisible('R1\u202Eabc123')).toBe('R1⟨U+202E⟩abc123');
    expect(revealInvisible(JSON.stringify({ order_id: 'R1\u202Eabc123' }))).toBe('{"order_id":"R1⟨U+202E⟩abc123"}');
    expect(revealInvisible('invoice\u202Efdp.exe')).toBe('invoice⟨U+202E⟩fdp.exe');
  });

  it('shows every hidden character as ⟨U+XXXX⟩, and flags the text', () => {
    for (const codePoint of HIDDEN) {
      const text = `a${String.fromCodePoint(codePoint)}b`;
      expect(revealInvisible(text), `U+${codePoint.toString(16)}`).toBe(`a${showCodePoint(codePoint)}b`);
      expect(hasInvisible(text), `U+${codePoint.toString(16)}`).toBe(true);
    }
    expect(showCodePoint(0x7)).toBe('⟨U+0007⟩');
    expect(showCodePoint(0xe0041)).toBe('⟨U+E0041⟩');
  });

  it('keeps tab, newline, ordinary text in any script and a single emoji presentation selector', () => {
    for (const text of ['line one\n\tline two', 'שלום עולם', 'مرحبا', 'naïve café 東京', 'I ❤️ tea', '☺︎', '']) {
      expect(revealInvisible(text)).toBe(text);
      expect(hasInvisible(text)).toBe(false);
    }
    // A presentation selector with nothing visible before it, or a second one, is hidden data.
    expect(revealInvisible('\uFE0Fx')).toBe('⟨U+FE0F⟩x');
    expect(revealInvisible('x\uFE0F\uFE0F')).toBe('x\uFE0F⟨U+FE0F⟩');
  });

  it('splits text into the parts shown as they are and the characters to set apart', () => {
    expect(splitInvisible('R1\u202Eabc')).toEqual(['R1', { codePoint: 0x202e, shown: '⟨U+202E⟩' }, 'abc']);
    expect(splitInvisible('plain')).toEqual(['plain']);
    expect(splitInvisible('')).toEqual([]);
    expect(splitInvisible('\u{E0041}\u{E0042}')).toEqual([
      { codePoint: 0xe0041, shown: '⟨U+E0041⟩' },
      { codePoint: 0xe0042, shown: '⟨U+E0042⟩' },
    ]);
  });

  it('finds them in keys and values of nested values', () => {
    expect(hasInvisible({ order_id: 'R1\u202Eabc123' })).toBe(true);
    expect(hasInvisible({ ['cart\u200B']: 1 })).toBe(true);
    expect(hasInvisible([1, true, null, { deep: [['x\u2066']] }])).toBe(true);
    expect(hasInvisible({ order_id: 'A1', amount: 120, lines: ['a\nb'] })).toBe(false);
    expect(hasInvisible(undefined)).toBe(false);
    expect(hasInvisible(42)).toBe(false);
  });

  it('escapes them for an editor so that the JSON parses back to the same value', () => {
    const value = { order_id: 'R1\u202Eabc123', tag: 'x\u{E0041}', note: 'a\u00ADb' };
    const escaped = escapeInvisible(JSON.stringify(value, null, 2));
    expect(escaped).toContain('"R1\\u202eabc123"');
    expect(escaped).toContain('"x\\udb40\\udc41"');
    expect(hasInvisible(escaped)).toBe(false);
    expect(JSON.parse(escaped)).toEqual(value);
    expect(escapeInvisible('plain')).toBe('plain');
  });
});
