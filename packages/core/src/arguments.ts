/**
 * How deeply JSON may nest where Wardrik accepts it from outside (a model's call arguments, a
 * person's answer, an API body). Real tool arguments nest a handful of levels; thousands of levels
 * only serve to overflow the stack of whatever walks the value next.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests objects and arrays deeper than `maxDepth` levels (a scalar is depth 0,
 * `{}` and `[]` depth 1). It recurses at most `maxDepth` levels, so however deep the value, it
 * never overflows the stack itself; and it allocates nothing (it runs on every call's arguments).
 *
 * @example
 * ```ts
 * exceedsDepth({ a: [{ b: 1 }] }, 2) // true: the object in the list is at depth 3
 * ```
 */
export function exceedsDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (exceedsDepth(item, maxDepth - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && exceedsDepth((value as Record<string, unknown>)[key], maxDepth - 1)) return true;
  }
  return false;
}

/** Arguments made ready for a tool, or why they can't be. */
export type NormalizedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

/**
 * A call's arguments as the one value everything else sees — the policy, a park, its hash, the
 * journal and the tool: a JSON object, or a string holding one (as some models send them), parsed
 * once. Nothing (`undefined`, `null`, `''`) means `{}`. Anything else — a string that is not JSON,
 * JSON that is not an object, an array, nesting deeper than `maxDepth` — is refused with a reason
 * the model can read, never turned into `{}`.
 *
 * @example
 * ```ts
 * normalizeArguments('{"order":"A1","amount":5000}') // { ok: true, value: { order: 'A1', amount: 5000 } }
 * normalizeArguments('[1, 2]') // { ok: false, reason: 'arguments must be a JSON object, got an array' }
 * ```
 */
export function normalizeArguments(raw: unknown, maxDepth: number = MAX_JSON_DEPTH): NormalizedArguments {
  if (raw === undefined || raw === null || raw === '') return { ok: true, value: {} };
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (cause) {
      return { ok: false, reason: `arguments are not valid JSON (${(cause as Error).message})` };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: `arguments must be a JSON object, got ${kindOf(value)}` };
  }
  if (exceedsDepth(value, maxDepth)) {
    return { ok: false, reason: `arguments nest deeper than ${maxDepth} levels, the most accepted` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}
