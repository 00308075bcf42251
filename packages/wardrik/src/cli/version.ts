import { readFileSync } from 'node:fs';

/**
 * The `wardrik` package's name and version, from its package.json (two levels up from this file,
 * in `src/cli/` and in `dist/cli/` alike). Needs no config and no server.
 *
 * @example
 * ```ts
 * wardrikVersion() // { name: 'wardrik', version: '0.1.0' }
 * ```
 */
export function wardrikVersion(): { readonly name: string; readonly version: string } {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name?: unknown;
    version?: unknown;
  };
  if (typeof manifest.version !== 'string') throw new Error('the wardrik package.json names no version');
  return { name: typeof manifest.name === 'string' ? manifest.name : 'wardrik', version: manifest.version };
}
