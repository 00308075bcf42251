/** A label on text or on a run, such as `outside`. */
export type Label = string;

/** The label for text nobody on the agent's side wrote: web pages, emails, worker results. */
export const OUTSIDE: Label = 'outside';

/** The union of label lists, sorted, without duplicates. */
export function mergeLabels(...lists: ReadonlyArray<readonly Label[] | undefined>): Label[] {
  const all = new Set<Label>();
  for (const list of lists) {
    if (list) for (const label of list) all.add(label);
  }
  return [...all].sort();
}

/** Throws unless `label` is a non-empty string. */
export function checkLabel(label: unknown): void {
  if (typeof label !== 'string' || label.length === 0) {
    throw new TypeError(`label must be a non-empty string, got ${JSON.stringify(label)}`);
  }
}
