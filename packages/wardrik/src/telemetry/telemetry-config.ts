import { ConfigError } from '../config/config-error.js';
import { LOG_LEVELS, type LogLevel } from './logging.js';
import { readMetricsTokens } from './metrics-tokens.js';

/**
 * What `wardrik serve` reports, and where: the config's `telemetry` section. Everything is off
 * but logs at `info` unless set.
 *
 * @example
 * ```ts
 * export default defineConfig({
 *   agents: [support],
 *   telemetry: {
 *     traces: true,                                 // spans through the OpenTelemetry SDK you register
 *     metrics: { host: '10.0.0.5', port: 9464 },    // GET /metrics on a private address; or { token }
 *     logLevel: 'info',
 *   },
 * })
 * ```
 */
export interface TelemetryConfig {
  /**
   * OpenTelemetry traces (see `enableTracing`), through the tracer provider the application
   * registered (e.g. `NodeSDK` started at the top of the config file), and the GenAI client metrics
   * (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`) through its meter provider.
   * `{ includeContent: true }` also puts tool arguments, park reasons and error messages in spans
   * (sensitive arguments and secrets redacted). Default off.
   */
  readonly traces?: boolean | { readonly includeContent?: boolean };
  /**
   * Prometheus metrics (see `enableMetrics`): `token` serves `GET /metrics` on the API server to
   * `Authorization: Bearer <token>` (at least 16 characters; or the `WARDRIK_METRICS_TOKEN`
   * environment variable); `tokenFile` (or `WARDRIK_METRICS_TOKEN_FILE`) instead names a file whose
   * lines are the tokens accepted, read again whenever it changes — rotate without a restart by
   * writing the new token beside the old, then removing the old; `port` (and `host`, default
   * 127.0.0.1) serves it with no token on an address of its own. At least one of them. Default off.
   */
  readonly metrics?: {
    readonly token?: string;
    readonly tokenFile?: string;
    readonly host?: string;
    readonly port?: number;
  };
  /** Default `info`; `--log-level` overrides it. */
  readonly logLevel?: LogLevel;
}

const KEYS = ['traces', 'metrics', 'logLevel'];
const METRICS_KEYS = ['token', 'tokenFile', 'host', 'port'];

/** Checks a config's `telemetry` section; throws `ConfigError` naming the field that is wrong. */
export function checkTelemetry(telemetry: unknown, where: string): void {
  if (telemetry === undefined) return;
  if (!isObject(telemetry)) throw new ConfigError(`${where}: expected an object such as { traces: true }`);
  for (const key of Object.keys(telemetry)) {
    if (!KEYS.includes(key)) throw new ConfigError(`${where}.${key}: unknown setting (expected ${KEYS.join(', ')})`);
  }
  const { traces, metrics, logLevel } = telemetry;
  if (
    traces !== undefined &&
    typeof traces !== 'boolean' &&
    !(
      isObject(traces) &&
      Object.keys(traces).every((key) => key === 'includeContent') &&
      (traces['includeContent'] === undefined || typeof traces['includeContent'] === 'boolean')
    )
  ) {
    throw new ConfigError(`${where}.traces: expected true, false or { includeContent: true }`);
  }
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new ConfigError(`${where}.logLevel: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  if (metrics === undefined) return;
  if (!isObject(metrics)) throw new ConfigError(`${where}.metrics: expected an object such as { port: 9464 }`);
  for (const key of Object.keys(metrics)) {
    if (!METRICS_KEYS.includes(key)) {
      throw new ConfigError(`${where}.metrics.${key}: unknown setting (expected ${METRICS_KEYS.join(', ')})`);
    }
  }
  const { token, tokenFile, host, port } = metrics;
  if (token !== undefined && (typeof token !== 'string' || token.length < 16)) {
    throw new ConfigError(`${where}.metrics.token: expected a string of at least 16 characters`);
  }
  if (tokenFile !== undefined && (typeof tokenFile !== 'string' || tokenFile === '')) {
    throw new ConfigError(`${where}.metrics.tokenFile: expected the path of a file holding the metrics tokens`);
  }
  if (token !== undefined && tokenFile !== undefined) {
    throw new ConfigError(`${where}.metrics: token or tokenFile, not both`);
  }
  if (host !== undefined && (typeof host !== 'string' || host === '')) {
    throw new ConfigError(`${where}.metrics.host: expected a host name or address`);
  }
  if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65_535)) {
    throw new ConfigError(`${where}.metrics.port: expected a port number 0–65535`);
  }
  if (token === undefined && tokenFile === undefined && port === undefined && host !== undefined) {
    throw new ConfigError(`${where}.metrics: host needs a port (the metrics listener's)`);
  }
}

/**
 * What serve does with metrics: the token (or the file of tokens) for `GET /metrics` on the API
 * server, and/or a listener of its own.
 */
export interface MetricsPlan {
  readonly token?: string;
  /** A file whose lines are the accepted tokens, read again when it changes. */
  readonly tokenFile?: string;
  readonly listen?: { readonly host: string; readonly port: number };
}

/**
 * The metrics to serve: from the config and `WARDRIK_METRICS_TOKEN`. Undefined when metrics are
 * off. Throws `ConfigError` when they are on with neither a token nor a port.
 */
export function metricsPlan(
  telemetry: TelemetryConfig | undefined,
  environment: NodeJS.ProcessEnv = process.env,
): MetricsPlan | undefined {
  const fromEnvironment = environment['WARDRIK_METRICS_TOKEN'] || undefined;
  const fileFromEnvironment = environment['WARDRIK_METRICS_TOKEN_FILE'] || undefined;
  if (telemetry?.metrics === undefined && !fromEnvironment && !fileFromEnvironment) return undefined;
  const configured = telemetry?.metrics?.token !== undefined || telemetry?.metrics?.tokenFile !== undefined;
  const token = configured ? telemetry?.metrics?.token : fromEnvironment;
  const tokenFile = configured ? telemetry?.metrics?.tokenFile : fileFromEnvironment;
  if (!configured && token !== undefined && tokenFile !== undefined) {
    throw new ConfigError('WARDRIK_METRICS_TOKEN and WARDRIK_METRICS_TOKEN_FILE: set one, not both');
  }
  if (token !== undefined && token.length < 16) {
    throw new ConfigError('WARDRIK_METRICS_TOKEN: expected at least 16 characters');
  }
  if (tokenFile !== undefined) {
    // Read once now, so that a missing or empty file stops serve as it starts rather than at the first scrape.
    try {
      if (readMetricsTokens(tokenFile).length === 0) {
        throw new ConfigError(`metrics token file ${tokenFile}: no token of at least 16 characters in it`);
      }
    } catch (thrown) {
      if (thrown instanceof ConfigError) throw thrown;
      throw new ConfigError(`metrics token file ${tokenFile}: ${(thrown as Error).message}`, { cause: thrown });
    }
  }
  const port = telemetry?.metrics?.port;
  if (token === undefined && tokenFile === undefined && port === undefined) {
    throw new ConfigError(
      'config.telemetry.metrics: set a token (or WARDRIK_METRICS_TOKEN) to serve GET /metrics on the API server ' +
        '(or a tokenFile, or WARDRIK_METRICS_TOKEN_FILE, whose lines are the tokens), ' +
        'or a port (and host) to serve it on an address of its own',
    );
  }
  return {
    ...(token === undefined ? {} : { token }),
    ...(tokenFile === undefined ? {} : { tokenFile }),
    ...(port === undefined ? {} : { listen: { host: telemetry?.metrics?.host ?? '127.0.0.1', port } }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
