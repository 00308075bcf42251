import { loadNow } from '../lazy-package.js';

// The server's zod schemas are built when the server first needs them (a route table, the OpenAPI
// document), not when `wardrik` is imported: zod itself (~95 ms) and the schemas (~45–75 ms) cost
// nothing to an app that runs agents in-process and never serves HTTP.

/** zod's `z`, loaded the first time a schema is built (the same instance an app's own `import 'zod'` gets). */
export function zod(): typeof import('zod').z {
  return loadNow<typeof import('zod')>('zod', 'the HTTP API').z;
}

/**
 * A value built the first time it is asked for, then kept (once per process).
 *
 * @example
 * ```ts
 * const schemas = once(() => ({ Name: zod().string().min(1) }))
 * schemas().Name.parse('x') // 'x'
 * ```
 */
export function once<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
