import type * as OtelApi from '@opentelemetry/api';
import { loadNow } from '../lazy-package.js';

/** The OpenTelemetry API, loaded when tracing is enabled or a trace carrier is first read or written. */
export function otelApi(): typeof OtelApi {
  return loadNow<typeof OtelApi>('@opentelemetry/api', 'tracing (enableTracing)');
}
