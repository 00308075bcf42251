import { type Dialect, DRAFT_2020_12 } from './dialect.js';
import { mapSubschemas } from './subschemas.js';
import type { JsonSchema } from './types.js';

/**
 * The same schema in draft 2020-12, which is what model providers read (OpenAI and Anthropic
 * check tool schemas against it: a tuple's `items: [...]` or a draft-04 `exclusiveMinimum: true`
 * would be refused with a 400). Only keywords whose form changed are rewritten:
 *
 * - tuples: `items: [...]` becomes `prefixItems`, and `additionalItems` becomes `items`;
 * - draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` take the bound's number;
 * - `id` (draft-04) and `$id`s with a fragment become `$id` and `$anchor`;
 * - `dependencies` (before 2019-09) becomes `dependentRequired` and `dependentSchemas`.
 *
 * Everything else (`definitions` and the `$ref`s into it, formats, annotations) is kept as it is.
 * A `$schema` is replaced by 2020-12's; a schema without one stays without. Arguments are still
 * checked against the original, in its own dialect.
 *
 * @example
 * ```ts
 * toDraft202012({ type: 'array', items: [{ type: 'number' }], additionalItems: false }, 'draft-07')
 * // { type: 'array', prefixItems: [{ type: 'number' }], items: false }
 * ```
 */
export function toDraft202012(schema: JsonSchema, dialect: Dialect): JsonSchema {
  if (dialect === '2020-12') return schema;
  const translated = translate(schema, dialect);
  return schema.$schema === undefined ? translated : { ...translated, $schema: DRAFT_2020_12 };
}

function translate(schema: JsonSchema, dialect: Dialect): JsonSchema {
  const copy = mapSubschemas(schema, (subschema) => translate(subschema, dialect)) as Record<string, unknown>;
  translateTuple(copy);
  if (dialect === 'draft-04') {
    translateExclusiveBound(copy, 'minimum', 'exclusiveMinimum');
    translateExclusiveBound(copy, 'maximum', 'exclusiveMaximum');
    translateIdentifier(copy, 'id');
  } else {
    translateIdentifier(copy, '$id');
  }
  if (dialect !== '2019-09') translateDependencies(copy);
  return copy;
}

/** `items: [...]` and `additionalItems` → `prefixItems` and `items` (without a tuple, `additionalItems` meant nothing). */
function translateTuple(schema: Record<string, unknown>): void {
  const { items, additionalItems } = schema;
  delete schema.additionalItems;
  if (!Array.isArray(items)) return;
  delete schema.items;
  schema.prefixItems = items;
  if (additionalItems !== undefined) schema.items = additionalItems;
}

/** Draft-04's `exclusiveMinimum: true` next to `minimum: n` → `exclusiveMinimum: n` (and likewise for maximum). */
function translateExclusiveBound(schema: Record<string, unknown>, bound: string, exclusive: string): void {
  const flag = schema[exclusive];
  if (typeof flag !== 'boolean') return;
  delete schema[exclusive];
  if (flag && typeof schema[bound] === 'number') {
    schema[exclusive] = schema[bound];
    delete schema[bound];
  }
}

/** An identifier with a fragment (`base.json#name`, `#name`) → `$id` (without the fragment) and `$anchor`. */
function translateIdentifier(schema: Record<string, unknown>, keyword: 'id' | '$id'): void {
  const identifier = schema[keyword];
  if (typeof identifier !== 'string') return;
  delete schema[keyword];
  const hash = identifier.indexOf('#');
  const base = hash === -1 ? identifier : identifier.slice(0, hash);
  const fragment = hash === -1 ? '' : identifier.slice(hash + 1);
  if (base !== '') schema.$id = base;
  if (/^[A-Za-z_][-A-Za-z0-9._]*$/.test(fragment)) schema.$anchor = fragment;
}

/** `dependencies` → `dependentRequired` (lists of names) and `dependentSchemas` (schemas). */
function translateDependencies(schema: Record<string, unknown>): void {
  const dependencies = schema.dependencies;
  if (typeof dependencies !== 'object' || dependencies === null || Array.isArray(dependencies)) return;
  delete schema.dependencies;
  const required: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const [name, dependency] of Object.entries(dependencies)) {
    Object.defineProperty(Array.isArray(dependency) ? required : schemas, name, {
      value: dependency,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (Object.keys(required).length) schema.dependentRequired = required;
  if (Object.keys(schemas).length) schema.dependentSchemas = schemas;
}
