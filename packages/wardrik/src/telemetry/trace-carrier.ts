import type { SpanContext } from '@opentelemetry/api';
import type { TraceCarrier } from '../runtime/hooks.js';
import { otelApi } from './otel-api.js';

const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(?:-.*)?$/;

/**
 * A span's context as W3C trace context (`traceparent`, and `tracestate` when it has one): what is
 * journaled with a run and sent in a call's `_meta`. Written here rather than through the global
 * propagator, so that it is W3C whatever propagator (if any) the application registered. Undefined
 * for a span that is not real (no SDK registered).
 *
 * @example
 * ```ts
 * toCarrier(span.spanContext()) // { traceparent: '00-4bf9…4736-00f0…02b7-01' }
 * ```
 */
export function toCarrier(spanContext: SpanContext): TraceCarrier | undefined {
  // No SDK registered: spans are no-ops with all-zero ids, which are nobody's context.
  if (!otelApi().isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The remote span context a carrier names, or undefined when it holds no valid `traceparent`. */
export function fromCarrier(carrier: TraceCarrier | undefined): SpanContext | undefined {
  const match = carrier?.['traceparent'] ? TRACEPARENT.exec(carrier['traceparent'].trim().toLowerCase()) : null;
  if (!match) return undefined;
  const [, version, traceId = '', spanId = '', flags = '00'] = match;
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  const tracestate = carrier?.['tracestate'];
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & otelApi().TraceFlags.SAMPLED,
    isRemote: true,
    ...(tracestate ? { traceState: otelApi().createTraceState(tracestate) } : {}),
  };
}

/** The trace id a carrier names (for log lines), if any. */
export function traceIdOf(carrier: TraceCarrier | undefined): string | undefined {
  return fromCarrier(carrier)?.traceId;
}
