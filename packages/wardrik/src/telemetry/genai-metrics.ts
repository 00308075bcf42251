import type { Attributes, Histogram, Meter } from '@opentelemetry/api';
import type { HookEvents, Hooks } from '../runtime/hooks.js';
import { genAiModelNames } from './genai-names.js';
import { otelApi } from './otel-api.js';

/** The conventions' buckets for `gen_ai.client.token.usage` (tokens). */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** The conventions' buckets for `gen_ai.client.operation.duration` (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

interface Instruments {
  readonly tokens: Histogram;
  readonly duration: Histogram;
}

/**
 * Records the two GenAI client metrics of the OpenTelemetry semantic conventions at each model
 * call, through the OpenTelemetry metrics API — so whatever `MeterProvider` the application
 * registered (an OTLP exporter, a Prometheus exporter…) gets them, beside Wardrik's own `/metrics`:
 *
 * - `gen_ai.client.operation.duration` (s): each model call that completed or failed (`error.type`
 *   on a failure: `model_error`); one cut short by a cancel of its run is not recorded.
 * - `gen_ai.client.token.usage` ({token}): the input and output tokens of each call that reported
 *   them (`gen_ai.token.type` `input`, `output`).
 *
 * Both with `gen_ai.operation.name` (`chat`), `gen_ai.provider.name`, `gen_ai.request.model`, and
 * when known `gen_ai.response.model`, `server.address` and `server.port`. The meter is
 * `options.meter`, else the global provider's `wardrik` meter, taken at the first model call (a
 * provider registered after this call, but before any model call, is used). Returns the function
 * that stops recording.
 *
 * @example
 * ```ts
 * import { metrics } from '@opentelemetry/api'
 * import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
 * import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http'
 *
 * metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })] }))
 * const stop = recordGenAiMetrics(wardrik.hooks)
 * ```
 */
export function recordGenAiMetrics(hooks: Hooks, options: { readonly meter?: Meter } = {}): () => void {
  let instruments: Instruments | undefined;
  const made = (): Instruments => {
    if (instruments) return instruments;
    const meter = options.meter ?? otelApi().metrics.getMeter('wardrik');
    instruments = {
      tokens: meter.createHistogram('gen_ai.client.token.usage', {
        description: 'Number of input and output tokens used.',
        unit: '{token}',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
      duration: meter.createHistogram('gen_ai.client.operation.duration', {
        description: 'GenAI operation duration.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
    };
    return instruments;
  };
  return hooks.on('model-call-ended', (event: HookEvents['model-call-ended']) => {
    if (event.error === 'cancelled') return;
    const { tokens, duration } = made();
    const names = genAiModelNames(event.model, event.called);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': names.provider,
      'gen_ai.request.model': names.requestModel,
    };
    const responseModel = event.response?.responseModel;
    if (responseModel !== undefined) attributes['gen_ai.response.model'] = responseModel;
    if (names.serverAddress !== undefined) {
      attributes['server.address'] = names.serverAddress;
      if (names.serverPort !== undefined) attributes['server.port'] = names.serverPort;
    }
    if (event.error !== undefined) {
      duration.record(event.durationMs / 1000, { ...attributes, 'error.type': 'model_error' });
      return;
    }
    duration.record(event.durationMs / 1000, attributes);
    const usage = event.usage;
    if (usage) {
      tokens.record(usage.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
      tokens.record(usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    }
  });
}
