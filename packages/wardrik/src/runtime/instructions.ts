import { type Label, mergeLabels, type StateSource, stateKeyProblem } from '@wardrik/core';

/**
 * `{key}`, `{user:key}`, `{app:key}`, `{temp:key}`, with `?` before the brace for an optional one
 * (ADK's spelling). Anything else in braces (JSON, code) is left as it is.
 */
const TEMPLATE = /\{((?:user:|app:|temp:)?[A-Za-z_][A-Za-z0-9_.-]*)(\??)\}/g;

/** Whether instructions name state: only then are they rendered before each step. */
export function hasTemplates(instructions: string): boolean {
  TEMPLATE.lastIndex = 0;
  return TEMPLATE.test(instructions);
}

/**
 * Instructions with each `{key}` replaced by the state's value (a string as it is, anything else
 * as JSON; a missing key as nothing), and the labels of the values used: the model that reads
 * them reads whatever they carry.
 *
 * @example
 * ```ts
 * renderInstructions('Help {user:name}. Cart: {cart?}', source) // { text: 'Help Ann. Cart: ["a"]', labels: [] }
 * ```
 */
export function renderInstructions(template: string, source: StateSource): { text: string; labels: Label[] } {
  let labels: Label[] = [];
  const text = template.replace(TEMPLATE, (_, key: string) => {
    if (stateKeyProblem(key) !== undefined) return '';
    const entry = source.entry(key);
    if (entry === undefined) return '';
    if (entry.labels.length > 0) labels = mergeLabels(labels, entry.labels);
    return typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value);
  });
  return { text, labels };
}
