import {
  type Answer,
  describeReason,
  error,
  exceedsDepth,
  MAX_JSON_DEPTH,
  type Measures,
  normalizeArguments,
} from '@wardrik/core';

/*
 * What enters the journal from outside — a model's call arguments, a tool's answer, a worker's
 * result — must be plain JSON of a reasonable depth: the journal stores JSON, a rebuilt run must
 * see exactly what the live run saw, and a value nested thousands of levels deep overflows the
 * stack of JSON.stringify itself. These functions make such values storable, or say why not.
 */

/** A model's tool call arguments as the journal keeps them. */
export interface JournaledArguments {
  readonly arguments: unknown;
  readonly invalidArguments?: string;
}

/**
 * Normalizes a call's arguments once (see `normalizeArguments`). Arguments that can't be used are
 * kept as the model sent them when that is safe to store (a string, a shallow value), else as
 * null, with the reason the model will be told.
 */
export function journaledArguments(raw: unknown): JournaledArguments {
  const normalized = normalizeArguments(raw);
  if (normalized.ok) return { arguments: normalized.value };
  const kept = typeof raw === 'string' || !exceedsDepth(raw, MAX_JSON_DEPTH) ? raw : null;
  return { arguments: kept ?? null, invalidArguments: normalized.reason };
}

/** `answer` reporting `measures`: itself when they are its own (no copy: this is made at every call). */
function withMeasures(answer: Answer, measures: Measures): Answer {
  return measures === answer.measures ? answer : ({ ...answer, measures } as Answer);
}

/**
 * The answer as the journal will keep it, with `measures` (default: its own): its value (or a
 * park's details) turned into plain JSON — a copy — so that the model sees now what a recovered
 * run would see. A value that has no JSON form (a BigInt, a cycle) or nests deeper than
 * `MAX_JSON_DEPTH` becomes an error answer saying so, keeping what the call reported (measures,
 * labels).
 */
export function storableAnswer(answer: Answer, measures = answer.measures): Answer {
  if (answer.type === 'error') return withMeasures(answer, measures);
  const content = answer.type === 'ok' ? answer.value : answer.details;
  if (content === undefined || content === null || typeof content !== 'object') {
    if (typeof content === 'bigint' || typeof content === 'symbol' || typeof content === 'function') {
      return unstorable(withMeasures(answer, measures), `a ${typeof content} has no JSON form`);
    }
    return withMeasures(answer, measures);
  }
  let plain: unknown;
  try {
    plain = plainCopy(content, MAX_JSON_DEPTH);
  } catch {
    plain = NOT_PLAIN; // a getter or a proxy that throws: JSON says so below
  }
  if (plain === NOT_PLAIN) {
    // Dates, class instances, toJSON, undefined members…: JSON's own rules decide what is kept.
    try {
      if (exceedsDepth(content, MAX_JSON_DEPTH)) plain = TOO_DEEP;
      else {
        const json = JSON.stringify(content);
        plain = json === undefined ? null : JSON.parse(json);
      }
    } catch (cause) {
      return unstorable(withMeasures(answer, measures), `it has no JSON form (${describeReason(cause)})`);
    }
  }
  if (plain === TOO_DEEP) {
    return unstorable(
      withMeasures(answer, measures),
      `it nests deeper than ${MAX_JSON_DEPTH} levels, the most accepted`,
    );
  }
  return answer.type === 'ok'
    ? { type: 'ok', value: plain, measures, labels: answer.labels }
    : { ...answer, measures, details: plain };
}

/** What {@link plainCopy} gives for a value JSON would change (then JSON itself copies it). */
const NOT_PLAIN = Symbol('not plain JSON');
/** What {@link plainCopy} gives for a value nesting deeper than it may. */
const TOO_DEEP = Symbol('too deep');

/**
 * A copy of `value` if it is plain JSON already — strings, booleans, finite numbers, null, arrays
 * of them and objects of them (plain objects, no `toJSON`) — nesting at most `depth` levels; else
 * `NOT_PLAIN` or `TOO_DEEP`. What JSON.stringify then JSON.parse would give, made without either.
 */
function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_PLAIN; // -0 is written 0
    case 'object':
      break;
    default:
      return NOT_PLAIN; // undefined, bigint, symbol, function
  }
  if (value === null) return null;
  if (depth <= 0) return TOO_DEEP;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (let index = 0; index < value.length; index++) {
      const item = plainCopy(value[index], depth - 1);
      if (item === NOT_PLAIN || item === TOO_DEEP) return item;
      copy.push(item);
    }
    return copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === '__proto__') return NOT_PLAIN; // as an own key it must stay one: JSON.parse keeps it so
    const item = plainCopy((value as Record<string, unknown>)[key], depth - 1);
    if (item === NOT_PLAIN || item === TOO_DEEP) return item;
    copy[key] = item;
  }
  return copy;
}

function unstorable(answer: Answer, why: string): Answer {
  const what = answer.type === 'ok' ? 'answer' : "park's details";
  return error(`the tool's ${what} cannot be kept in the journal: ${why}`, {
    code: 'invalid_answer',
    measures: answer.measures,
    labels: answer.labels,
  });
}
