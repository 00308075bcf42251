/*
 * What the trace tests share: a tracer whose finished spans land in memory (the OpenTelemetry
 * SDK's in-memory exporter; one per simulated process or node) and ways to find spans and their
 * parents.
 */
import type { Tracer } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';

/** A tracer whose finished spans land in memory (a fresh one per simulated process). */
export function memoryTracing(): { tracer: Tracer; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans() };
}

export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

/** The one span called `name` (fails the test unless there is exactly one). */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReadableSpan;
}

export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan) => span.spanContext().spanId;
export const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
