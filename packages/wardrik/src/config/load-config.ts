import { existsSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent } from '../agent.js';
import type { WardrikOptions } from '../runtime/wardrik.js';
import { SERVER_LIMIT_NAMES, type ServerLimits } from '../server/server-settings.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { checkConfig, type WardrikConfig } from './config.js';
import { ConfigError } from './config-error.js';

/** The names `loadConfig` looks for, in this order, when it is given no path. */
export const CONFIG_FILE_NAMES = ['wardrik.config.ts', 'wardrik.config.mts', 'wardrik.config.js', 'wardrik.config.mjs'];

/** Where local state lives, next to the config file: the default SQLite file and the admin token. */
export const STATE_DIRECTORY = '.wardrik';

/** A config as loaded: every default filled in. */
export interface LoadedConfig {
  /** The config file, absolute. */
  readonly path: string;
  /** Its directory; relative defaults are under it. */
  readonly directory: string;
  /** `<directory>/.wardrik`. */
  readonly stateDirectory: string;
  readonly agents: readonly Agent[];
  /** The configured store, or `sqliteStore('<directory>/.wardrik/wardrik.db')` (opened, not migrated). */
  readonly store: Store;
  /** Whether `store` is the default SQLite file. */
  readonly defaultStore: boolean;
  readonly host: string;
  readonly port: number;
  readonly bodyLimitBytes?: number;
  readonly maxWorkerFrameBytes?: number;
  /** The server's limits and timeouts set in the config (the others take their defaults): pass them on to `startServer`. */
  readonly limits: ServerLimits;
  /** The runtime settings to pass on to `createWardrik`. */
  readonly runtime: Pick<WardrikOptions, 'toolRetry' | 'modelRetry' | 'policy' | 'workers' | 'durableAnswers'>;
}

/**
 * Finds and loads a config file: `path` if given (relative to `cwd`), else the first of
 * `wardrik.config.ts`, `.mts`, `.js`, `.mjs` in `cwd`. TypeScript files are loaded with tsx.
 * Fills in the defaults: a SQLite file at `<config dir>/.wardrik/wardrik.db`, 127.0.0.1, port 4000.
 * Throws `ConfigError` naming the file and the problem.
 *
 * @example
 * ```ts
 * const config = await loadConfig() // ./wardrik.config.ts, or .mts, .js, .mjs
 * const wardrik = await createWardrik({ store: config.store, agents: config.agents })
 * ```
 */
export async function loadConfig(path?: string, cwd: string = process.cwd()): Promise<LoadedConfig> {
  const file = findConfigFile(path, cwd);
  const exported = await importDefault(file);
  try {
    checkConfig(exported, 'config');
  } catch (cause) {
    throw new ConfigError(`config file ${file}: ${messageOf(cause)}`, { cause });
  }
  const config: WardrikConfig = exported;
  const directory = dirname(file);
  const stateDirectory = join(directory, STATE_DIRECTORY);
  return {
    path: file,
    directory,
    stateDirectory,
    agents: config.agents,
    store: config.store ?? sqliteStore(join(stateDirectory, 'wardrik.db')),
    defaultStore: config.store === undefined,
    host: config.server?.host ?? '127.0.0.1',
    port: config.server?.port ?? 4000,
    ...(config.server?.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: config.server.bodyLimitBytes }),
    ...(config.server?.maxWorkerFrameBytes === undefined
      ? {}
      : { maxWorkerFrameBytes: config.server.maxWorkerFrameBytes }),
    limits: serverLimits(config),
    runtime: {
      ...(config.toolRetry ? { toolRetry: config.toolRetry } : {}),
      ...(config.modelRetry ? { modelRetry: config.modelRetry } : {}),
      ...(config.policy ? { policy: config.policy } : {}),
      ...(config.workers ? { workers: config.workers } : {}),
      ...(config.durableAnswers === undefined ? {} : { durableAnswers: config.durableAnswers }),
    },
  };
}

/** The limits and timeouts the config's `server` section sets. */
function serverLimits(config: WardrikConfig): ServerLimits {
  const limits: Record<string, number> = {};
  for (const name of SERVER_LIMIT_NAMES) {
    const value = config.server?.[name];
    if (value !== undefined) limits[name] = value;
  }
  return limits;
}

/**
 * The config file `loadConfig` would load, absolute. Throws `ConfigError` if there is none.
 *
 * @example
 * ```ts
 * findConfigFile(undefined, '/app') // '/app/wardrik.config.ts'
 * ```
 */
export function findConfigFile(path: string | undefined, cwd: string = process.cwd()): string {
  if (path !== undefined) {
    const file = resolve(cwd, path);
    if (!existsSync(file)) throw new ConfigError(`config file ${file} not found`);
    if (!statSync(file).isFile()) throw new ConfigError(`config file ${file} is not a file`);
    if (!['.ts', '.mts', '.js', '.mjs'].includes(extname(file))) {
      throw new ConfigError(`config file ${file}: expected a .ts, .mts, .js or .mjs file`);
    }
    return file;
  }
  for (const name of CONFIG_FILE_NAMES) {
    const file = resolve(cwd, name);
    if (existsSync(file)) return file;
  }
  throw new ConfigError(
    `no config file in ${resolve(cwd)}: looked for ${CONFIG_FILE_NAMES.join(', ')}. ` +
      'Write one with `wardrik init`, or name one with --config',
  );
}

let typeScript: Promise<unknown> | undefined;

/**
 * Lets this process import TypeScript (tsx's loader, registered once). Registered for the whole
 * process rather than with `tsImport`, whose namespace would load a second copy of every module
 * the config imports ('wardrik' included) beside the one already running.
 */
function registerTypeScript(): Promise<unknown> {
  typeScript ??= import('tsx/esm/api').then(({ register }) => register());
  return typeScript;
}

async function importDefault(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  let module: Record<string, unknown>;
  try {
    if (file.endsWith('.ts') || file.endsWith('.mts')) await registerTypeScript();
    module = (await import(url)) as Record<string, unknown>;
  } catch (cause) {
    if (ConfigError.isInstance(cause)) throw new ConfigError(`config file ${file}: ${cause.message}`, { cause });
    throw new ConfigError(`config file ${file} failed to load: ${messageOf(cause)}`, { cause });
  }
  let value = module['default'];
  // A TypeScript file compiled as CommonJS puts its default export one level down.
  if (isModuleWrapper(value)) value = value['default'];
  if (value === undefined) {
    throw new ConfigError(
      `config file ${file} has no default export; end it with export default defineConfig({ agents: [...] })`,
    );
  }
  return value;
}

function isModuleWrapper(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !('agents' in value) && 'default' in value;
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
