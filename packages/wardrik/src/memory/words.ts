/** The longest memory query, in characters. */
export const MAX_MEMORY_QUERY_LENGTH = 1_000;
/** The most words a query is searched for (its first distinct ones). */
export const MAX_MEMORY_QUERY_WORDS = 32;

/** Words too common to tell memories apart: left out of a query that has others. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can do does for from had has have he her his how i if in into is it its me my ' +
    'no not of on or our she so that the their them then there these they this to was we were what when where ' +
    'which who why will with you your'
  ).split(' '),
);

/** The words of a text: runs of letters and digits, lower case (what every search matches on). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The words a query searches for: its distinct words, without stop words (unless it has nothing
 * else), at most {@link MAX_MEMORY_QUERY_WORDS}. Throws a TypeError naming the problem for a query
 * that is not a string, is empty, is over {@link MAX_MEMORY_QUERY_LENGTH} characters or holds no
 * word.
 */
export function queryWords(query: unknown): string[] {
  if (typeof query !== 'string') throw new TypeError(`query: expected words to search for, got ${typeof query}`);
  if (query.trim() === '') throw new TypeError('query: expected words to search for, got an empty query');
  if (query.length > MAX_MEMORY_QUERY_LENGTH) {
    throw new TypeError(
      `query: ${query.length} characters is too long: a query is at most ${MAX_MEMORY_QUERY_LENGTH} characters (a few words)`,
    );
  }
  const words = [...new Set(wordsOf(query))];
  if (words.length === 0) {
    throw new TypeError(`query: ${JSON.stringify(query.slice(0, 80))} holds no word to search for (letters or digits)`);
  }
  const kept = words.filter((word) => !STOP_WORDS.has(word));
  return (kept.length > 0 ? kept : words).slice(0, MAX_MEMORY_QUERY_WORDS);
}

/** A word's rough stem for the in-memory scorer (`refunds` → `refund`, `delivered` → `deliver`). */
export function stemOf(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}
