import { existsSync, statSync } from 'node:fs';
import { register } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent } from '../agent.js';
import { gatewayAgentName, mcpGatewayAgent } from '../mcp-server/gateway-agent.js';
import type { McpServerOptions } from '../mcp-server/mcp-options.js';
import type { WardrikOptions } from '../runtime/wardrik.js';
import { SERVER_LIMIT_NAMES, type ServerLimits } from '../server/server-settings.js';
import type { Store } from '../store/store.js';
import type { TelemetryConfig } from '../telemetry/telemetry-config.js';
import { checkConfig, type WardrikConfig } from './config.js';
import { ConfigError } from './config-error.js';
import type { ConfigModuleHooksData } from './config-module-hooks.js';
import { resolveStore } from './store-setting.js';

/** The extensions a config file may have: TypeScript (loaded with tsx) or JavaScript. */
export const CONFIG_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];

/** The names `loadConfig` looks for when it is given no path (a directory may hold only one). */
export const CONFIG_FILE_NAMES = CONFIG_EXTENSIONS.map((extension) => `wardrik.config${extension}`);

/** How long runs under way get to reach their next journal record when `serve` stops, unless set (ms). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;

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
  /**
   * The store: `--store`, else the config's, else `WARDRIK_DATABASE_URL`, else
   * `sqliteStore('<directory>/.wardrik/wardrik.db')` (opened, not migrated).
   */
  readonly store: Store;
  /** Whether `store` is the default SQLite file. */
  readonly defaultStore: boolean;
  readonly host: string;
  readonly port: number;
  readonly bodyLimitBytes?: number;
  readonly maxWorkerFrameBytes?: number;
  /** The server's limits and timeouts set in the config (the others take their defaults): pass them on to `startServer`. */
  readonly limits: ServerLimits;
  /** How long runs under way get to reach their next journal record when `serve` stops (ms). Default 20 s. */
  readonly shutdownGraceMs: number;
  /** The runtime settings to pass on to `createWardrik`. */
  readonly runtime: Pick<
    WardrikOptions,
    | 'toolRetry'
    | 'modelRetry'
    | 'policy'
    | 'workers'
    | 'durableAnswers'
    | 'retention'
    | 'node'
    | 'leaseMs'
    | 'claimIntervalMs'
    | 'maxRuns'
  >;
  /** The config's `telemetry` section, as written. */
  readonly telemetry?: TelemetryConfig;
  /**
   * What `/mcp` offers: the config's `mcp` section, its agents defaulting to the config's (`agents`
   * above also holds the gateway agents it names); `false`: no MCP.
   */
  readonly mcp: McpServerOptions | false;
}

/**
 * Finds and loads a config file: `path` if given (relative to `cwd`), else the one
 * `wardrik.config.ts`, `.mts`, `.cts`, `.js`, `.mjs` or `.cjs` in `cwd`. TypeScript files are
 * compiled with tsx. A `.ts` config is an ES module whatever package.json's `type` says (so it
 * works in CommonJS apps too); `.mts`/`.mjs` are ES modules, `.cts`/`.cjs` CommonJS, and `.js`
 * follows package.json's `type` as Node says. The config shares this process's 'wardrik' and
 * '@wardrik/core' (one module instance of each).
 * Fills in the defaults: a SQLite file at `<config dir>/.wardrik/wardrik.db`, 127.0.0.1, port 4000.
 * Throws `ConfigError` naming the file and the problem.
 *
 * @example
 * ```ts
 * const config = await loadConfig() // ./wardrik.config.ts (or .mts, .cts, .js, .mjs, .cjs)
 * const wardrik = await createWardrik({ store: config.store, agents: config.agents })
 * ```
 */
export async function loadConfig(
  path?: string,
  cwd: string = process.cwd(),
  options: { readonly store?: string | undefined; readonly environment?: NodeJS.ProcessEnv } = {},
): Promise<LoadedConfig> {
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
  let resolved: { store: Store; isDefault: boolean };
  try {
    resolved = resolveStore({
      setting: config.store,
      override: options.store,
      ...(options.environment ? { environment: options.environment } : {}),
      directory,
      defaultPath: join(stateDirectory, 'wardrik.db'),
    });
  } catch (cause) {
    throw new ConfigError(`config file ${file}: ${messageOf(cause)}`, { cause });
  }
  return {
    path: file,
    directory,
    stateDirectory,
    agents: withGatewayAgents(config, file),
    store: resolved.store,
    defaultStore: resolved.isDefault,
    host: config.server?.host ?? '127.0.0.1',
    port: config.server?.port ?? 4000,
    ...(config.server?.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: config.server.bodyLimitBytes }),
    ...(config.server?.maxWorkerFrameBytes === undefined
      ? {}
      : { maxWorkerFrameBytes: config.server.maxWorkerFrameBytes }),
    limits: serverLimits(config),
    shutdownGraceMs: config.server?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    runtime: {
      ...(config.toolRetry ? { toolRetry: config.toolRetry } : {}),
      ...(config.modelRetry ? { modelRetry: config.modelRetry } : {}),
      ...(config.policy ? { policy: config.policy } : {}),
      ...(config.workers ? { workers: config.workers } : {}),
      ...(config.durableAnswers === undefined ? {} : { durableAnswers: config.durableAnswers }),
      ...(config.retention ? { retention: config.retention } : {}),
      ...(config.node?.name ? { node: config.node.name } : {}),
      ...(config.node?.leaseMs === undefined ? {} : { leaseMs: config.node.leaseMs }),
      ...(config.node?.claimIntervalMs === undefined ? {} : { claimIntervalMs: config.node.claimIntervalMs }),
      ...(config.node?.maxRuns === undefined ? {} : { maxRuns: config.node.maxRuns }),
    },
    ...(config.telemetry ? { telemetry: config.telemetry } : {}),
    mcp:
      config.mcp === false
        ? false
        : { ...config.mcp, agents: config.mcp?.agents ?? config.agents.map((agent) => agent.name) },
  };
}

/** The config's agents, and the gateway agent (`NAME.gateway`) of each agent its `mcp.gateway` names. */
function withGatewayAgents(config: WardrikConfig, file: string): readonly Agent[] {
  if (config.mcp === false || !config.mcp?.gateway?.length) return config.agents;
  const gateways = config.mcp.gateway.map((name) => {
    const taken = config.agents.find((agent) => agent.name === gatewayAgentName(name));
    if (taken) {
      throw new ConfigError(
        `config file ${file}: mcp.gateway names ${name}, whose gateway agent would be ${taken.name}: an agent has that name already`,
      );
    }
    return mcpGatewayAgent(config.agents.find((agent) => agent.name === name) as Agent);
  });
  return [...config.agents, ...gateways];
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
 * The config file `loadConfig` would load, absolute. Throws `ConfigError` if there is none, or if
 * `cwd` holds more than one (which one counts would be a guess).
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
    if (!CONFIG_EXTENSIONS.includes(extname(file))) {
      throw new ConfigError(`config file ${file}: expected a ${CONFIG_EXTENSIONS.join(', ')} file`);
    }
    return file;
  }
  const found = existingConfigFiles(cwd);
  if (found.length > 1) {
    throw new ConfigError(
      `${found.length} config files in ${resolve(cwd)}: ${found.map((file) => basename(file)).join(', ')}; ` +
        'keep one, or name one with --config',
    );
  }
  const [file] = found;
  if (file !== undefined) return file;
  throw new ConfigError(
    `no config file in ${resolve(cwd)}: looked for ${CONFIG_FILE_NAMES.join(', ')}. ` +
      'Write one with `wardrik init`, or name one with --config',
  );
}

/**
 * The config files in `directory` (absolute paths, in `CONFIG_FILE_NAMES` order).
 *
 * @example
 * ```ts
 * existingConfigFiles('/app') // ['/app/wardrik.config.ts']
 * ```
 */
export function existingConfigFiles(directory: string): string[] {
  return CONFIG_FILE_NAMES.map((name) => resolve(directory, name)).filter((file) => existsSync(file));
}

let typeScript: Promise<void> | undefined;

/**
 * Lets this process import TypeScript, once: tsx's loader, for the whole process rather than with
 * `tsImport` (whose namespace would load a second copy of every module the config imports,
 * 'wardrik' included, beside the one already running), and our hooks that make a `.ts` config an
 * ES module (see config-module-hooks.ts). Ours are registered last, so they have the last word.
 */
function registerTypeScript(): Promise<void> {
  typeScript ??= import('tsx/esm/api').then(({ register: registerTsx }) => {
    registerTsx();
    // Run from its sources (the tests, `--conditions=@wardrik/source`), this file is .ts and so are
    // the hooks: Node 22.18+ loads them itself (type stripping); the hooks thread knows no tsx.
    const hooks = import.meta.url.endsWith('.ts') ? './config-module-hooks.ts' : './config-module-hooks.js';
    register<ConfigModuleHooksData>(hooks, import.meta.url, {
      data: { importer: import.meta.url },
    });
  });
  return typeScript;
}

async function importDefault(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  let module: Record<string, unknown>;
  try {
    if (['.ts', '.mts', '.cts'].includes(extname(file))) await registerTypeScript();
    module = (await import(url)) as Record<string, unknown>;
  } catch (cause) {
    if (ConfigError.isInstance(cause)) throw new ConfigError(`config file ${file}: ${cause.message}`, { cause });
    throw new ConfigError(`config file ${file} failed to load: ${messageOf(cause)}${formatHint(file, cause)}`, {
      cause,
    });
  }
  let value = module['default'];
  // A CommonJS config (or TypeScript compiled as CommonJS) puts its default export one level down.
  if (isModuleWrapper(value)) value = value['default'];
  if (value === undefined) {
    throw new ConfigError(
      `config file ${file} has no default export; end it with export default defineConfig({ agents: [...] })`,
    );
  }
  return value;
}

/** What to do when a config failed because of its module format (ES module or CommonJS). */
function formatHint(file: string, cause: unknown): string {
  const message = messageOf(cause);
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  const extension = extname(file);
  if (code === 'ERR_REQUIRE_ESM') {
    return `. A CommonJS config (${extension}) can require() 'wardrik', an ES module, only on Node.js 20.19+ or 22.12+; or name it wardrik.config.ts`;
  }
  if (/\b(require|module|exports|__dirname|__filename) is not defined in ES module scope/.test(message)) {
    const asModule =
      extension === '.ts'
        ? 'a .ts config is an ES module, whatever package.json says'
        : `this ${extension} file is an ES module`;
    return `. ${asModule}: use import and import.meta.dirname, or write CommonJS in a wardrik.config.cts (or .cjs)`;
  }
  if (/Cannot use import statement outside a module|Unexpected token 'export'/.test(message)) {
    return `. This ${extension} file is CommonJS (package.json's "type" is not "module"): name it wardrik.config.ts or .mjs to write import/export`;
  }
  return '';
}

function isModuleWrapper(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !('agents' in value) && 'default' in value;
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
