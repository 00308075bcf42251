import { exceedsDepth, MAX_JSON_DEPTH } from '@wardrik/core';
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiProblem, type FieldProblem } from './problem.js';
import { parameterProblems } from './query-parameters.js';
import { readText } from './read-text.js';
import { documentedPath, type Route } from './routes.js';
import { once, zod } from './zod.js';

/** The body limit when the app sets none: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Reads and checks a JSON body (at most `limit` bytes, else 413; nesting at most
 * {@link MAX_JSON_DEPTH} levels, the body itself being the first, else 400), or throws a 400
 * problem naming every field that is wrong.
 */
export async function readBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  limit = DEFAULT_BODY_LIMIT,
): Promise<z.infer<S>> {
  const text = await readText(c, limit);
  let parsed: unknown;
  if (text.trim() === '') {
    parsed = {};
  } else {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/(.+\+)?json\b/i.test(type)) {
      throw new ApiProblem(
        415,
        'unsupported_media_type',
        'Unsupported media type',
        `expected content-type application/json, got ${JSON.stringify(type || 'none')}`,
      );
    }
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new ApiProblem(
        400,
        'malformed_json',
        'Malformed JSON',
        `the body is not valid JSON: ${(cause as Error).message}`,
      );
    }
  }
  if (exceedsDepth(parsed, MAX_JSON_DEPTH)) throw tooDeep(parsed);
  return check(schema, parsed, 'body');
}

/** How many object keys of the too-deep path a problem names before it shortens it with `…`. */
const SHOWN_KEYS = 8;

/** The 400 problem for a body nested deeper than {@link MAX_JSON_DEPTH}, naming the field where it happens. */
function tooDeep(body: unknown): ApiProblem {
  const path = ['body', ...tooDeepKeys(body, MAX_JSON_DEPTH)].join('.');
  const message = `nests deeper than ${MAX_JSON_DEPTH} levels, the most a JSON body may (the body itself is level 1)`;
  return new ApiProblem(400, 'json_too_deep', 'JSON too deep', `${path}: ${message}`, [{ path, message }]);
}

/**
 * The object keys leading to where `value` goes deeper than `maxDepth` (following the first such
 * field at each level, through objects but not into arrays), at most {@link SHOWN_KEYS} of them.
 */
function tooDeepKeys(value: unknown, maxDepth: number): string[] {
  const keys: string[] = [];
  let current = value;
  let depthLeft = maxDepth;
  while (isPlainObject(current)) {
    const deeper = Object.entries(current).find(([, child]) => exceedsDepth(child, depthLeft - 1));
    if (deeper === undefined) break;
    if (keys.length === SHOWN_KEYS) {
      keys.push('…');
      break;
    }
    keys.push(deeper[0]);
    current = deeper[1];
    depthLeft -= 1;
  }
  return keys;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The query of a route that takes none. */
const noQuery = once(() => zod().object({}).strict());

/**
 * Checks a request's query string against what its route takes, or throws a 400 problem naming
 * every parameter that is wrong: one the route does not take (listing those it does), one given
 * twice, or a value its schema refuses. A route without a `query` takes no parameters. The server
 * calls this for every route before its handler, which gets the parsed query.
 *
 * @example
 * ```ts
 * readQuery(c, { method: 'get', path: '/v1/runs', query: ListRunsQuery }) // { status: 'parked' }, or throws
 * ```
 */
export function readQuery(
  c: Context,
  route: Pick<Route, 'method' | 'path' | 'query' | 'otherParameters'>,
): Record<string, unknown> {
  const schema = route.query ?? noQuery();
  const all = c.req.queries();
  const accepted = Object.keys(schema.shape);
  const given =
    route.otherParameters === 'ignored'
      ? Object.fromEntries(Object.entries(all).filter(([name]) => accepted.includes(name)))
      : all;
  const named = `${route.method.toUpperCase()} ${documentedPath(route.path)}`;
  const problems = parameterProblems(given, accepted, named);
  if (problems.length > 0) throw invalidRequest(problems);
  const values = Object.fromEntries(Object.entries(given).map(([name, [value]]) => [name, value]));
  return check(schema, values, 'query');
}

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidRequest(
    result.error.issues.map((issue) => ({
      path: [where, ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  );
}

/** The 400 problem naming each field that is wrong. */
function invalidRequest(errors: readonly FieldProblem[]): ApiProblem {
  return new ApiProblem(
    400,
    'invalid_request',
    'Invalid request',
    errors.map((error) => `${error.path}: ${error.message}`).join('; '),
    errors,
  );
}
