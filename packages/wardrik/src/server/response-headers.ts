import type { MiddlewareHandler } from 'hono';

/**
 * What every response of the server says, whatever wrote it: never guess its type from its bytes
 * (`nosniff`: an answer that echoes a client's text is never run as script or HTML), and never
 * store it (`no-store`: API answers carry tokens, runs' arguments and people's data, and are
 * stale the moment a run moves on). Raw answers written outside Hono (a full server, a refused
 * worker upgrade, the metrics listener) send these too.
 */
export const RESPONSE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

/**
 * Middleware giving every response `X-Content-Type-Options: nosniff`, and `Cache-Control:
 * no-store` unless it set its own caching (only the console's page and assets do: see
 * `mountConsole`). Errors and 404s pass through it too. Event streams (a run's events, the inbox,
 * MCP's) also say `X-Accel-Buffering: no`, so that a proxy that buffers answers (nginx does by
 * default) passes each event on as it comes rather than when its buffer fills.
 *
 * @example
 * ```ts
 * app.use('*', responseHeaders())
 * ```
 */
export function responseHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header('x-content-type-options', RESPONSE_HEADERS['x-content-type-options']);
    if (!c.res.headers.has('cache-control')) c.header('cache-control', RESPONSE_HEADERS['cache-control']);
    if (c.res.headers.get('content-type')?.startsWith('text/event-stream')) c.header('x-accel-buffering', 'no');
  };
}

/**
 * Marks an API route's answer as never to be stored, overriding what wrote it (the SSE helper
 * says `no-cache`, which lets a cache keep the events). Returns the same response.
 */
export function neverStored(response: Response): Response {
  response.headers.set('cache-control', RESPONSE_HEADERS['cache-control']);
  return response;
}
