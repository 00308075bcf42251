import { describeType } from '../describe-type.js';
import { ToolDefinitionError } from '../errors.js';
import { compileJsonSchema, issuesFromAjv } from './ajv.js';
import { dialectOf } from './dialect.js';
import { shorthandToJsonSchema } from './shorthand.js';
import { compileStandardSchema, isStandardSchema } from './standard.js';
import { toDraft202012 } from './to-draft-2020-12.js';
import type { CompiledSchema, JsonSchema, SchemaInput, Shorthand, ValidationResult } from './types.js';

const jsonSchemaMarkers = ['$schema', '$ref', 'anyOf', 'oneOf', 'allOf'];

/** Whether a plain object is a JSON Schema (it has a `type`, `$schema`, `$ref` or a combinator) rather than shorthand. */
export function isJsonSchema(value: object): value is JsonSchema {
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' || Array.isArray(type) || jsonSchemaMarkers.some((key) => key in value);
}

/**
 * Compiles a tool's schema once, in any of its three forms: the keyword shorthand, a JSON Schema
 * or a Standard Schema (Zod 4 and others). No schema means no arguments. Throws
 * `ToolDefinitionError` naming the problem if the schema is invalid.
 *
 * A JSON Schema may be written in draft-04, draft-06, draft-07, 2019-09 or 2020-12, named by its
 * `$schema` (none: 2020-12, or 2019-09 if it uses tuple `items: [...]`). Arguments are checked in
 * that dialect; the model is offered the schema in draft 2020-12 (`jsonSchema`).
 *
 * Unknown fields: shorthand refuses them; a JSON Schema decides with its own
 * `additionalProperties`; a Standard Schema as its library does (Zod objects drop them).
 *
 * @example
 * ```ts
 * const schema = compileSchema({ order_id: { type: 'string', required: true } })
 * schema.validate({ order_id: 7 }) // { ok: false, issues: [{ path: 'order_id', message: 'expected string, got integer 7' }] }
 * ```
 */
export function compileSchema(input: SchemaInput | undefined): CompiledSchema {
  if (input === undefined) return compileJson(shorthandToJsonSchema({}), 'shorthand');
  if (isStandardSchema(input)) return compileStandardSchema(input);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ToolDefinitionError(
      `schema: expected shorthand, a JSON Schema or a Standard Schema, got ${describeType(input)}`,
    );
  }
  if (isJsonSchema(input)) {
    if (input.type !== 'object') {
      throw new ToolDefinitionError(
        `schema: a tool's arguments must be an object schema (type: 'object'), got type ${JSON.stringify(input.type)}`,
      );
    }
    return compileJson(input, 'json-schema');
  }
  return compileJson(shorthandToJsonSchema(input as Shorthand), 'shorthand');
}

function compileJson(jsonSchema: JsonSchema, form: 'shorthand' | 'json-schema'): CompiledSchema {
  const dialect = dialectOf(jsonSchema);
  let check: ReturnType<typeof compileJsonSchema>;
  try {
    // Shorthand becomes a schema Wardrik wrote itself, valid by construction (see `trusted`).
    check = compileJsonSchema(jsonSchema, dialect, { trusted: form === 'shorthand' });
  } catch (cause) {
    throw new ToolDefinitionError(`schema: not a valid JSON Schema: ${(cause as Error).message}`, { cause });
  }
  if (form === 'shorthand') checkDefaults(jsonSchema, 'schema');
  // Ajv fills defaults in place: copy the arguments first, but only when the schema has any.
  const fillsDefaults = JSON.stringify(jsonSchema).includes('"default"');
  const validate = (value: unknown): ValidationResult => {
    const data = fillsDefaults ? clonePlain(value) : value;
    if (check(data)) return { ok: true, value: data as Record<string, unknown> };
    return { ok: false, issues: issuesFromAjv(check.errors ?? [], data) };
  };
  return { form, jsonSchema: toDraft202012(jsonSchema, dialect), validate };
}

/** Rejects a shorthand default that its own field would refuse. */
function checkDefaults(schema: JsonSchema, where: string): void {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, field] of Object.entries(properties)) checkDefault(field, `${where}.${name}`);
}

/** Checks a field's default, then those of its fields and of its items (lists and maps). */
function checkDefault(field: JsonSchema, at: string): void {
  if ('default' in field) {
    const { default: fallback, ...rest } = field;
    const check = compileJsonSchema(rest, undefined, { trusted: true });
    if (!check(clonePlain(fallback))) {
      const problems = issuesFromAjv(check.errors ?? [], fallback).map((issue) => issue.message);
      throw new ToolDefinitionError(`${at}.default: does not match its own type (${problems.join('; ')})`);
    }
  }
  if (field.type === 'object' && field.properties) checkDefaults(field, `${at}.fields`);
  const items = field.items ?? field.additionalProperties;
  if (typeof items === 'object' && items !== null) checkDefault(items as JsonSchema, `${at}.of`);
}

/** A deep copy of plain JSON data (objects and arrays); other values are kept as they are. */
function clonePlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clonePlain);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const copy: Record<string, unknown> = {};
    for (const key in value) {
      const item = clonePlain((value as Record<string, unknown>)[key]);
      // A `__proto__` key (JSON.parse makes it an own field) must stay a field, not become the prototype.
      if (key === '__proto__')
        Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
      else copy[key] = item;
    }
    return copy;
  }
  return value;
}
