import type { FieldProblem } from './problem.js';

/** Names under which a token is sometimes put in a URL (an EventSource cannot send headers). */
const TOKEN_PARAMETERS: ReadonlySet<string> = new Set(['token', 'access_token', 'bearer', 'authorization']);

/**
 * What is wrong with the names of a query string's parameters, for a route that takes `accepted`:
 * each parameter it does not take (saying which it does, and the likely one for a typo), and each
 * given more than once. Empty when nothing is.
 *
 * @example
 * ```ts
 * parameterProblems({ principle: ['prn_1'] }, ['status', 'principal'], 'GET /v1/runs')
 * // [{ path: 'query.principle', message: 'unknown parameter (did you mean principal?); GET /v1/runs takes status, principal' }]
 * ```
 */
export function parameterProblems(
  given: Readonly<Record<string, readonly string[]>>,
  accepted: readonly string[],
  route: string,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const takes = `${route} takes ${accepted.length === 0 ? 'no query parameters' : accepted.join(', ')}`;
  for (const [name, values] of Object.entries(given)) {
    const path = `query.${name}`;
    if (!accepted.includes(name)) {
      problems.push({ path, message: `unknown parameter${hint(name, accepted)}; ${takes}` });
    } else if (values.length > 1) {
      problems.push({ path, message: `given ${values.length} times; give it once` });
    }
  }
  return problems;
}

/** Why an unknown name may have been sent: a token in the URL, or a typo of a parameter the route takes. */
function hint(name: string, accepted: readonly string[]): string {
  if (TOKEN_PARAMETERS.has(name.toLowerCase())) {
    return ' (a token goes in the Authorization header, Bearer <token>, never in a URL)';
  }
  const near = accepted.find((each) => each.toLowerCase() === name.toLowerCase() || distance(each, name) <= 2);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/** The edit distance between two names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * A URL's query parameters by name, each with every value given (as Hono's `c.req.queries()`),
 * for answers written outside Hono.
 *
 * @example
 * ```ts
 * parametersOf(new URL('http://localhost/v1/workers?a=1&a=2').searchParams) // { a: ['1', '2'] }
 * ```
 */
export function parametersOf(search: URLSearchParams): Record<string, string[]> {
  const parameters: Record<string, string[]> = {};
  for (const [name, value] of search) {
    if (name === '') continue;
    const values = parameters[name] ?? [];
    values.push(value);
    parameters[name] = values;
  }
  return parameters;
}
