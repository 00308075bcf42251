/*
 * Characters that change what a person reads without being seen. A right-to-left override
 * (U+202E) turns `"R1\u202Eabc123"` into `"R1,"321cba` on screen and `invoice\u202Efdp.exe` into
 * "invoiceexe.pdf"; a zero-width space splits a word nobody sees split; tag characters carry a
 * whole hidden sentence. Wherever a call's arguments, a reason, state or a message is shown to a
 * person who decides on it, these are shown as what they are (`⟨U+202E⟩`) and the place is
 * flagged. No I/O and no dependencies: the console imports this file into the browser.
 */

/**
 * Any character that may be hidden: controls (C0, DEL, C1), format characters (bidi embeddings,
 * overrides and isolates, zero-width characters, U+061C, U+FEFF, U+00AD, tags U+E0000–U+E007F…),
 * lone surrogates, the line and paragraph separators, and every other default-ignorable code
 * point (variation selectors, Hangul fillers, the word joiner…). Tab, newline and a single
 * presentation selector after a character are let through by {@link splitInvisible}.
 */
const MAYBE_HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** Tab and newline: every display keeps them as layout. */
const LAYOUT = new Set([0x09, 0x0a]);

/** Text (U+FE0E) and emoji (U+FE0F) presentation: kept, once, right after a visible character (❤️). */
const PRESENTATION = new Set([0xfe0e, 0xfe0f]);

/** The deepest a value is searched by {@link hasInvisible} (deeper parts are taken as holding some). */
const MAX_DEPTH = 200;

/** An invisible character, with how it is shown: `{ codePoint: 0x202e, shown: '⟨U+202E⟩' }`. */
export interface InvisibleCharacter {
  readonly codePoint: number;
  readonly shown: string;
}

/** A piece of text: as it is (a string), or an invisible character to show visibly. */
export type TextPart = string | InvisibleCharacter;

/**
 * How an invisible character is shown: its code point between angle brackets.
 *
 * @example
 * ```ts
 * showCodePoint(0x202e) // '⟨U+202E⟩'
 * showCodePoint(0xe0041) // '⟨U+E0041⟩'
 * ```
 */
export function showCodePoint(codePoint: number): string {
  return `⟨U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/**
 * `text` split into the runs shown as they are and the invisible characters in it, in order, so
 * that a display can set the invisible ones apart (the console marks them). Joining the parts'
 * text gives {@link revealInvisible}'s result.
 *
 * @example
 * ```ts
 * splitInvisible('R1\u202Eabc') // ['R1', { codePoint: 0x202e, shown: '⟨U+202E⟩' }, 'abc']
 * ```
 */
export function splitInvisible(text: string): TextPart[] {
  if (!MAYBE_HIDDEN.test(text)) return text === '' ? [] : [text];
  const parts: TextPart[] = [];
  let plain = '';
  // Whether the character before was one a presentation selector may follow.
  let afterVisible = false;
  for (const character of text) {
    const codePoint = character.codePointAt(0) as number;
    const kept =
      LAYOUT.has(codePoint) || (PRESENTATION.has(codePoint) && afterVisible) || !MAYBE_HIDDEN.test(character);
    if (kept) {
      plain += character;
      afterVisible = !LAYOUT.has(codePoint) && !PRESENTATION.has(codePoint);
      continue;
    }
    if (plain !== '') parts.push(plain);
    plain = '';
    parts.push({ codePoint, shown: showCodePoint(codePoint) });
    afterVisible = false;
  }
  if (plain !== '') parts.push(plain);
  return parts;
}

/**
 * `text` with every invisible character written out visibly as `⟨U+XXXX⟩` (tab and newline
 * kept). Text without any comes back as it was.
 *
 * @example
 * ```ts
 * revealInvisible('invoice\u202Efdp.exe') // 'invoice⟨U+202E⟩fdp.exe'
 * revealInvisible('line one\nline two') // unchanged
 * ```
 */
export function revealInvisible(text: string): string {
  if (!MAYBE_HIDDEN.test(text)) return text;
  return splitInvisible(text)
    .map((part) => (typeof part === 'string' ? part : part.shown))
    .join('');
}

/**
 * Whether a string, or any string or object key inside a JSON-like value (arrays and plain
 * objects, searched deeply), holds an invisible character: what a display flags.
 *
 * @example
 * ```ts
 * hasInvisible({ order_id: 'R1\u202Eabc123' }) // true
 * hasInvisible(['tea', { note: 'two\nlines' }]) // false
 * ```
 */
export function hasInvisible(value: unknown): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: each, depth } = next;
    if (typeof each === 'string') {
      if (textHasInvisible(each)) return true;
    } else if (typeof each === 'object' && each !== null) {
      if (depth >= MAX_DEPTH) return true;
      if (Array.isArray(each)) {
        for (const item of each) pending.push({ value: item, depth: depth + 1 });
      } else {
        for (const [key, item] of Object.entries(each)) {
          if (textHasInvisible(key)) return true;
          pending.push({ value: item, depth: depth + 1 });
        }
      }
    }
  }
  return false;
}

/**
 * `text` with every invisible character written as a `\uXXXX` escape (a surrogate pair for those
 * past U+FFFF): for JSON put in an editor, where `⟨U+202E⟩` would change the value but the escape
 * parses back to the very same string. JSON from `JSON.stringify` stays valid JSON of the same
 * value, since invisible characters can only be inside its strings.
 *
 * @example
 * ```ts
 * escapeInvisible(JSON.stringify({ order_id: 'R1\u202Eabc' })) // '{"order_id":"R1\\u202eabc"}'
 * ```
 */
export function escapeInvisible(text: string): string {
  if (!MAYBE_HIDDEN.test(text)) return text;
  return splitInvisible(text)
    .map((part) => {
      if (typeof part === 'string') return part;
      const units = String.fromCodePoint(part.codePoint);
      let escaped = '';
      for (let index = 0; index < units.length; index += 1) {
        escaped += `\\u${units.charCodeAt(index).toString(16).padStart(4, '0')}`;
      }
      return escaped;
    })
    .join('');
}

function textHasInvisible(text: string): boolean {
  return MAYBE_HIDDEN.test(text) && splitInvisible(text).some((part) => typeof part !== 'string');
}
