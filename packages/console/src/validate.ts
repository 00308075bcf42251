import { Validator } from '@cfworker/json-schema';

/** The draft a schema names with `$schema` (2020-12 when it names none). */
function draftOf(schema: Record<string, unknown>): '4' | '7' | '2019-09' | '2020-12' {
  const named = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (named.includes('draft-04')) return '4';
  if (named.includes('draft-06') || named.includes('draft-07')) return '7';
  if (named.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * Checks edited arguments: JSON text that must be an object and, when the tool's schema is known,
 * match it. Returns what is wrong, one line each (empty: fine), and the parsed arguments.
 * Uses a validator that needs no eval (the page's CSP allows none).
 */
export function checkArguments(
  text: string,
  schema: Record<string, unknown> | undefined,
): { errors: string[]; value?: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (thrown) {
    return { errors: [`not JSON: ${thrown instanceof Error ? thrown.message : String(thrown)}`] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { errors: ['the arguments must be a JSON object ({ … })'] };
  }
  if (schema === undefined) return { errors: [], value: value as Record<string, unknown> };
  const result = new Validator(schema as never, draftOf(schema), false).validate(value);
  if (result.valid) return { errors: [], value: value as Record<string, unknown> };
  const errors = result.errors
    .filter((each) => each.keyword !== 'properties' && each.keyword !== 'allOf')
    .map((each) => `${each.instanceLocation.replace(/^#\/?/, '') || '(the arguments)'}: ${each.error}`);
  return { errors: errors.length > 0 ? errors : ['the arguments do not match the tool’s schema'] };
}
