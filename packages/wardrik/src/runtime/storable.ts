import { type Answer, error, exceedsDepth, MAX_JSON_DEPTH, normalizeArguments } from '@wardrik/core';

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

/**
 * The answer as the journal will keep it: its value (or a park's details) turned into plain JSON,
 * so that the model sees now what a recovered run would see. A value that has no JSON form
 * (a BigInt, a cycle) or nests deeper than `MAX_JSON_DEPTH` becomes an error answer saying so,
 * keeping what the call reported (measures, labels).
 */
export function storableAnswer(answer: Answer): Answer {
  if (answer.type === 'error') return answer;
  const content = answer.type === 'ok' ? answer.value : answer.details;
  if (content === undefined || content === null || typeof content !== 'object') {
    if (typeof content === 'bigint' || typeof content === 'symbol' || typeof content === 'function') {
      return unstorable(answer, `a ${typeof content} has no JSON form`);
    }
    return answer;
  }
  if (exceedsDepth(content, MAX_JSON_DEPTH)) {
    return unstorable(answer, `it nests deeper than ${MAX_JSON_DEPTH} levels, the most accepted`);
  }
  let plain: unknown;
  try {
    const json = JSON.stringify(content);
    plain = json === undefined ? null : JSON.parse(json);
  } catch (cause) {
    return unstorable(answer, `it has no JSON form (${(cause as Error).message})`);
  }
  return answer.type === 'ok' ? { ...answer, value: plain } : { ...answer, details: plain };
}

function unstorable(answer: Answer, why: string): Answer {
  const what = answer.type === 'ok' ? 'answer' : "park's details";
  return error(`the tool's ${what} cannot be kept in the journal: ${why}`, {
    code: 'invalid_answer',
    measures: answer.measures,
    labels: answer.labels,
  });
}
