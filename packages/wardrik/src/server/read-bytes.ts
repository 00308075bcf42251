import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { ApiProblem } from './problem.js';

/**
 * Reads a request body as bytes, refusing one over `limit` bytes with a 413 problem naming `what`
 * and the setting that raises it. On Node it reads the request stream directly and stops reading
 * at the limit; elsewhere it asks Hono.
 */
export async function readBytes(c: Context, limit: number, what: string): Promise<Uint8Array> {
  const tooLarge = () =>
    new ApiProblem(413, 'body_too_large', 'Body too large', `${what} is over the limit of ${limit} bytes`);
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  if (length > limit) throw tooLarge();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || typeof incoming.on !== 'function') {
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (body.byteLength > limit) throw tooLarge();
    return body;
  }
  return new Promise<Uint8Array>((resolve, reject) => {
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
    incoming.once('end', () => {
      const body = Buffer.concat(chunks);
      resolve(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    });
    incoming.once('error', reject);
  });
}
