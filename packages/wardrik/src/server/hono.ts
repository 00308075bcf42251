import type * as Hono from 'hono';
import type * as HonoStreaming from 'hono/streaming';
import { loadNow } from '../lazy-package.js';

const FEATURE = 'the HTTP API (createApp, startServer)';

/** Hono, loaded when the first app is made (not when `wardrik` is imported). */
export function honoModule(): typeof Hono {
  return loadNow<typeof Hono>('hono', FEATURE);
}

/** Hono's streaming helpers (server-sent events, streamed bodies), loaded with the first stream. */
export function honoStreaming(): typeof HonoStreaming {
  return loadNow<typeof HonoStreaming>('hono/streaming', FEATURE);
}
