import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Issue } from '../answer.js';
import { describeType } from '../describe-type.js';
import { type Dialect, dialectOf } from './dialect.js';
import type { JsonSchema } from './types.js';

/** What Wardrik uses of an Ajv instance, whichever dialect it speaks. */
interface Compiler {
  compile(schema: object): ValidateFunction;
}

/** The Ajv classes of every dialect, and ajv-formats. */
interface AjvPackages {
  readonly Ajv: typeof Ajv;
  readonly Ajv2019: typeof Ajv2019;
  readonly Ajv2020: typeof Ajv2020;
  readonly Ajv04: typeof Ajv;
  readonly addFormats: (ajv: Compiler) => void;
}

let packages: AjvPackages | undefined;

/**
 * Ajv (and ajv-formats, ajv-draft-04), loaded when the first JSON Schema is compiled rather than
 * when `@wardrik/core` is imported: ~45 ms and ~15 MB that an app pays only once a schema needs
 * checking. They are CommonJS: `require` gives the very module `import` would.
 */
function ajvPackages(): AjvPackages {
  if (packages) return packages;
  const require = createRequire(import.meta.url);
  const ajv04 = require('ajv-draft-04') as { default?: typeof Ajv } & typeof Ajv;
  const formats = require('ajv-formats') as { default?: AjvPackages['addFormats'] } & AjvPackages['addFormats'];
  packages = {
    Ajv: (require('ajv') as { Ajv: typeof Ajv }).Ajv,
    Ajv2019: (require('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 }).Ajv2019,
    Ajv2020: (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    Ajv04: ajv04.default ?? ajv04,
    addFormats: formats.default ?? formats,
  };
  return packages;
}

/** Every Ajv: all errors, defaults filled in, no coercion, schema checked on compile. */
const options = { allErrors: true, useDefaults: true, strict: false, verbose: true, addUsedSchema: false } as const;

/** One Ajv per dialect (and per whether it checks schemas against their meta-schema), made when first needed. */
const compilers = new Map<string, Compiler>();

function compilerFor(dialect: Dialect, trusted: boolean): Compiler {
  const key = `${dialect}${trusted ? ' trusted' : ''}`;
  let compiler = compilers.get(key);
  if (!compiler) {
    compiler = createCompiler(dialect, trusted ? { ...options, validateSchema: false } : options);
    ajvPackages().addFormats(compiler);
    compilers.set(key, compiler);
  }
  return compiler;
}

function createCompiler(dialect: Dialect, settings: typeof options & { validateSchema?: boolean }): Compiler {
  const { Ajv, Ajv2019, Ajv2020, Ajv04 } = ajvPackages();
  switch (dialect) {
    case 'draft-04':
      return new Ajv04(settings);
    case 'draft-06': // draft-07 only added keywords: its Ajv reads draft-06 schemas as they mean
    case 'draft-07':
      return new Ajv(settings);
    case '2019-09':
      return new Ajv2019(settings);
    case '2020-12':
      return new Ajv2020(settings);
  }
}

/** How {@link compileJsonSchema} compiles. */
export interface CompileJsonSchemaOptions {
  /**
   * The schema is one Wardrik wrote itself (from shorthand, whose every field was checked first), so
   * it is valid by construction: Ajv compiles it without checking it against its dialect's
   * meta-schema. That check compiles the meta-schema the first time, ~90 ms, which the first tool an
   * app builds from shorthand (often while its modules load) would otherwise add.
   */
  readonly trusted?: boolean;
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
export function compileJsonSchema(
  schema: JsonSchema,
  dialect: Dialect = dialectOf(schema),
  { trusted = false }: CompileJsonSchemaOptions = {},
): ValidateFunction {
  let key: string | undefined;
  try {
    key = JSON.stringify(schema);
  } catch {
    return compile(schema, dialect, trusted);
  }
  // A trusted schema's validator serves an identical untrusted one: the same text is as valid.
  let validate = compiled.get(key);
  if (!validate) {
    validate = compile(schema, dialect, trusted);
    compiled.set(key, validate);
  }
  return validate;
}

/** Each Ajv's own meta-schema is its dialect's, so `$schema` (in whichever spelling) is left to it. */
function compile(schema: JsonSchema, dialect: Dialect, trusted: boolean): ValidateFunction {
  const { $schema: _named, ...rest } = schema;
  return compilerFor(dialect, trusted).compile(rest);
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
