import { createHash } from 'node:crypto';
import type { McpTool } from '@wardrik/core';

/**
 * What a model (and a person approving its calls) is shown of a listed tool: the fields a pin
 * covers. `_meta` and `execution` are left out: they change how Wardrik runs the tool, not what
 * anybody reads.
 */
export interface ShownDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

const SHOWN_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/**
 * The fields of a listed tool a pin covers, as listed (absent ones left out).
 *
 * @example
 * ```ts
 * shownDefinition({ name: 'lookup', inputSchema: { type: 'object' }, _meta: { x: 1 } }) // { name: 'lookup', inputSchema: { type: 'object' } }
 * ```
 */
export function shownDefinition(listed: McpTool): ShownDefinition {
  const shown: Record<string, unknown> = {};
  for (const field of SHOWN_FIELDS) {
    const value = (listed as unknown as Record<string, unknown>)[field];
    if (value !== undefined) shown[field] = value;
  }
  return shown as unknown as ShownDefinition;
}

/**
 * The hash an operator pins a tool's definition with: `sha256:` and the hex SHA-256 of the
 * canonical JSON (keys sorted at every depth, no spaces) of its {@link shownDefinition}. The same
 * definition listed with its keys in another order has the same hash; any change to its name,
 * title, description, schemas (their descriptions, enums, defaults…) or annotations gives another.
 *
 * @example
 * ```ts
 * toolDefinitionHash({ name: 'lookup', description: 'Looks a key up.', inputSchema: { type: 'object' } })
 * // 'sha256:…' (64 hex digits)
 * ```
 */
export function toolDefinitionHash(listed: McpTool): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJson(shownDefinition(listed)))
    .digest('hex')}`;
}

/** What a pin looks like: `sha256:` and 64 lowercase hex digits. */
export const PIN_PATTERN = /^sha256:[0-9a-f]{64}$/;

/**
 * `value` as canonical JSON: object keys sorted (by UTF-16 code units) at every depth, no
 * whitespace, `undefined` members left out, as `JSON.stringify` writes strings and numbers.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    members.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${members.join(',')}}`;
}
