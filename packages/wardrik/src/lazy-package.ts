import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The heavy packages (pg, Hono, pino, prom-client, the MCP SDK, the AI SDK and its providers) load
// when a feature first needs them, not when `wardrik` is imported: an app pays only for what it uses.

const require = createRequire(import.meta.url);
/** Loaded modules by `now:` or `later:` and specifier (a CommonJS package's `require` and `import` shapes differ). */
const loaded = new Map<string, unknown>();

/** A package a feature needs is not installed; the message names it and how to install it. */
export class MissingPackageError extends Error {
  override readonly name = 'MissingPackageError';
  constructor(
    readonly packageName: string,
    feature: string,
    options?: ErrorOptions,
  ) {
    super(
      `wardrik: ${feature} needs the package "${packageName}", which is not installed: npm install ${packageName}`,
      options,
    );
  }
}

/** The package a specifier names: `pg` for `pg`, `@modelcontextprotocol/sdk` for `@modelcontextprotocol/sdk/types.js`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Whether `thrown` says the package `name` itself could not be found (not one of its own imports). */
export function isMissing(thrown: unknown, name: string): boolean {
  const code = (thrown as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = String((thrown as { message?: unknown }).message);
  return message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`'${name}/`);
}

/**
 * The module `specifier` names, loaded now (synchronously) the first time and kept: for an API
 * that is synchronous (`createApp`, `createLogger`, a store's constructor). An ES module loads as
 * `import` would have loaded it (the same instance an app's own `import` gets), through
 * `require(esm)`. Throws `MissingPackageError` when the package is not installed.
 *
 * @example
 * ```ts
 * const { Hono } = loadNow<typeof import('hono')>('hono', 'the HTTP API')
 * ```
 */
export function loadNow<T>(specifier: string, feature: string): T {
  const key = `now:${specifier}`;
  if (loaded.has(key)) return loaded.get(key) as T;
  let module: T;
  try {
    module = require(fileURLToPath(import.meta.resolve(specifier))) as T;
  } catch (thrown) {
    throw explained(thrown, packageOf(specifier), feature);
  }
  loaded.set(key, module);
  return module;
}

/**
 * The module `specifier` names, imported the first time and kept: for a step that is
 * asynchronous already (connecting, starting a server). Rejects with `MissingPackageError` when
 * the package is not installed.
 *
 * @example
 * ```ts
 * const { serve } = await loadLater<typeof import('@hono/node-server')>('@hono/node-server', 'startServer')
 * ```
 */
export async function loadLater<T>(specifier: string, feature: string): Promise<T> {
  const key = `later:${specifier}`;
  if (loaded.has(key)) return loaded.get(key) as T;
  let module: T;
  try {
    module = (await import(specifier)) as T;
  } catch (thrown) {
    throw explained(thrown, packageOf(specifier), feature);
  }
  loaded.set(key, module);
  return module;
}

/**
 * One of wardrik's own modules that imports a heavy package, imported when first needed; rejects
 * with `MissingPackageError` naming `packageName` when that package is not installed.
 *
 * @example
 * ```ts
 * const { McpServerConnection } = await loadOwn(() => import('./mcp-server-connection.js'), '@modelcontextprotocol/sdk', 'mcpToolset')
 * ```
 */
export async function loadOwn<T>(load: () => Promise<T>, packageName: string, feature: string): Promise<T> {
  try {
    return await load();
  } catch (thrown) {
    throw explained(thrown, packageName, feature);
  }
}

/** What to throw for a failed load: `MissingPackageError` when `packageName` is not installed, else what was thrown. */
function explained(thrown: unknown, packageName: string, feature: string): unknown {
  return isMissing(thrown, packageName) ? new MissingPackageError(packageName, feature, { cause: thrown }) : thrown;
}
