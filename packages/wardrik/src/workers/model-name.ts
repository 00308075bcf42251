import { modelToolName } from '../model/tool-name.js';

/** The prefix the model sees before a worker tool's name. */
export const WORKER_PREFIX = 'workers__';

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
  return modelToolName(name, WORKER_PREFIX);
}
