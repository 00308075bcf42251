import { describeType } from './describe-type.js';
import { ToolDefinitionError } from './errors.js';
import type { Label } from './labels.js';

/**
 * Facts about a tool that any package can read. A tool that does not set one has none of it:
 * nothing is assumed in its favour (an absent `readOnly` means "may change things").
 * The first four are MCP's tool annotations.
 */
export interface Annotations {
  /** It changes nothing. */
  readonly readOnly?: boolean;
  /** What it changes can't be undone. */
  readonly destructive?: boolean;
  /** A call is safe to repeat, such as a payment with an idempotency key. */
  readonly idempotent?: boolean;
  /** It reaches things outside the agent's own systems, such as the web. */
  readonly openWorld?: boolean;
  /** How long a call may take, in milliseconds. */
  readonly timeout?: number;
  /** What a call acts on, as a function of its arguments, e.g. `(args) => [args.path]`. */
  readonly resources?: (args: Record<string, unknown>) => string[];
  /** Labels every answer carries, e.g. `['outside']` for a web search. */
  readonly labels?: readonly Label[];
}

/** The name of an annotation. */
export type AnnotationKey = keyof Annotations;

const booleanKeys = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;
const knownKeys: readonly string[] = [...booleanKeys, 'timeout', 'resources', 'labels'];

/**
 * Checks annotations and returns a frozen copy. Unknown keys are rejected: a misspelt
 * `destructive` must not silently make a tool look harmless.
 */
export function checkAnnotations(annotations: unknown, where = 'annotations'): Readonly<Annotations> {
  if (annotations === undefined) return Object.freeze({});
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) {
    throw new ToolDefinitionError(`${where}: expected an object, got ${describeType(annotations)}`);
  }
  const record = annotations as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!knownKeys.includes(key)) {
      throw new ToolDefinitionError(`${where}.${key}: unknown annotation (expected one of ${knownKeys.join(', ')})`);
    }
  }
  for (const key of booleanKeys) {
    if (record[key] !== undefined && typeof record[key] !== 'boolean') {
      throw new ToolDefinitionError(`${where}.${key}: expected a boolean, got ${describeType(record[key])}`);
    }
  }
  const { timeout, resources, labels } = record;
  if (timeout !== undefined && !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0)) {
    throw new ToolDefinitionError(
      `${where}.timeout: expected a positive number of milliseconds, got ${String(timeout)}`,
    );
  }
  if (resources !== undefined && typeof resources !== 'function') {
    throw new ToolDefinitionError(
      `${where}.resources: expected a function of the arguments, got ${describeType(resources)}`,
    );
  }
  if (labels !== undefined) {
    if (!Array.isArray(labels) || labels.some((label) => typeof label !== 'string' || label === '')) {
      throw new ToolDefinitionError(`${where}.labels: expected an array of non-empty strings`);
    }
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (record[key] !== undefined)
      copy[key] = key === 'labels' ? Object.freeze([...(labels as string[])]) : record[key];
  }
  return Object.freeze(copy) as Readonly<Annotations>;
}
