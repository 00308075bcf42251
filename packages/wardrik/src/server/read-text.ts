import type { Context } from 'hono';
import { readBytes } from './read-bytes.js';

/**
 * Reads a request body as UTF-8 text, refusing one over `limit` bytes with a 413 problem (see
 * `readBytes`: on Node the request stream is read directly, stopping at the limit).
 */
export async function readText(c: Context, limit: number): Promise<string> {
  const body = await readBytes(c, limit, 'the body');
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
