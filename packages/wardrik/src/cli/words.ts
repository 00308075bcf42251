/**
 * Splits a line into words as a POSIX shell would for simple input: spaces separate words,
 * single quotes keep everything literally, double quotes keep spaces (and `\"`, `\\` inside),
 * a backslash outside quotes escapes the next character. An unclosed quote is an error naming it.
 *
 * @example
 * ```ts
 * splitWords(`deny --reason 'too much'`) // ['deny', '--reason', 'too much']
 * ```
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (char === "'" || char === '"') {
      const end = closingQuote(line, index);
      if (end === -1) throw new Error(`unclosed ${char === "'" ? 'single' : 'double'} quote`);
      const inside = line.slice(index + 1, end);
      word += char === "'" ? inside : inside.replace(/\\(["\\])/g, '$1');
      inWord = true;
      index = end;
    } else if (char === '\\' && index + 1 < line.length) {
      word += line[index + 1];
      inWord = true;
      index += 1;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Where the quote opened at `start` closes, or -1. */
function closingQuote(line: string, start: number): number {
  const quote = line[start];
  for (let index = start + 1; index < line.length; index++) {
    if (quote === '"' && line[index] === '\\') index += 1;
    else if (line[index] === quote) return index;
  }
  return -1;
}
