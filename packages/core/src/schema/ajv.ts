import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import Ajv04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import type { Issue } from '../answer.js';
import { describeType } from '../describe-type.js';
import { type Dialect, dialectOf } from './dialect.js';
import type { JsonSchema } from './types.js';

/** What Wardrik uses of an Ajv instance, whichever dialect it speaks. */
interface Compiler {
  compile(schema: object): ValidateFunction;
}

// ajv-formats and ajv-draft-04 are CommonJS; their default exports arrive wrapped under NodeNext resolution.
const addFormats = addFormatsModule as unknown as (ajv: Compiler) => void;
const Ajv04 = ((Ajv04Module as unknown as { default?: unknown }).default ?? Ajv04Module) as typeof Ajv;

/** Every Ajv: all errors, defaults filled in, no coercion, schema checked on compile. */
const options = { allErrors: true, useDefaults: true, strict: false, verbose: true, addUsedSchema: false } as const;

/** One Ajv per dialect, made when first needed. */
const compilers = new Map<Dialect, Compiler>();

function compilerFor(dialect: Dialect): Compiler {
  let compiler = compilers.get(dialect);
  if (!compiler) {
    compiler = createCompiler(dialect);
    addFormats(compiler);
    compilers.set(dialect, compiler);
  }
  return compiler;
}

function createCompiler(dialect: Dialect): Compiler {
  switch (dialect) {
    case 'draft-04':
      return new Ajv04(options);
    case 'draft-06': // draft-07 only added keywords: its Ajv reads draft-06 schemas as they mean
    case 'draft-07':
      return new Ajv(options);
    case '2019-09':
      return new Ajv2019(options);
    case '2020-12':
      return new Ajv2020(options);
  }
}

/**
 * Validators by the JSON text of their schema. Ajv keeps everything it compiles for as long as it
 * lives, even after `removeSchema`; sharing one validator per distinct schema bounds that by the
 * schemas there are, not by how often tools are built (a worker offers its tools again and again).
 */
const compiled = new Map<string, ValidateFunction>();

/**
 * Compiles a JSON Schema with the Ajv of its dialect (see `dialectOf`), or reuses the validator of
 * an identical one. Throws Ajv's error if the schema is invalid.
 */
export function compileJsonSchema(schema: JsonSchema, dialect: Dialect = dialectOf(schema)): ValidateFunction {
  let key: string | undefined;
  try {
    key = JSON.stringify(schema);
  } catch {
    return compile(schema, dialect);
  }
  let validate = compiled.get(key);
  if (!validate) {
    validate = compile(schema, dialect);
    compiled.set(key, validate);
  }
  return validate;
}

/** Each Ajv's own meta-schema is its dialect's, so `$schema` (in whichever spelling) is left to it. */
function compile(schema: JsonSchema, dialect: Dialect): ValidateFunction {
  const { $schema: _named, ...rest } = schema;
  return compilerFor(dialect).compile(rest);
}

/** Ajv's errors as issues naming the field and what was expected. */
export function issuesFromAjv(errors: readonly ErrorObject[], data: unknown): Issue[] {
  const issues: Issue[] = [];
  for (const err of errors) {
    const issue = issueFromAjv(err, data);
    if (!issues.some((seen) => seen.path === issue.path && seen.message === issue.message)) issues.push(issue);
  }
  return issues;
}

function issueFromAjv(err: ErrorObject, data: unknown): Issue {
  const path = pointerToPath(err.instancePath);
  const parent = err.parentSchema as { properties?: Record<string, { type?: unknown }> } | undefined;
  switch (err.keyword) {
    case 'required': {
      const field = (err.params as { missingProperty: string }).missingProperty;
      const expected = parent?.properties?.[field]?.type;
      return {
        path: joinPath(path, field),
        message: expected ? `is required (expected ${formatType(expected)})` : 'is required',
      };
    }
    case 'additionalProperties': {
      const field = (err.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys(parent?.properties ?? {});
      return {
        path: joinPath(path, field),
        message: known.length
          ? `is not an expected field (expected: ${known.join(', ')})`
          : 'is not an expected field (this takes no fields here)',
      };
    }
    case 'type':
      return {
        path,
        message: `expected ${formatType((err.params as { type: unknown }).type)}, got ${describeValue(valueAt(data, err.instancePath))}`,
      };
    case 'enum': {
      const allowed = (err.params as { allowedValues: unknown[] }).allowedValues;
      return {
        path,
        message: `expected one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(valueAt(data, err.instancePath))}`,
      };
    }
    default:
      return { path, message: `${err.message ?? 'is invalid'}, got ${describeValue(valueAt(data, err.instancePath))}` };
  }
}

function formatType(type: unknown): string {
  return Array.isArray(type) ? type.join(' or ') : String(type);
}

function describeValue(value: unknown): string {
  const type = describeType(value);
  if (type === 'object' || type === 'array' || type === 'undefined') return type;
  const text = JSON.stringify(value);
  return `${type} ${text.length > 40 ? `${text.slice(0, 37)}...` : text}`;
}

/** `/items/0/qty` → `items[0].qty`. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path = joinPath(path, /^\d+$/.test(segment) ? Number(segment) : segment);
  }
  return path;
}

/** Appends a field name or list index to a path. */
export function joinPath(path: string, segment: string | number): string {
  if (typeof segment === 'number') return `${path}[${segment}]`;
  return path === '' ? segment : `${path}.${segment}`;
}

function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let current: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[raw.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return current;
}
