import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { Issue } from '../answer.js';
import { ToolDefinitionError } from '../errors.js';
import { joinPath } from './ajv.js';
import type { CompiledSchema, JsonSchema, ValidationResult } from './types.js';

/** Whether `value` implements Standard Schema (Zod 4, Valibot, ArkType, …). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}

/**
 * Compiles a Standard Schema: its library validates (and fills defaults), and its Standard
 * JSON Schema converter gives the model a draft 2020-12 JSON Schema.
 */
export function compileStandardSchema(schema: StandardSchemaV1): CompiledSchema {
  const props = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  if (!props.jsonSchema || typeof props.jsonSchema.input !== 'function') {
    throw new ToolDefinitionError(
      `schema: this Standard Schema (from ${props.vendor}) cannot produce a JSON Schema for the model; use a library that implements Standard JSON Schema (Zod 4.2 and newer does) or pass a JSON Schema`,
    );
  }
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = props.jsonSchema.input({ target: 'draft-2020-12' }) as JsonSchema;
  } catch (cause) {
    throw new ToolDefinitionError(
      `schema: could not turn the ${props.vendor} schema into JSON Schema: ${String(cause)}`,
      { cause },
    );
  }
  if (jsonSchema.type !== 'object') {
    throw new ToolDefinitionError(
      `schema: a tool's arguments must be an object schema, got type ${JSON.stringify(jsonSchema.type)}`,
    );
  }
  const validate = (value: unknown): ValidationResult | Promise<ValidationResult> => {
    const result = props.validate(value);
    return result instanceof Promise ? result.then(toValidationResult) : toValidationResult(result);
  };
  return { form: 'standard-schema', jsonSchema, validate };
}

function toValidationResult(result: StandardSchemaV1.Result<unknown>): ValidationResult {
  if (result.issues) return { ok: false, issues: result.issues.map(toIssue) };
  return { ok: true, value: result.value as Record<string, unknown> };
}

function toIssue(issue: StandardSchemaV1.Issue): Issue {
  let path = '';
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' ? segment.key : segment;
    path = joinPath(path, typeof key === 'number' ? key : String(key));
  }
  return { path, message: issue.message };
}
