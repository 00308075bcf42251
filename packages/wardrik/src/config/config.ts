import type { Agent } from '../agent.js';
import { type McpServerOptions, mcpOptionsProblem } from '../mcp-server/mcp-options.js';
import type { RetryPolicy } from '../runtime/backoff.js';
import { checkPolicy, type Policy } from '../runtime/policy.js';
import { checkRetention, type RetentionOptions } from '../runtime/retention-rules.js';
import { SERVER_LIMIT_NAMES, type ServerLimits, serverLimitProblems } from '../server/server-settings.js';
import type { Store } from '../store/store.js';
import { checkTelemetry, type TelemetryConfig } from '../telemetry/telemetry-config.js';
import { checkPins } from '../toolsets/tool-pins.js';
import type { HubOptions } from '../workers/worker-hub.js';
import { ConfigError } from './config-error.js';
import { checkStoreSetting, type StoreSetting } from './store-setting.js';

/**
 * Where and how `wardrik serve` listens, and its limits and timeouts: `maxConnections` (1000),
 * `maxStreamsPerPrincipal` (100), `headersTimeoutMs` (10 s), `requestTimeoutMs` (30 s),
 * `keepAliveTimeoutMs` (5 s), `revocationCheckMs` (10 s); see {@link ServerLimits}.
 */
export interface ServerConfig extends ServerLimits {
  /** Default `127.0.0.1` (this machine only). */
  readonly host?: string;
  /** Default 4000; 0 picks a free port. */
  readonly port?: number;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
  /** Largest WebSocket frame a worker may send, in bytes. Default 4 MiB. */
  readonly maxWorkerFrameBytes?: number;
  /**
   * On SIGTERM or SIGINT, how long the runs under way get to reach their next journal record
   * before the node stops them where they are (ms). Default 20 s (below Kubernetes' 30 s
   * `terminationGracePeriodSeconds`); `--shutdown-grace-ms` overrides it.
   */
  readonly shutdownGraceMs?: number;
}

/**
 * This node among the nodes that share a store (`wardrik serve`'s side of `createWardrik`'s
 * `node`, `leaseMs`, `claimIntervalMs` and `maxRuns`). Every field is optional.
 *
 * @example
 * ```ts
 * export default defineConfig({
 *   agents: [support],
 *   store: { postgres: process.env.WARDRIK_DATABASE_URL ?? '' },
 *   node: { name: process.env.POD_NAME, leaseMs: 10_000, maxRuns: 2_000 },
 * })
 * ```
 */
export interface NodeConfig {
  /**
   * This node's name in the leases it holds, unique among the nodes sharing a store (a pod's name
   * is a good one). Default: host, pid and a random part. Empty or unset: the default.
   */
  readonly name?: string | undefined;
  /**
   * How long a lease on a run lasts unless renewed (ms, at least 10; renewed every third of it):
   * how long a dead node's runs wait before another takes them over. Default 5 s.
   */
  readonly leaseMs?: number;
  /** How often this node looks for runs to take over (ms, at least 10). Default 500 ms. */
  readonly claimIntervalMs?: number;
  /** The most runs this node drives at once; the rest wait for it or another node. Default 10,000. */
  readonly maxRuns?: number;
}

/** What a `wardrik.config.ts` exports by default. */
export interface WardrikConfig {
  /** The agents to run, each made with `defineAgent`. */
  readonly agents: readonly Agent[];
  /**
   * Where runs live: a `Store` (`sqliteStore(…)`, `postgresStore(…)`), `{ postgres: 'postgres://…' }`
   * for many nodes on one PostgreSQL, or `{ sqlite: 'path' }`. Default: `WARDRIK_DATABASE_URL` when
   * set, else `sqliteStore('<config dir>/.wardrik/wardrik.db')`.
   */
  readonly store?: StoreSetting;
  readonly server?: ServerConfig;
  /** This node among many: its name, lease length, how often it claims runs, how many it drives. */
  readonly node?: NodeConfig;
  /** Retries of repeatable calls that throw or time out. Default 3 tries, 200 ms doubling to 5 s. */
  readonly toolRetry?: Partial<RetryPolicy>;
  /** Retries of model calls that fail. Default 4 tries, 500 ms doubling to 20 s. */
  readonly modelRetry?: Partial<RetryPolicy>;
  /** Server-wide policy: rules tried after each agent's own (see the README's "Gates and labels"). */
  readonly policy?: Policy;
  /**
   * Workers: `trustedWorkers`, `pins` (the worker tool definitions you reviewed, as `wardrik
   * listings` prints them), `unavailableWaitMs`, `callTimeoutMs`, ping timings, `maxFaults`.
   */
  readonly workers?: HubOptions;
  /** Whether a non-repeatable call's answer is on disk before the model sees it. Default true. */
  readonly durableAnswers?: boolean;
  /** Traces, metrics and logs of `wardrik serve` (see the README's "Telemetry"). */
  readonly telemetry?: TelemetryConfig;
  /**
   * What is deleted, and when (see the README's "Operations"): ended runs after N days, idle
   * sessions, old memories and artifact versions, for every agent or per agent. Without it,
   * nothing is ever deleted.
   */
  readonly retention?: RetentionOptions;
  /**
   * What `wardrik serve` offers over MCP at `/mcp` (see the README's "Serving agents over MCP"):
   * which agents as tools, which agents' tools through the gateway, who may connect. Default:
   * every agent as a tool, tokens required. `false`: no MCP.
   */
  readonly mcp?: McpServerOptions | false;
  // Models are set per agent (`model: modelFromEnvironment() ?? …`); see the README's "Models".
}

const KEYS = [
  'agents',
  'store',
  'server',
  'node',
  'toolRetry',
  'modelRetry',
  'policy',
  'workers',
  'durableAnswers',
  'telemetry',
  'retention',
  'mcp',
];
const SERVER_KEYS = ['host', 'port', 'bodyLimitBytes', 'maxWorkerFrameBytes', 'shutdownGraceMs', ...SERVER_LIMIT_NAMES];
const RETRY_KEYS = ['attempts', 'baseDelayMs', 'maxDelayMs'];
const NODE_KEYS = ['name', 'leaseMs', 'claimIntervalMs', 'maxRuns'];
/** The least each of the node's numbers may be. */
const NODE_LEAST: Record<string, number> = { leaseMs: 10, claimIntervalMs: 10, maxRuns: 1 };
/** The longest node name accepted (it is stored in every lease). */
const NODE_NAME_LIMIT = 200;

/**
 * Declares a Wardrik config: returns it unchanged once checked, so a config file gets types and
 * early, clear errors. Throws `ConfigError` naming the field that is wrong.
 *
 * @example
 * ```ts
 * // wardrik.config.ts
 * import { defineAgent, defineConfig, sqliteStore } from 'wardrik'
 *
 * export default defineConfig({
 *   agents: [defineAgent({ name: 'support', instructions: 'Help customers.', model, tools: [orderStatus] })],
 *   store: sqliteStore('.wardrik/wardrik.db'), // the default, next to this file
 *   server: { host: '127.0.0.1', port: 4000 }, // the defaults
 * })
 * ```
 */
export function defineConfig<Config extends WardrikConfig>(config: Config): Config {
  checkConfig(config, 'config');
  return config;
}

/** Checks a config; `where` prefixes every message (e.g. the file name). */
export function checkConfig(config: unknown, where: string): asserts config is WardrikConfig {
  if (!isObject(config)) throw new ConfigError(`${where}: expected an object such as { agents: [support] }`);
  for (const key of Object.keys(config)) {
    if (!KEYS.includes(key)) throw new ConfigError(`${where}.${key}: unknown setting (expected ${KEYS.join(', ')})`);
  }
  checkAgents(config['agents'], `${where}.agents`);
  const store = config['store'];
  if (store !== undefined && !isStore(store)) checkStoreSetting(store, `${where}.store`);
  checkServer(config['server'], `${where}.server`);
  checkNode(config['node'], `${where}.node`);
  checkRetry(config['toolRetry'], `${where}.toolRetry`);
  checkRetry(config['modelRetry'], `${where}.modelRetry`);
  try {
    checkPolicy(config['policy'], `${where}.policy`);
  } catch (cause) {
    throw new ConfigError((cause as Error).message, { cause });
  }
  if (config['workers'] !== undefined && !isObject(config['workers'])) {
    throw new ConfigError(`${where}.workers: expected an object such as { trustedWorkers: false }`);
  }
  checkWorkerPins(config['workers'], `${where}.workers`);
  if (config['durableAnswers'] !== undefined && typeof config['durableAnswers'] !== 'boolean') {
    throw new ConfigError(`${where}.durableAnswers: expected true or false`);
  }
  checkTelemetry(config['telemetry'], `${where}.telemetry`);
  try {
    checkRetention(config['retention'], `${where}.retention`);
  } catch (cause) {
    throw new ConfigError((cause as Error).message, { cause });
  }
  checkMcp(config['mcp'], config['agents'] as readonly Agent[], `${where}.mcp`);
}

/** Checks the `mcp` section, and that the agents it names are the config's. */
function checkMcp(mcp: unknown, agents: readonly Agent[], where: string): void {
  const problem = mcpOptionsProblem(mcp, where);
  if (problem) throw new ConfigError(problem);
  if (mcp === undefined || mcp === false) return;
  const names = agents.map((agent) => agent.name);
  for (const key of ['agents', 'gateway'] as const) {
    for (const name of (mcp as McpServerOptions)[key] ?? []) {
      if (!names.includes(name)) {
        throw new ConfigError(
          `${where}.${key}: no agent ${JSON.stringify(name)} in this config (agents: ${names.join(', ')})`,
        );
      }
    }
  }
}

/** Checks `workers.pins` as the worker hub will (so that a config with a bad pin fails as it loads, naming it). */
function checkWorkerPins(workers: unknown, where: string): void {
  if (!isObject(workers) || workers['pins'] === undefined) return;
  const fail = (message: string): never => {
    throw new ConfigError(message);
  };
  if (workers['trustedWorkers'] === true) {
    fail(`${where}.pins: not with trustedWorkers: true, which already trusts what workers say of their tools`);
  }
  checkPins(workers['pins'], `${where}.pins`, fail);
}

function checkAgents(agents: unknown, where: string): void {
  if (agents === undefined) throw new ConfigError(`${where}: missing; list the agents to run, made with defineAgent()`);
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new ConfigError(`${where}: expected a non-empty array of agents made with defineAgent()`);
  }
  const names = new Set<string>();
  agents.forEach((agent: unknown, index) => {
    if (!isAgent(agent)) throw new ConfigError(`${where}[${index}]: not an agent; make it with defineAgent()`);
    if (names.has(agent.name)) throw new ConfigError(`${where}: two agents are named ${JSON.stringify(agent.name)}`);
    names.add(agent.name);
  });
}

function checkServer(server: unknown, where: string): void {
  if (server === undefined) return;
  if (!isObject(server)) throw new ConfigError(`${where}: expected an object such as { port: 4000 }`);
  for (const key of Object.keys(server)) {
    if (!SERVER_KEYS.includes(key)) {
      throw new ConfigError(`${where}.${key}: unknown setting (expected ${SERVER_KEYS.join(', ')})`);
    }
  }
  const { host, port, bodyLimitBytes, maxWorkerFrameBytes, shutdownGraceMs } = server;
  if (shutdownGraceMs !== undefined && !(Number.isSafeInteger(shutdownGraceMs) && (shutdownGraceMs as number) >= 0)) {
    throw new ConfigError(
      `${where}.shutdownGraceMs: expected a whole number of ms of at least 0, got ${describe(shutdownGraceMs)}`,
    );
  }
  if (
    maxWorkerFrameBytes !== undefined &&
    !(Number.isInteger(maxWorkerFrameBytes) && (maxWorkerFrameBytes as number) > 0)
  ) {
    throw new ConfigError(
      `${where}.maxWorkerFrameBytes: expected a positive whole number of bytes, got ${describe(maxWorkerFrameBytes)}`,
    );
  }
  if (host !== undefined && (typeof host !== 'string' || host === '')) {
    throw new ConfigError(`${where}.host: expected a host name or address, got ${describe(host)}`);
  }
  if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65_535)) {
    throw new ConfigError(`${where}.port: expected a port number 0–65535, got ${describe(port)}`);
  }
  if (bodyLimitBytes !== undefined && !(Number.isInteger(bodyLimitBytes) && (bodyLimitBytes as number) > 0)) {
    throw new ConfigError(`${where}.bodyLimitBytes: expected a positive integer, got ${describe(bodyLimitBytes)}`);
  }
  const [problem] = serverLimitProblems(server);
  if (problem !== undefined) throw new ConfigError(`${where}.${problem}`);
}

function checkNode(node: unknown, where: string): void {
  if (node === undefined) return;
  if (!isObject(node)) throw new ConfigError(`${where}: expected an object such as { name: 'node-a', leaseMs: 5000 }`);
  for (const [key, value] of Object.entries(node)) {
    if (!NODE_KEYS.includes(key)) {
      throw new ConfigError(`${where}.${key}: unknown setting (expected ${NODE_KEYS.join(', ')})`);
    }
    if (key === 'name') {
      if (value !== undefined && !(typeof value === 'string' && value.length <= NODE_NAME_LIMIT)) {
        throw new ConfigError(
          `${where}.name: expected a string of at most ${NODE_NAME_LIMIT} characters, got ${describe(value)}`,
        );
      }
      continue;
    }
    const least = NODE_LEAST[key] ?? 1;
    if (!(typeof value === 'number' && Number.isSafeInteger(value) && value >= least)) {
      throw new ConfigError(`${where}.${key}: expected a whole number of at least ${least}, got ${describe(value)}`);
    }
  }
}

function checkRetry(retry: unknown, where: string): void {
  if (retry === undefined) return;
  if (!isObject(retry)) throw new ConfigError(`${where}: expected an object such as { attempts: 3 }`);
  for (const [key, value] of Object.entries(retry)) {
    if (!RETRY_KEYS.includes(key)) {
      throw new ConfigError(`${where}.${key}: unknown setting (expected ${RETRY_KEYS.join(', ')})`);
    }
    const least = key === 'attempts' ? 1 : 0;
    if (!(typeof value === 'number' && Number.isInteger(value) && value >= least)) {
      throw new ConfigError(`${where}.${key}: expected an integer of at least ${least}, got ${describe(value)}`);
    }
  }
}

/** Whether `value` looks like what `defineAgent` returns (checked by shape: it may come from another copy). */
function isAgent(value: unknown): value is Agent {
  if (!isObject(value)) return false;
  const model = value['model'];
  return (
    typeof value['name'] === 'string' &&
    typeof value['instructions'] === 'string' &&
    value['tools'] instanceof Map &&
    Array.isArray(value['toolDefinitions']) &&
    isObject(model) &&
    typeof model['generate'] === 'function'
  );
}

function isStore(value: unknown): value is Store {
  if (!isObject(value)) return false;
  return ['migrate', 'write', 'getRun', 'loadJournal', 'close'].every((method) => typeof value[method] === 'function');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}
