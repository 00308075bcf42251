import type { JsonSchema } from './types.js';

/** Keywords whose value is one schema (in any dialect from draft-04 to 2020-12). */
const single = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords whose value is a list of schemas (`items` too, in its tuple form before 2020-12). */
const lists = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to schemas (`dependencies` too, where a value is a schema). */
const maps = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies'];

/**
 * A copy of `schema` with each of its direct subschemas (object schemas in keyword positions, not
 * values such as `enum`, `const` or `default`) replaced by `replace(subschema)`. Boolean schemas and
 * other values are kept as they are.
 */
export function mapSubschemas(schema: JsonSchema, replace: (subschema: JsonSchema) => JsonSchema): JsonSchema {
  const copy: Record<string, unknown> = { ...schema };
  for (const keyword of single) {
    const value = schema[keyword];
    if (isSchema(value)) copy[keyword] = replace(value);
  }
  for (const keyword of lists) {
    const value = schema[keyword];
    if (Array.isArray(value)) copy[keyword] = value.map((item) => (isSchema(item) ? replace(item) : item));
  }
  for (const keyword of maps) {
    const value = schema[keyword];
    if (!isSchema(value)) continue;
    const mapped: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      // defineProperty: a field named `__proto__` stays a field, not the copy's prototype.
      Object.defineProperty(mapped, name, {
        value: isSchema(item) ? replace(item) : item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    copy[keyword] = mapped;
  }
  return copy;
}

/** Calls `visit` with each direct subschema of `schema` (see {@link mapSubschemas}). */
export function forEachSubschema(schema: JsonSchema, visit: (subschema: JsonSchema) => void): void {
  for (const keyword of single) {
    const value = schema[keyword];
    if (isSchema(value)) visit(value);
  }
  for (const keyword of lists) {
    const value = schema[keyword];
    if (Array.isArray(value)) for (const item of value) if (isSchema(item)) visit(item);
  }
  for (const keyword of maps) {
    const value = schema[keyword];
    if (isSchema(value)) for (const item of Object.values(value)) if (isSchema(item)) visit(item);
  }
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
