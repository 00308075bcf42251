import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { ApiProblem } from './problem.js';

/**
 * Reads a request body as text, refusing one over `limit` bytes with a 413 problem. On Node it
 * reads the request stream directly (building a web `Request` just to read its body costs more
 * than the rest of a small request); elsewhere it asks Hono.
 */
export async function readText(c: Context, limit: number): Promise<string> {
  const tooLarge = () =>
    new ApiProblem(413, 'body_too_large', 'Body too large', `the body is over the limit of ${limit} bytes`);
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  if (length > limit) throw tooLarge();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || typeof incoming.on !== 'function') {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > limit) throw tooLarge();
    return text;
  }
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        incoming.removeAllListeners('data');
        incoming.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    incoming.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.once('error', reject);
  });
}
