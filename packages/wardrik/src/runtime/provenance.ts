// Provenance of a call's arguments (policy option `provenance`): whether every value a call would
// send was written by the user — it appears, as written, in the run's input. A call whose arguments
// all come from there may pass the gates that hold calls only because the run read outside text.
import type { Arguments, JsonSchema, Tool } from '@wardrik/core';

/** What the user wrote, as texts and the numbers written in them. */
export interface ProvenanceSources {
  readonly texts: readonly string[];
  readonly numbers: ReadonlySet<number>;
}

const WORD = /[\p{L}\p{N}_]/u;
const isWord = (character: string | undefined) => character !== undefined && WORD.test(character);

/**
 * The numbers written in `text`: digits with an optional decimal part after a point, thousands
 * grouped by commas (`1,050`), a leading minus when it is not a hyphen between words or digits.
 * A number glued to letters or digits (`GB29…`, `x2`) is not one.
 */
export function numbersIn(text: string): number[] {
  const found: number[] = [];
  const pattern = /(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?/g;
  for (const match of text.matchAll(pattern)) {
    const start = match.index;
    const end = start + match[0].length;
    const before = text[start - 1];
    const after = text[end];
    if (isWord(before) || isWord(after)) continue;
    // Part of a longer number: `1.5.2`, `3,5`.
    if ((before === '.' || before === ',') && /\d/.test(text[start - 2] ?? '')) continue;
    if ((after === '.' || after === ',') && /\d/.test(text[end + 1] ?? '')) continue;
    const value = Number(match[0].replaceAll(',', ''));
    const negative = before === '-' && !isWord(text[start - 2]);
    found.push(negative ? -value : value);
  }
  return found;
}

/** Whether `value` occurs in `text` as written (case and every character), not inside a longer word. */
export function occursIn(value: string, text: string): boolean {
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    const startsWord = isWord(value[0]) && isWord(text[at - 1]);
    const endsWord = isWord(value[value.length - 1]) && isWord(text[at + value.length]);
    if (!startsWord && !endsWord) return true;
  }
  return false;
}

function schemaBranches(schema: JsonSchema | undefined): JsonSchema[] {
  if (!schema || typeof schema !== 'object') return [];
  const branches = [schema];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = (schema as Record<string, unknown>)[key];
    if (Array.isArray(list)) for (const each of list) branches.push(...schemaBranches(each as JsonSchema));
  }
  return branches;
}

/** The schema a property is declared with at this place, if it is declared. */
function declared(schema: JsonSchema | undefined, key: string): JsonSchema | undefined | false {
  for (const branch of schemaBranches(schema)) {
    const properties = (branch as { properties?: Record<string, JsonSchema> }).properties;
    if (properties && Object.hasOwn(properties, key)) return properties[key];
  }
  return false;
}

function itemsOf(schema: JsonSchema | undefined): JsonSchema | undefined {
  for (const branch of schemaBranches(schema)) {
    const items = (branch as { items?: unknown }).items;
    if (items && typeof items === 'object' && !Array.isArray(items)) return items as JsonSchema;
  }
  return undefined;
}

/**
 * Whether every value in `value` comes from `sources`: a string occurs in one of their texts as
 * written (see `occursIn`; the empty string carries nothing and passes), a number is one of their
 * numbers, null passes, an array or object passes when each of its items does — and each of an
 * object's keys is either declared by `schema` at that place or occurs in the texts like a string.
 * A boolean never passes: nothing in a text says which one the user meant.
 */
export function comesFrom(value: unknown, sources: ProvenanceSources, schema?: JsonSchema): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value === '' || sources.texts.some((text) => occursIn(value, text));
  if (typeof value === 'number') return Number.isFinite(value) && sources.numbers.has(value);
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    return value.every((item) => comesFrom(item, sources, items));
  }
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).every(([key, item]) => {
      const at = declared(schema, key);
      if (at === false && !comesFrom(key, sources)) return false;
      return comesFrom(item, sources, at || undefined);
    });
  }
  return false;
}

function collect(value: string, texts: string[], numbers: Set<number>): void {
  texts.push(value);
  for (const number of numbersIn(value)) numbers.add(number);
}

/**
 * The sources of a run: its input, the user's message — unless it is a child run, whose input a
 * model wrote. Nothing else counts: not earlier turns of a session, not the model's words, and not
 * tool answers, even unlabelled ones (with them, an injected instruction can pick which of the
 * user's own values goes where: AgentDojo's banking user_task_15 × injection_task_4 redirects a
 * standing order the user did not name, its id read from get_scheduled_transactions, to the IBAN
 * the user typed for another one).
 */
export function provenanceSources(run: { readonly input: string; readonly isChild: boolean }): ProvenanceSources {
  const texts: string[] = [];
  const numbers = new Set<number>();
  if (!run.isChild) collect(run.input, texts, numbers);
  return { texts, numbers };
}

/** Whether every value of `args` (a call to `tool`) comes from the user's message in `run`. */
export function argumentsFromTheUser(
  args: unknown,
  tool: Tool<Arguments>,
  run: { readonly input: string; readonly parent?: unknown },
): boolean {
  const sources = provenanceSources({ input: run.input, isChild: run.parent !== undefined });
  return comesFrom(args, sources, tool.schema.jsonSchema);
}
