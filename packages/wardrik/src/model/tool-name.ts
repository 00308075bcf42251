import { createHash } from 'node:crypto';

/**
 * What model providers accept as a tool name: OpenAI's function names and Anthropic's tool names
 * are 1–64 of `a–z A–Z 0–9 _ -` (MCP and `tool()` allow 128 and dots, so a tool's name may not fit).
 */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;
const unsafe = /[^a-zA-Z0-9_-]/g;

/**
 * The name the model sees for a tool named `name` (after `prefix`): `prefix + name` when that is a
 * name every provider accepts; otherwise `prefix` + the name with other characters replaced by `_`,
 * cut to fit, then `_` and the first 8 hex digits of the SHA-256 of the full name — 64 characters
 * at most. The same name always gives the same model name (journals keep the model name, and
 * recovery finds the call's tool by it), and two names that differ only where characters were
 * replaced or cut still get different ones.
 *
 * @example
 * ```ts
 * modelToolName('refund_order') // 'refund_order'
 * modelToolName('orders.refund') // 'orders_refund_' + 8 hex digits
 * modelToolName('orders.refund', 'workers__') // 'workers__orders_refund_' + 8 hex digits
 * ```
 */
export function modelToolName(name: string, prefix = ''): string {
  const plain = `${prefix}${name}`;
  if (MODEL_TOOL_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const room = MAX_LENGTH - prefix.length - 1 - HASH_LENGTH;
  return `${prefix}${name.replace(unsafe, '_').slice(0, room)}_${hash}`;
}
