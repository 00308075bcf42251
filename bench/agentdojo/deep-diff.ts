// The part of Python's DeepDiff (ignore_order=False) that AgentDojo's state checks read: which kinds
// of change there are and at which paths. Paths are written as DeepDiff writes them:
// `root.calendar.events['5'].start_time` — a model's field after a dot, a dict's key in quotes,
// a list's index in brackets. Which objects are dicts (keyed by data) rather than models (fixed
// fields) is said by the name of the field that holds them.

/** Fields whose value is a dict in AgentDojo's models (keys are data, not field names). */
const DICT_FIELDS = new Set([
  'emails',
  'trash',
  'events',
  'files',
  'shared_with',
  'user_channels',
  'user_inbox',
  'channel_inbox',
  'web_content',
]);

export type DiffKind =
  | 'values_changed'
  | 'type_changes'
  | 'dictionary_item_added'
  | 'dictionary_item_removed'
  | 'iterable_item_added'
  | 'iterable_item_removed';

export type Diff = Partial<Record<DiffKind, Record<string, unknown>>>;

function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}

function isBasic(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * DeepDiff(a, b, exclude_paths=exclude): the kinds of change, each with its paths.
 *
 * @example
 * ```ts
 * const diff = deepDiff(pre, post, ['root.inbox.initial_emails'])
 * Object.keys(diff) // ['dictionary_item_added']
 * ```
 */
export function deepDiff(a: unknown, b: unknown, exclude: readonly string[] = []): Diff {
  const diff: Diff = {};
  const excluded = new Set(exclude);
  const report = (kind: DiffKind, path: string, value: unknown) => {
    diff[kind] ??= {};
    (diff[kind] as Record<string, unknown>)[path] = value;
  };

  const compareLists = (left: unknown[], right: unknown[], path: string) => {
    if (left.every(isBasic) && right.every(isBasic)) {
      const byOpcodes = listDiffByAlignment(left, right);
      const byPairs = listDiffByPairs(left, right);
      const chosen = byOpcodes.length > 1 && byOpcodes.length >= byPairs.length ? byPairs : byOpcodes;
      for (const [kind, index, value] of chosen) report(kind, `${path}[${index}]`, value);
      return;
    }
    const shared = Math.min(left.length, right.length);
    for (let index = 0; index < shared; index++) walk(left[index], right[index], `${path}[${index}]`, false);
    for (let index = shared; index < right.length; index++)
      report('iterable_item_added', `${path}[${index}]`, right[index]);
    for (let index = shared; index < left.length; index++)
      report('iterable_item_removed', `${path}[${index}]`, left[index]);
  };

  const walk = (left: unknown, right: unknown, path: string, isDict: boolean) => {
    if (excluded.has(path)) return;
    if (typeName(left) !== typeName(right)) {
      report('type_changes', path, {
        old_type: typeName(left),
        new_type: typeName(right),
        old_value: left ?? null,
        new_value: right ?? null,
      });
      return;
    }
    if (Array.isArray(left)) return compareLists(left, right as unknown[], path);
    if (typeof left === 'object' && left !== null) {
      const before = left as Record<string, unknown>;
      const after = right as Record<string, unknown>;
      for (const key of Object.keys(before)) {
        const child = isDict ? `${path}['${key}']` : `${path}.${key}`;
        if (!(key in after)) {
          if (!excluded.has(child)) report('dictionary_item_removed', child, before[key]);
          continue;
        }
        walk(before[key], after[key], child, DICT_FIELDS.has(key) && !isDict);
      }
      for (const key of Object.keys(after)) {
        if (key in before) continue;
        const child = isDict ? `${path}['${key}']` : `${path}.${key}`;
        if (!excluded.has(child)) report('dictionary_item_added', child, after[key]);
      }
      return;
    }
    if (left !== right) report('values_changed', path, { new_value: right, old_value: left });
  };

  walk(a, b, 'root', false);
  return diff;
}

type ListChange = [DiffKind, number, unknown];

/** Index by index, the rest added or removed (DeepDiff's "pairs one by one"). */
function listDiffByPairs(left: unknown[], right: unknown[]): ListChange[] {
  const changes: ListChange[] = [];
  const shared = Math.min(left.length, right.length);
  for (let index = 0; index < shared; index++) {
    if (left[index] !== right[index])
      changes.push(['values_changed', index, { new_value: right[index], old_value: left[index] }]);
  }
  for (let index = shared; index < right.length; index++) changes.push(['iterable_item_added', index, right[index]]);
  for (let index = shared; index < left.length; index++) changes.push(['iterable_item_removed', index, left[index]]);
  return changes;
}

/** Aligned on the longest common subsequence (DeepDiff's difflib opcodes for lists of plain values). */
function listDiffByAlignment(left: unknown[], right: unknown[]): ListChange[] {
  const rows = left.length + 1;
  const cols = right.length + 1;
  const lengths: number[] = new Array(rows * cols).fill(0);
  for (let i = left.length - 1; i >= 0; i--) {
    for (let j = right.length - 1; j >= 0; j--) {
      lengths[i * cols + j] =
        left[i] === right[j]
          ? (lengths[(i + 1) * cols + j + 1] as number) + 1
          : Math.max(lengths[(i + 1) * cols + j] as number, lengths[i * cols + j + 1] as number);
    }
  }
  const changes: ListChange[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i < left.length && j < right.length && left[i] === right[j]) {
      i++;
      j++;
    } else if (
      j < right.length &&
      (i === left.length || (lengths[i * cols + j + 1] as number) >= (lengths[(i + 1) * cols + j] as number))
    ) {
      changes.push(['iterable_item_added', j, right[j]]);
      j++;
    } else {
      changes.push(['iterable_item_removed', i, left[i]]);
      i++;
    }
  }
  return changes;
}
