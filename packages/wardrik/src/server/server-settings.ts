/**
 * The limits and timeouts of the HTTP server: settings of `startServer` and of the config's
 * `server` section, with their defaults.
 */
export interface ServerLimits {
  /**
   * Connections open at once, server-wide (HTTP, event streams and workers alike). A connection
   * over it gets 503 with `Retry-After` on its first request; beyond twice it, Node drops new
   * connections unanswered. Default 1000.
   */
  readonly maxConnections?: number;
  /** Event streams one principal may have open at once; one more gets 429 with `Retry-After`. Default 100. */
  readonly maxStreamsPerPrincipal?: number;
  /** Time a client has to send a request's headers, in ms; then 408 and the connection is closed. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /**
   * Time a client has to send a whole request (headers and body), in ms; then 408 and the
   * connection is closed. At least `headersTimeoutMs`. Answers may take longer: an event stream or
   * a `wait: true` start is not cut. Default 30 s.
   */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept between requests, in ms. Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
  /**
   * How often event streams and workers check their token again, in ms, so that a token revoked
   * elsewhere (`wardrik tokens revoke`, another node) closes them; revoking through the API closes
   * them at once. Default 10 s.
   */
  readonly revocationCheckMs?: number;
}

/** The defaults of {@link ServerLimits}. */
export const SERVER_LIMIT_DEFAULTS: Readonly<Required<ServerLimits>> = {
  maxConnections: 1_000,
  maxStreamsPerPrincipal: 100,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  revocationCheckMs: 10_000,
};

/** The names of {@link ServerLimits}, as the config's `server` section spells them. */
export const SERVER_LIMIT_NAMES = Object.keys(SERVER_LIMIT_DEFAULTS) as ReadonlyArray<keyof ServerLimits>;

/**
 * What is wrong with some limits, one `name: …` line each (empty when all is well): each must be a
 * positive whole number, and `headersTimeoutMs` at most `requestTimeoutMs`.
 *
 * @example
 * ```ts
 * serverLimitProblems({ maxConnections: 0 }) // ['maxConnections: expected a positive whole number, got 0']
 * ```
 */
export function serverLimitProblems(limits: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const name of SERVER_LIMIT_NAMES) {
    const value = limits[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) {
      problems.push(`${name}: expected a positive whole number, got ${describe(value)}`);
    }
  }
  const headers = limits['headersTimeoutMs'] ?? SERVER_LIMIT_DEFAULTS.headersTimeoutMs;
  const request = limits['requestTimeoutMs'] ?? SERVER_LIMIT_DEFAULTS.requestTimeoutMs;
  if (problems.length === 0 && (headers as number) > (request as number)) {
    problems.push(`headersTimeoutMs: must be at most requestTimeoutMs (${request}), got ${headers}`);
  }
  return problems;
}

/**
 * Every limit, defaults filled in. Throws a `RangeError` naming each setting that is wrong.
 *
 * @example
 * ```ts
 * resolveServerLimits({ maxConnections: 200 }).headersTimeoutMs // 10000
 * ```
 */
export function resolveServerLimits(limits: ServerLimits): Required<ServerLimits> {
  const problems = serverLimitProblems(limits as Readonly<Record<string, unknown>>);
  if (problems.length > 0) throw new RangeError(`server settings: ${problems.join('; ')}`);
  const resolved: Record<string, number> = { ...SERVER_LIMIT_DEFAULTS };
  for (const name of SERVER_LIMIT_NAMES) {
    const value = limits[name];
    if (value !== undefined) resolved[name] = value;
  }
  return resolved as Required<ServerLimits>;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}
