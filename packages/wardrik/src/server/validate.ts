import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiProblem, type FieldProblem } from './problem.js';
import { readText } from './read-text.js';

/** The body limit when the app sets none: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Reads and checks a JSON body (at most `limit` bytes, else 413), or throws a 400 problem naming every field that is wrong. */
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
  return check(schema, parsed, 'body');
}

/** Checks the query string, or throws a 400 problem. */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return check(schema, c.req.query(), 'query');
}

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: FieldProblem[] = result.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new ApiProblem(
    400,
    'invalid_request',
    'Invalid request',
    errors.map((error) => `${error.path}: ${error.message}`).join('; '),
    errors,
  );
}
