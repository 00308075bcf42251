// Small helpers that give Python's meaning to what the ported tasks and tools compare: dates and
// times (naive, as Python's datetime), pydantic's `==` (every field equal) and the text a tool's
// result becomes for the model (AgentDojo's tool_result_to_str: YAML for models and lists).
import YAML from 'yaml';

/** A naive date and time, always written `YYYY-MM-DDTHH:MM:SS` so that equal times are equal strings. */
export type DateTime = string;
/** A date, `YYYY-MM-DD`. */
export type DateOnly = string;

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/**
 * Parses what Python's `datetime.fromisoformat` (and pydantic) take: `2024-05-15`, `2024-05-15 10:00`,
 * `2024-05-15T10:00:00`, or a Date the YAML reader made (its UTC fields are the naive time).
 */
export function toDateTime(value: unknown): DateTime {
  if (value instanceof Date) return value.toISOString().slice(0, 19);
  const text = String(value).trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/.exec(text);
  if (!match) throw new Error(`Invalid isoformat string: '${text}'`);
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  return `${year}-${month}-${day}T${pad(Number(hour))}:${minute}:${pad(Number(second))}`;
}

/** Parses Python's `strptime(value, '%Y-%m-%d %H:%M')`, strictly. */
export function strptimeMinutes(value: string): DateTime {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2})$/.exec(value);
  if (!match) throw new Error(`time data '${value}' does not match format '%Y-%m-%d %H:%M'`);
  const [, year, month, day, hour, minute] = match;
  return `${year}-${pad(Number(month))}-${pad(Number(day))}T${pad(Number(hour))}:${pad(Number(minute))}:00`;
}

/** Parses Python's `strptime(value, '%Y-%m-%d').date()`. */
export function strptimeDate(value: string): DateOnly {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  if (!match) throw new Error(`time data '${value}' does not match format '%Y-%m-%d'`);
  const [, year, month, day] = match;
  return `${year}-${pad(Number(month))}-${pad(Number(day))}`;
}

export function toDate(value: unknown): DateOnly {
  return toDateTime(value).slice(0, 10);
}

/** The date part of a date and time. */
export function dateOf(value: DateTime): DateOnly {
  return value.slice(0, 10);
}

/** `strftime('%m-%d')`. */
export function monthDay(value: DateTime): string {
  return value.slice(5, 10);
}

function epochSeconds(value: DateTime): number {
  return Date.parse(`${value}Z`) / 1000;
}

function fromEpochSeconds(seconds: number): DateTime {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** `end - start + base`, as Python's timedelta arithmetic. */
export function shiftBy(base: DateTime, start: DateTime, end: DateTime): DateTime {
  return fromEpochSeconds(epochSeconds(base) + epochSeconds(end) - epochSeconds(start));
}

/** `value + timedelta(hours=hours)`. */
export function addHours(value: DateTime, hours: number): DateTime {
  return fromEpochSeconds(epochSeconds(value) + hours * 3600);
}

/** Now, naive local time with microseconds, as `datetime.datetime.now()`. */
export function now(): DateTime {
  const date = new Date();
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(
    date.getMinutes(),
  )}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}000`;
}

/** Python's `a < b` on date-times of this module's form. */
export function before(a: DateTime, b: DateTime): boolean {
  return a < b;
}

/** Pydantic's `==` on models: every field equal, recursively. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => deepEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => key in right && deepEqual(left[key], right[key]));
}

/** `set(a) == set(b)`. */
export function sameSet<T>(a: Iterable<T>, b: Iterable<T>): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

/** Python's `str(float)` for the numbers tools print. */
export function pythonNumber(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/**
 * What the model reads for a tool's result, as AgentDojo's `tool_result_to_str`: models and lists as
 * YAML, anything else as Python's `str()` would print it (a dict as its repr).
 */
export function resultText(value: unknown, kind: 'model' | 'plain' = 'plain'): string {
  if (value === null || value === undefined) return 'None';
  if (kind === 'model' || Array.isArray(value)) return YAML.stringify(value, { lineWidth: 0 }).trim();
  if (typeof value === 'object') return pythonRepr(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}

/** Python's `repr()` of the values tools return (a string quoted as Python quotes it). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') {
    // Python quotes with ' unless the text holds ' and no ", then with ".
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value
      .replaceAll('\\', '\\\\')
      .replaceAll('\n', '\\n')
      .replaceAll('\r', '\\r')
      .replaceAll('\t', '\\t');
    return `${quote}${quote === "'" ? escaped.replaceAll("'", "\\'") : escaped}${quote}`;
  }
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`)
    .join(', ')}}`;
}
