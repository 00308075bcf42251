import { ToolDefinitionError } from '../errors.js';
import { forEachSubschema } from './subschemas.js';
import type { JsonSchema } from './types.js';

/** The JSON Schema dialects Wardrik understands. */
export type Dialect = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

/** The meta-schema URI of draft 2020-12, which the model is offered. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

const dialects: ReadonlyArray<readonly [string, Dialect]> = [
  ['json-schema.org/draft-04/schema', 'draft-04'],
  ['json-schema.org/draft-06/schema', 'draft-06'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
];

/**
 * The dialect a schema is written in, from its `$schema` (http or https, with or without the
 * trailing `#`). Without `$schema` it is draft 2020-12 (MCP's default), unless it uses tuple
 * `items: [...]`, which 2020-12 has no form for: then draft 2019-09, the last dialect that does
 * (zod-to-json-schema and OpenAPI generators write tuples so without naming a dialect).
 * Throws `ToolDefinitionError` for a `$schema` it does not know.
 *
 * @example
 * ```ts
 * dialectOf({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }) // 'draft-07'
 * dialectOf({ type: 'object' }) // '2020-12'
 * ```
 */
export function dialectOf(schema: JsonSchema): Dialect {
  const uri = schema.$schema;
  if (uri === undefined) return usesTupleItems(schema) ? '2019-09' : '2020-12';
  const bare = typeof uri === 'string' ? uri.replace(/^https?:\/\//, '').replace(/#$/, '') : undefined;
  const known = dialects.find(([address]) => address === bare);
  if (!known) {
    throw new ToolDefinitionError(
      `schema: $schema ${JSON.stringify(uri)} is not a JSON Schema dialect Wardrik understands; use draft-04, draft-06, draft-07, 2019-09 or 2020-12`,
    );
  }
  return known[1];
}

/** Whether any schema in `schema` has array-form (tuple) `items`. */
function usesTupleItems(schema: JsonSchema): boolean {
  if (Array.isArray(schema.items)) return true;
  let found = false;
  forEachSubschema(schema, (subschema) => {
    found ||= usesTupleItems(subschema);
  });
  return found;
}
