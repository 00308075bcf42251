/*
 * What the trace tests share: a tracer whose finished spans land in memory (the OpenTelemetry
 * SDK's in-memory exporter; one per simulated process or node), ways to find spans and their
 * parents, and an agent that looks a key up, then waits for a person, then answers.
 */
import type { Tracer } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ok, park, tool } from '@wardrik/core';
import { expect } from 'vitest';
import { defineAgent } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';

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

/** Read-only: answers at once. */
export const lookup = tool({
  name: 'lookup',
  description: 'Looks up.',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ key }) => ok({ key, found: true }),
});

/** Parks until a person says run it. */
export const needsPerson = tool({
  name: 'needs_person',
  description: 'Waits for a person.',
  schema: {},
  run: (_args, context) => (context.approval ? 'approved' : park('ask a person')),
});

/** Agent `traced`: `lookup({ key })`, then `needs_person` (it parks), then `done`; its model's id is `modelId`. */
export function tracedAgent(options: { modelId: string; key: string }) {
  return defineAgent({
    name: 'traced',
    instructions: '',
    tools: [lookup, needsPerson],
    model: new ScriptedModel(
      [
        { toolCalls: [{ name: 'lookup', arguments: { key: options.key } }] },
        { toolCalls: [{ name: 'needs_person', arguments: {} }] },
        { text: 'done' },
      ],
      { id: options.modelId },
    ),
  });
}
