import { isHttpUrl } from '../http-url.js';

/**
 * What `wardrik serve` offers over MCP at `/mcp`, and to whom: the config's `mcp` section, and the
 * `mcp` option of `startServer`.
 *
 * @example
 * ```ts
 * export default defineConfig({
 *   agents: [support, refunds],
 *   mcp: { agents: ['support'], gateway: ['support'] }, // support as a tool, and its tools one by one
 * })
 * ```
 */
export interface McpServerOptions {
  /** The agents offered as tools (`input`, optional `session`), by name. Default: every agent the runtime was given. */
  readonly agents?: readonly string[];
  /**
   * Agents whose own tools are also offered one by one (the gateway), by name: a call is a run of
   * the built-in agent `NAME.gateway` (see `mcpGatewayAgent`), judged by the agent's gates and
   * labels. A config adds those agents; `startServer` expects them among the runtime's agents.
   */
  readonly gateway?: readonly string[];
  /**
   * Whether a gateway tool's name starts with its agent's (`support__refund`, the default) or is
   * the tool's own (`refund`; a name another tool has already is left out). Plain names suit a
   * server that offers one agent's tools, e.g. for the MCP conformance suite.
   */
  readonly gatewayPrefix?: boolean;
  /**
   * Host names (no port) a request's `Host` may name: DNS rebinding protection. Default, on a
   * loopback listener: `localhost`, `127.0.0.1`, `[::1]` and the listener's host; elsewhere any.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins a browser's request may come from (`https://app.example.com`); a request from any
   * other is refused with 403. Requests without `Origin` (programs, not browsers) and from the
   * server's own origin are let through.
   */
  readonly allowedOrigins?: readonly string[];
  /** The server's public URL (`https://wardrik.example.com`), for the protected-resource metadata. Default: the request's. */
  readonly publicUrl?: string;
  /** Authorization servers that issue tokens this server accepts, listed in the protected-resource metadata. */
  readonly authorizationServers?: readonly string[];
  /**
   * Take MCP requests that come without a token as this principal (by name; it must exist).
   * Off by default; refused on a listener other machines can reach unless `force: true`. Meant for
   * the conformance suite and local tools, never for a shared server.
   */
  readonly unauthenticated?: { readonly principal: string; readonly force?: boolean };
  /** How long a client may take to answer an elicitation before the park is left to people, in ms. Default 10 min. */
  readonly elicitationTimeoutMs?: number;
  /** A session nobody used for this long is closed, in ms. Default 30 min. */
  readonly sessionIdleMs?: number;
  /** MCP sessions one principal may hold; a new one beyond closes its longest idle. Default 100. */
  readonly maxSessionsPerPrincipal?: number;
  /** How often clients are told to poll a task, in ms. Default 1 s. */
  readonly taskPollIntervalMs?: number;
}

/** The defaults of {@link McpServerOptions}' numbers. */
export const MCP_DEFAULTS = {
  elicitationTimeoutMs: 10 * 60_000,
  sessionIdleMs: 30 * 60_000,
  maxSessionsPerPrincipal: 100,
  taskPollIntervalMs: 1_000,
} as const;

const KEYS: readonly (keyof McpServerOptions)[] = [
  'agents',
  'gateway',
  'gatewayPrefix',
  'allowedHosts',
  'allowedOrigins',
  'publicUrl',
  'authorizationServers',
  'unauthenticated',
  'elicitationTimeoutMs',
  'sessionIdleMs',
  'maxSessionsPerPrincipal',
  'taskPollIntervalMs',
];

/**
 * What is wrong with an `mcp` section, as `where.field: problem` (undefined when nothing is).
 * `false` (MCP off) is fine.
 *
 * @example
 * ```ts
 * mcpOptionsProblem({ agents: 'support' }, 'config.mcp')
 * // 'config.mcp.agents: expected a list of agent names such as ["support"], got "support"'
 * ```
 */
export function mcpOptionsProblem(value: unknown, where: string): string | undefined {
  if (value === undefined || value === false) return undefined;
  if (!isObject(value)) return `${where}: expected an object such as { agents: ['support'] }, or false (no MCP)`;
  for (const key of Object.keys(value)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      return `${where}.${key}: unknown setting (expected ${KEYS.join(', ')})`;
    }
  }
  for (const key of ['agents', 'gateway', 'allowedHosts', 'allowedOrigins', 'authorizationServers'] as const) {
    const list = value[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((item) => typeof item === 'string' && item !== ''))) {
      return `${where}.${key}: expected a list of ${key === 'agents' || key === 'gateway' ? 'agent names such as ["support"]' : 'strings'}, got ${describe(list)}`;
    }
  }
  for (const key of ['allowedOrigins', 'authorizationServers'] as const) {
    for (const url of (value[key] as string[] | undefined) ?? []) {
      if (!isHttpUrl(url)) return `${where}.${key}: ${JSON.stringify(url)} is not an http(s) URL`;
    }
  }
  if (value['gatewayPrefix'] !== undefined && typeof value['gatewayPrefix'] !== 'boolean') {
    return `${where}.gatewayPrefix: expected true or false, got ${describe(value['gatewayPrefix'])}`;
  }
  const publicUrl = value['publicUrl'];
  if (publicUrl !== undefined && !(typeof publicUrl === 'string' && isHttpUrl(publicUrl))) {
    return `${where}.publicUrl: expected an http(s) URL such as "https://wardrik.example.com", got ${describe(publicUrl)}`;
  }
  const unauthenticated = value['unauthenticated'];
  if (unauthenticated !== undefined) {
    if (
      !isObject(unauthenticated) ||
      typeof unauthenticated['principal'] !== 'string' ||
      !unauthenticated['principal']
    ) {
      return `${where}.unauthenticated: expected { principal: 'NAME' } (an existing principal), got ${describe(unauthenticated)}`;
    }
    const extra = Object.keys(unauthenticated).find((key) => key !== 'principal' && key !== 'force');
    if (extra !== undefined) return `${where}.unauthenticated.${extra}: unknown setting (expected principal, force)`;
    if (unauthenticated['force'] !== undefined && typeof unauthenticated['force'] !== 'boolean') {
      return `${where}.unauthenticated.force: expected true or false`;
    }
  }
  for (const key of [
    'elicitationTimeoutMs',
    'sessionIdleMs',
    'maxSessionsPerPrincipal',
    'taskPollIntervalMs',
  ] as const) {
    const number = value[key];
    if (number !== undefined && !(Number.isInteger(number) && (number as number) > 0)) {
      return `${where}.${key}: expected a positive whole number, got ${describe(number)}`;
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list holding something else';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}
