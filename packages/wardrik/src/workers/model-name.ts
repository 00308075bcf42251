import { createHash } from 'node:crypto';

/** The prefix the model sees before a worker tool's name. */
export const WORKER_PREFIX = 'workers__';

/**
 * What model providers accept as a tool name: OpenAI's function names and Anthropic's tool names
 * are 1–64 of `a–z A–Z 0–9 _ -` (MCP allows 128 and dots, so a worker's name may not fit).
 */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;
const unsafe = /[^a-zA-Z0-9_-]/g;

/**
 * The name the model sees for a worker tool: `workers__NAME` when that is a name every provider
 * accepts; otherwise `workers__` + the name with other characters replaced by `_`, cut to fit, then
 * `_` and the first 8 hex digits of the SHA-256 of the full name — 64 characters at most. The same
 * worker name always gives the same model name (journals keep the model name, and recovery finds
 * the call's tool by it), and two names that differ only where characters were replaced or cut
 * still get different ones.
 *
 * @example
 * ```ts
 * workerModelName('refund_order') // 'workers__refund_order'
 * workerModelName('orders.refund') // 'workers__orders_refund_' + 8 hex digits
 * ```
 */
export function workerModelName(name: string): string {
  const plain = `${WORKER_PREFIX}${name}`;
  if (MODEL_TOOL_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const room = MAX_LENGTH - WORKER_PREFIX.length - 1 - HASH_LENGTH;
  return `${WORKER_PREFIX}${name.replace(unsafe, '_').slice(0, room)}_${hash}`;
}
