import type { JsonSchema } from '@wardrik/core';

/** What a redacted value is written as. */
export const REDACTED = '[redacted]';

/**
 * The Wardrik keyword that marks an argument sensitive in a tool's JSON Schema, beside the
 * standard `writeOnly: true`: `{ "type": "string", "x-wardrik-sensitive": true }`. Either keeps
 * the value out of telemetry when content capture is on.
 */
export const SENSITIVE_KEYWORD = 'x-wardrik-sensitive';

/** Field names that hold secrets whatever the schema says (compared without case, `-` or `_`). */
const SECRET_NAMES = new Set([
  'apikey',
  'xapikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'bearertoken',
  'sessiontoken',
  'token',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'authorization',
  'cookie',
  'setcookie',
  'credentials',
  'credential',
]);

/**
 * Known shapes of secrets in text: PEM private keys, `Bearer`/`Basic` credentials, JSON Web
 * Tokens, and the keys of OpenAI (`sk-…`), Anthropic (`sk-ant-…`), GitHub (`ghp_…`,
 * `github_pat_…`), Slack (`xox…-`), AWS (`AKIA…`), Google (`AIza…`), Stripe (`sk_live_…`) and
 * Wardrik's own tokens (`wdk_…`).
 */
const SECRET_TEXT = new RegExp(
  [
    String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
    String.raw`\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}`,
    String.raw`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`,
    String.raw`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}`,
    String.raw`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
    String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
    String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
    String.raw`\bAIza[0-9A-Za-z_-]{35}`,
    String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`,
    String.raw`\bwdk_[A-Za-z0-9_-]{8,}`,
  ].join('|'),
  'g',
);

/** `text` with every known shape of secret in it replaced by `[redacted]`. */
export function redactText(text: string): string {
  return text.replace(SECRET_TEXT, (found) => {
    const scheme = /^(Bearer|Basic)\s/.exec(found)?.[1];
    return scheme ? `${scheme} ${REDACTED}` : REDACTED;
  });
}

/**
 * A tool call's arguments as telemetry may record them: the value of every property the tool's
 * schema marks sensitive (`writeOnly: true`, or `"x-wardrik-sensitive": true`), at any depth
 * (objects, arrays, `$ref`s to `$defs`, `allOf`/`anyOf`/`oneOf`), and of every field whose name
 * says it holds a secret (`api_key`, `password`, `token`, `authorization`…), is `[redacted]`;
 * known shapes of secrets in the remaining text are too (see {@link redactText}). The arguments
 * themselves are not changed.
 *
 * @example
 * ```ts
 * redactArguments({ user: 'ann', api_key: 'k-123', note: 'use sk-abcdefghijklmnopqrst' })
 * // { user: 'ann', api_key: '[redacted]', note: 'use [redacted]' }
 * ```
 */
export function redactArguments(value: unknown, schema?: JsonSchema): unknown {
  const root = isObject(schema) ? schema : undefined;
  return redact(value, root ? [root] : [], root);
}

function redact(
  value: unknown,
  schemas: readonly Record<string, unknown>[],
  root: Record<string, unknown> | undefined,
): unknown {
  if (schemas.some(isSensitive)) return REDACTED;
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) {
    const items = schemas.flatMap((schema) => subschemas(schema, root, 'items'));
    return value.map((item) => redact(item, items, root));
  }
  if (!isObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (SECRET_NAMES.has(key.toLowerCase().replace(/[-_]/g, ''))) {
      copy[key] = REDACTED;
      continue;
    }
    const fields = schemas.flatMap((schema) => subschemas(schema, root, key));
    copy[key] = redact(field, fields, root);
  }
  return copy;
}

/** A schema says its value is sensitive. */
function isSensitive(schema: Record<string, unknown>): boolean {
  return schema['writeOnly'] === true || schema[SENSITIVE_KEYWORD] === true;
}

/**
 * The schemas that describe `key` of an object `schema` describes (or, for `items`, the items of
 * an array): its property, `additionalProperties`, `items`/`prefixItems`, through `$ref` and the
 * `allOf`/`anyOf`/`oneOf` branches. Sensitive branches are kept as they are (so they redact).
 */
function subschemas(
  schema: Record<string, unknown>,
  root: Record<string, unknown> | undefined,
  key: string | 'items',
  depth = 0,
): Record<string, unknown>[] {
  if (depth > 16) return [];
  const found: Record<string, unknown>[] = [];
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const target = resolveRef(ref, root);
    if (target) found.push(...subschemas(target, root, key, depth + 1));
  }
  for (const branch of ['allOf', 'anyOf', 'oneOf']) {
    const branches = schema[branch];
    if (!Array.isArray(branches)) continue;
    for (const each of branches) if (isObject(each)) found.push(...subschemas(each, root, key, depth + 1));
  }
  if (key === 'items') {
    if (isObject(schema['items'])) found.push(schema['items']);
    const prefix = schema['prefixItems'];
    if (Array.isArray(prefix)) for (const each of prefix) if (isObject(each)) found.push(each);
    return found;
  }
  const properties = schema['properties'];
  const property = isObject(properties) ? properties[key] : undefined;
  if (isObject(property)) found.push(property);
  else if (isObject(schema['additionalProperties'])) found.push(schema['additionalProperties']);
  return found.flatMap((each) => (typeof each['$ref'] === 'string' ? [each, ...expand(each, root, depth)] : [each]));
}

/** A `$ref`'d schema together with what it refers to (so a sensitive target redacts its uses). */
function expand(schema: Record<string, unknown>, root: Record<string, unknown> | undefined, depth: number) {
  const target = resolveRef(schema['$ref'] as string, root);
  return target && depth < 16 ? [target] : [];
}

/** A local `$ref` (`#/$defs/…`, `#/definitions/…`) in the root schema. */
function resolveRef(ref: string, root: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!root || !ref.startsWith('#')) return undefined;
  let current: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    if (!isObject(current)) return undefined;
    current = current[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isObject(current) ? current : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
