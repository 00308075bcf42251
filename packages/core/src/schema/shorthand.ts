import { describeType } from '../describe-type.js';
import { ToolDefinitionError } from '../errors.js';
import type { JsonSchema, Shorthand, ShorthandField, ShorthandType } from './types.js';

const types: readonly ShorthandType[] = ['string', 'integer', 'number', 'boolean', 'list', 'map', 'object', 'any'];
const fieldKeys = ['type', 'of', 'fields', 'enum', 'required', 'default', 'doc'];

/**
 * Turns the keyword shorthand into a JSON Schema (draft 2020-12). Objects made from shorthand
 * refuse fields they do not name (`additionalProperties: false`), so a misspelt argument is
 * reported to the model instead of being silently dropped.
 * Throws `ToolDefinitionError` naming the field if the shorthand is malformed.
 */
export function shorthandToJsonSchema(shorthand: Shorthand, where = 'schema'): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(shorthand)) {
    const at = `${where}.${name}`;
    if (typeof field !== 'object' || field === null || Array.isArray(field)) {
      throw new ToolDefinitionError(
        `${at}: expected a field spec such as { type: 'string' }, got ${describeType(field)}`,
      );
    }
    properties[name] = fieldToJsonSchema(field, at);
    if (field.required !== undefined && typeof field.required !== 'boolean') {
      throw new ToolDefinitionError(`${at}.required: expected a boolean, got ${describeType(field.required)}`);
    }
    if (field.required) required.push(name);
  }
  const schema: Record<string, unknown> = { type: 'object', properties, additionalProperties: false };
  if (required.length) schema.required = required;
  return schema;
}

function fieldToJsonSchema(field: ShorthandField, at: string): JsonSchema {
  for (const key of Object.keys(field)) {
    if (!fieldKeys.includes(key)) {
      throw new ToolDefinitionError(`${at}.${key}: unknown key (expected one of ${fieldKeys.join(', ')})`);
    }
  }
  const type = field.type ?? (field.enum ? inferEnumType(field.enum, at) : undefined);
  if (type === undefined) throw new ToolDefinitionError(`${at}.type: required (one of ${types.join(', ')})`);
  if (!types.includes(type)) {
    throw new ToolDefinitionError(
      `${at}.type: unknown type ${JSON.stringify(type)} (expected one of ${types.join(', ')})`,
    );
  }
  const schema: Record<string, unknown> = typeSchema(type, field, at);
  if (field.enum !== undefined) {
    if (!Array.isArray(field.enum) || field.enum.length === 0) {
      throw new ToolDefinitionError(`${at}.enum: expected a non-empty array of allowed values`);
    }
    schema.enum = [...field.enum];
  }
  if (field.doc !== undefined) {
    if (typeof field.doc !== 'string')
      throw new ToolDefinitionError(`${at}.doc: expected a string, got ${describeType(field.doc)}`);
    schema.description = field.doc;
  }
  if (field.default !== undefined) schema.default = field.default;
  return schema;
}

function typeSchema(type: ShorthandType, field: ShorthandField, at: string): Record<string, unknown> {
  switch (type) {
    case 'list':
      return { type: 'array', items: itemSchema(field.of, `${at}.of`) };
    case 'map':
      return { type: 'object', additionalProperties: itemSchema(field.of, `${at}.of`) };
    case 'object':
      if (typeof field.fields !== 'object' || field.fields === null) {
        throw new ToolDefinitionError(
          `${at}.fields: an object field needs its fields, e.g. { fields: { id: { type: 'string' } } }`,
        );
      }
      return { ...shorthandToJsonSchema(field.fields, `${at}.fields`) };
    case 'any':
      return {};
    default:
      return { type };
  }
}

function itemSchema(of: ShorthandField['of'], at: string): JsonSchema {
  if (of === undefined)
    throw new ToolDefinitionError(`${at}: lists and maps need the type of their items, e.g. of: 'string'`);
  return fieldToJsonSchema(typeof of === 'string' ? { type: of } : of, at);
}

function inferEnumType(values: readonly unknown[], at: string): ShorthandType {
  if (!Array.isArray(values) || values.length === 0) {
    throw new ToolDefinitionError(`${at}.enum: expected a non-empty array of allowed values`);
  }
  const kinds = new Set(values.map((value) => describeType(value)));
  if (kinds.size === 1) {
    const [kind] = kinds;
    if (kind === 'string' || kind === 'boolean' || kind === 'integer' || kind === 'number') return kind;
  }
  return 'any';
}
