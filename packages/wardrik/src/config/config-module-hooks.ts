/**
 * Module hooks that `loadConfig` registers (with `node:module`'s `register`, after tsx's) before it
 * imports a TypeScript config. tsx still compiles the TypeScript; these hooks only decide how the
 * config is run, so that it works in any app and shares the CLI's 'wardrik' and '@wardrik/core':
 *
 * - A `.ts` config, and the `.ts` files it imports from its own folders, are ES modules whatever
 *   the nearest package.json's `type` says. In a CommonJS app (`npm init` writes
 *   `"type": "commonjs"`) or one with no `type`, they would be CommonJS, and importing them fails
 *   ("Cannot require() ES Module … in a cycle").
 * - A `.cts` config is CommonJS, run with Node's own `require` (tsx's compiled code, in a module
 *   wrapper): inside an imported module, Node's stand-in `require` cannot load ES modules, and
 *   'wardrik' is one (Node 20.19+ and 22.12+ `require()` it, as the same module instance).
 *
 * Why not tsx's `tsImport`: it loads the config in a namespace of its own, and with it a second
 * copy of every package the config imports ('wardrik' included) beside the copies the CLI runs.
 */
import { readFile } from 'node:fs/promises';
import { createRequire, type InitializeHook, type LoadHook, type ResolveHook } from 'node:module';
import { fileURLToPath } from 'node:url';

/** What `loadConfig` passes when it registers these hooks. */
export interface ConfigModuleHooksData {
  /** The URL of the module that imports config files (load-config.js). */
  readonly importer: string;
}

let importer: string | undefined;
/** The `.ts` files made ES modules: the config and the local TypeScript it imports. */
const modules = new Set<string>();
/** The `.cts` configs to run with Node's own `require`. */
const commonJs = new Set<string>();

export const initialize: InitializeHook<ConfigModuleHooksData> = (data) => {
  importer = data.importer;
};

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (parent === undefined || !resolved.url.startsWith('file:')) return resolved;
  const path = new URL(resolved.url).pathname;
  if ((parent === importer || modules.has(parent)) && path.endsWith('.ts') && !path.includes('/node_modules/')) {
    modules.add(resolved.url);
    return { ...resolved, format: 'module' };
  }
  if (parent === importer && path.endsWith('.cts')) commonJs.add(resolved.url);
  return resolved;
};

export const load: LoadHook = async (url, context, nextLoad) => {
  const loaded = await nextLoad(url, context);
  if (!commonJs.has(url) || loaded.format !== 'commonjs') return loaded;
  // Node 22 hands CommonJS over without its source (its own loader reads it, and cannot read
  // TypeScript): compile it here, with the esbuild tsx itself uses.
  const code = loaded.source == null ? await compiledCommonJs(url) : String(loaded.source);
  return { format: 'module', source: commonJsModule(url, code), shortCircuit: true };
};

/** A `.cts` file compiled to CommonJS by tsx's own esbuild (resolved from tsx, as a user's install has it). */
async function compiledCommonJs(url: string): Promise<string> {
  const file = fileURLToPath(url);
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx'));
  const esbuild = fromTsx('esbuild') as typeof import('esbuild');
  const result = await esbuild.transform(await readFile(file, 'utf8'), {
    loader: 'ts',
    format: 'cjs',
    sourcefile: file,
    sourcemap: 'inline',
    target: `node${process.versions.node}`,
  });
  return result.code;
}

/**
 * An ES module that runs CommonJS `code` (from the file at `url`) with Node's own `require` and
 * exports its `module.exports` as the default. The wrapper stays on the code's first line, so line
 * numbers in errors stay right.
 */
function commonJsModule(url: string, code: string): string {
  const file = JSON.stringify(fileURLToPath(url));
  return (
    "import { createRequire } from 'node:module'; import { dirname } from 'node:path'; " +
    `const __filename = ${file}; const module = { exports: {} }; ` +
    '(function (exports, require, module, __filename, __dirname) {' +
    code +
    '\n}).call(module.exports, module.exports, createRequire(__filename), module, __filename, dirname(__filename));' +
    'export default module.exports;\n'
  );
}
