import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';

/**
 * The console's Content-Security-Policy: scripts, styles and images from this origin only, no
 * inline script or style, no eval, requests to this origin only, never framed, no forms posted.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the built console is: `console/` in the wardrik package (built from packages/console). */
export const CONSOLE_DIRECTORY = fileURLToPath(new URL('../../console/', import.meta.url));

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

interface Asset {
  readonly body: Uint8Array;
  readonly type: string;
}

/** Every file under `directory`, by its URL path (`/assets/index-1a2b.js`), read once. */
function readAssets(directory: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const type = TYPES[extname(name)];
        if (type !== undefined) {
          assets.set(`/${relative(directory, path).split(sep).join('/')}`, { body: readFileSync(path), type });
        }
      }
    }
  };
  walk(directory);
  return assets;
}

/** Headers on every console response: the CSP and what keeps the page from being sniffed, framed or referred. */
function secure(c: Context): void {
  c.header('content-security-policy', CONSOLE_CSP);
  c.header('x-content-type-options', 'nosniff');
  c.header('referrer-policy', 'no-referrer');
  c.header('x-frame-options', 'DENY');
  c.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * How long a browser may keep what the console serves. Scripts and styles are named by a hash of
 * their content, so a name never changes meaning: cached for good. The page and the icon keep
 * their names across versions: kept, but checked with the server before each use (`no-cache`), so
 * a new version shows on the next load. Anything else (a 404) is not kept (the server's default,
 * `no-store`).
 */
export const CONSOLE_CACHING = {
  hashed: 'public, max-age=31536000, immutable',
  named: 'no-cache',
} as const;

/**
 * Serves the console at `/` (its page) and `/assets/…` (its scripts and styles, named by content
 * hash, cached for good), with {@link CONSOLE_CSP} and {@link CONSOLE_CACHING}. The page talks
 * only to the `/v1` API. When the console was not built, `/` says so (build it with `npm run build`).
 */
export function mountConsole(app: Hono, directory: string = CONSOLE_DIRECTORY): void {
  const built = existsSync(join(directory, 'index.html'));
  const assets = built ? readAssets(directory) : new Map<string, Asset>();
  const index = assets.get('/index.html');
  app.get('/', (c) => {
    secure(c);
    if (index === undefined) {
      return c.text(`The Wardrik console was not built (no ${join(directory, 'index.html')}): run npm run build.`, 404);
    }
    c.header('cache-control', CONSOLE_CACHING.named);
    return c.body(index.body as Uint8Array<ArrayBuffer>, 200, { 'content-type': index.type });
  });
  app.get('/assets/*', (c) => {
    const asset = assets.get(c.req.path);
    secure(c);
    if (asset === undefined) return c.text(`no asset ${c.req.path}`, 404);
    c.header('cache-control', CONSOLE_CACHING.hashed);
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, { 'content-type': asset.type });
  });
  const favicon = assets.get('/favicon.svg');
  app.get('/favicon.svg', (c) => {
    secure(c);
    if (favicon === undefined) return c.body(null, 404);
    c.header('cache-control', CONSOLE_CACHING.named);
    return c.body(favicon.body as Uint8Array<ArrayBuffer>, 200, { 'content-type': favicon.type });
  });
}
