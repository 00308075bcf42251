// `wardrik/telemetry`: logs (pino), Prometheus metrics (prom-client) and OpenTelemetry traces.
export {
  createLogger,
  LOG_LEVELS,
  type LoggerOptions,
  type LogLevel,
  logRuntime,
} from './telemetry/logging.js';
export { enableMetrics, type MeteredRuntime, type MetricsOptions, type WardrikMetrics } from './telemetry/metrics.js';
export type { MetricsPlan, TelemetryConfig } from './telemetry/telemetry-config.js';
export { enableTracing, type TracingOptions } from './telemetry/tracing.js';
