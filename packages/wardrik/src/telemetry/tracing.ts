import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { HookEvents, HookName, Hooks, TraceCarrier } from '../runtime/hooks.js';
import { fromCarrier, toCarrier } from './trace-carrier.js';

/** How {@link enableTracing} traces. */
export interface TracingOptions {
  /** The tracer spans are made with. Default: `trace.getTracer('wardrik')` (the SDK the application registered). */
  readonly tracer?: Tracer;
  /**
   * Put what people and models wrote in spans: tool arguments, park reasons, error messages.
   * Default false: spans say what happened (names, ids, outcomes, durations, tokens), never the text.
   */
  readonly includeContent?: boolean;
}

/** What one node traces of one run while it drives it: a stretch, from start or resumption to park, stop or end. */
interface Stretch {
  readonly span: Span;
  readonly context: Context;
  /** Model calls going on, by `step#attempt`. */
  readonly models: Map<string, Span>;
  /** Calls going on, by call id. */
  readonly calls: Map<string, Span>;
  /** The attempt going on of each call, by call id. */
  readonly attempts: Map<string, { readonly span: Span; readonly attempt: number }>;
}

/**
 * Traces runs with OpenTelemetry, on the runtime's hooks. Spans, each with the run's id
 * (`wardrik.run.id`):
 *
 * - `invoke_agent AGENT`: a stretch of a run one node drives — from its start or resumption to
 *   its end, a park or a stop. The first one's context is journaled with the run: every later
 *   stretch (after a person's answer, a restart, on another node) is its child, in the same trace.
 * - `chat MODEL`: one model call (GenAI conventions: `gen_ai.operation.name`, `gen_ai.request.model`,
 *   `gen_ai.usage.input_tokens`/`output_tokens`, `gen_ai.response.finish_reasons`).
 * - `execute_tool TOOL`: a call, until it settles (`wardrik.call.outcome`); its attempts are
 *   `attempt TOOL` children, whose context goes to workers and MCP servers in `_meta`
 *   (`traceparent`, `tracestate`).
 * - `park KIND`: a wait for a person, from the park to its answer; `wardrik.park.opened` events
 *   mark parks on the stretch that parked.
 *
 * Returns the function that stops tracing (spans going on are ended).
 *
 * @example
 * ```ts
 * import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
 * import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
 *
 * const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
 * const stop = enableTracing(wardrik, { tracer: provider.getTracer('wardrik') })
 * ```
 */
export function enableTracing(wardrik: { readonly hooks: Hooks }, options: TracingOptions = {}): () => void {
  const tracer = options.tracer ?? trace.getTracer('wardrik');
  const content = options.includeContent === true;
  const hooks = wardrik.hooks;
  const stretches = new Map<string, Stretch>();

  const open = (runId: string, agent: string, parent: Context, attributes: Attributes = {}): Stretch => {
    const span = tracer.startSpan(
      `invoke_agent ${agent}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': agent,
          'wardrik.run.id': runId,
          ...attributes,
        },
      },
      parent,
    );
    const stretch: Stretch = {
      span,
      context: trace.setSpan(ROOT_CONTEXT, span),
      models: new Map(),
      calls: new Map(),
      attempts: new Map(),
    };
    stretches.set(runId, stretch);
    return stretch;
  };
  /** The context a run's spans continue from when no stretch of it is open here: the journaled one. */
  const journaled = (carrier: TraceCarrier | undefined): Context => {
    const remote = fromCarrier(carrier);
    return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : context.active();
  };
  const stretchOf = (event: { runId: string; agent: string; trace?: TraceCarrier }): Stretch =>
    stretches.get(event.runId) ??
    open(event.runId, event.agent, journaled(event.trace), { 'wardrik.run.resumed': true });
  /** Ends a stretch, and whatever of it was still going on. */
  const close = (runId: string, finish: (span: Span) => void): void => {
    const stretch = stretches.get(runId);
    if (!stretch) return;
    stretches.delete(runId);
    for (const span of [
      ...stretch.models.values(),
      ...[...stretch.attempts.values()].map((each) => each.span),
      ...stretch.calls.values(),
    ]) {
      span.setAttribute('wardrik.interrupted', true);
      span.end();
    }
    finish(stretch.span);
    stretch.span.end();
  };

  const listeners: { [K in HookName]?: (event: HookEvents[K]) => void } = {
    'run-started': (event) => {
      const stretch = stretches.get(event.runId) ?? open(event.runId, event.agent, journaled(event.trace));
      stretch.span.setAttributes({
        'wardrik.run.principal': event.principal,
        ...(event.session === undefined ? {} : { 'gen_ai.conversation.id': event.session }),
        ...(event.parent ? { 'wardrik.run.parent': event.parent.runId } : {}),
      });
    },
    'run-resumed': (event) => {
      if (stretches.has(event.runId)) return;
      open(event.runId, event.agent, journaled(event.trace), {
        'wardrik.run.resumed': true,
        'wardrik.run.principal': event.principal,
        'wardrik.run.step': event.step,
      });
    },
    'run-suspended': (event) => close(event.runId, (span) => span.setAttribute('wardrik.run.suspended', event.reason)),
    'run-ended': (event) => {
      if (!stretches.has(event.runId)) open(event.runId, event.agent, journaled(event.trace));
      close(event.runId, (span) => {
        const { inputTokens, outputTokens, usd } = event.measures as Record<string, number | undefined>;
        span.setAttributes({
          'wardrik.run.status': event.status,
          'wardrik.run.labels': [...event.labels],
          ...(inputTokens === undefined ? {} : { 'gen_ai.usage.input_tokens': inputTokens }),
          ...(outputTokens === undefined ? {} : { 'gen_ai.usage.output_tokens': outputTokens }),
          ...(usd === undefined ? {} : { 'wardrik.cost.usd': usd }),
        });
        if (event.status === 'failed') {
          span.setStatus({ code: SpanStatusCode.ERROR, message: content ? (event.error ?? 'failed') : 'failed' });
        }
      });
    },
    'model-call-started': (event) => {
      const stretch = stretchOf(event);
      const span = tracer.startSpan(
        `chat ${event.model}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': event.model,
            'wardrik.run.id': event.runId,
            'wardrik.step': event.step,
            'wardrik.attempt': event.attempt,
          },
        },
        stretch.context,
      );
      stretch.models.set(`${event.step}#${event.attempt}`, span);
    },
    'model-call-ended': (event) => {
      const stretch = stretches.get(event.runId);
      const key = `${event.step}#${event.attempt}`;
      const span = stretch?.models.get(key);
      if (!stretch || !span) return;
      stretch.models.delete(key);
      const usd = event.measures?.['usd'];
      span.setAttributes({
        ...(event.usage
          ? {
              'gen_ai.usage.input_tokens': event.usage.inputTokens,
              'gen_ai.usage.output_tokens': event.usage.outputTokens,
            }
          : {}),
        ...(event.finishReason
          ? {
              'gen_ai.response.finish_reasons': [
                event.finishReason === 'tool-calls' ? 'tool_calls' : event.finishReason,
              ],
            }
          : {}),
        ...(event.toolCalls === undefined ? {} : { 'wardrik.tool_calls': event.toolCalls }),
        ...(usd === undefined ? {} : { 'wardrik.cost.usd': usd }),
        ...(event.retrying === undefined ? {} : { 'wardrik.retrying': event.retrying }),
      });
      if (event.error !== undefined) {
        span.setAttribute('error.type', event.error === 'cancelled' ? 'cancelled' : 'model_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: content ? event.error : 'the model call failed' });
      }
      span.end();
    },
    'call-attempt-started': (event) => {
      const stretch = stretchOf(event);
      let call = stretch.calls.get(event.callId);
      if (!call) {
        call = startCall(stretch, event);
        stretch.calls.set(event.callId, call);
      }
      const span = tracer.startSpan(
        `attempt ${event.tool}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.tool.name': event.tool,
            'gen_ai.tool.call.id': event.callId,
            'wardrik.run.id': event.runId,
            'wardrik.attempt': event.attempt,
            'wardrik.call.repeatable': event.repeatable,
            'wardrik.call.idempotency_key': event.idempotencyKey,
          },
        },
        trace.setSpan(ROOT_CONTEXT, call),
      );
      stretch.attempts.set(event.callId, { span, attempt: event.attempt });
    },
    'call-attempt-ended': (event) => {
      const stretch = stretches.get(event.runId);
      const going = stretch?.attempts.get(event.callId);
      if (!stretch || !going || going.attempt !== event.attempt) return;
      stretch.attempts.delete(event.callId);
      going.span.setAttribute('wardrik.attempt.outcome', event.outcome);
      if (event.outcome === 'error' || event.outcome === 'timeout' || event.outcome === 'lost') {
        going.span.setAttribute('error.type', event.outcome);
        going.span.setStatus({
          code: SpanStatusCode.ERROR,
          message: content && event.error ? event.error : event.outcome,
        });
      }
      going.span.end();
    },
    'call-settled': (event) => {
      const stretch = stretchOf(event);
      const span = stretch.calls.get(event.callId) ?? startCall(stretch, event);
      stretch.calls.delete(event.callId);
      span.setAttributes({
        'wardrik.call.outcome': event.outcome,
        ...(event.rule === undefined ? {} : { 'wardrik.call.rule': event.rule }),
      });
      if (event.outcome === 'error' || event.outcome === 'in_doubt') {
        span.setAttribute('error.type', event.outcome);
        span.setStatus({ code: SpanStatusCode.ERROR, message: event.outcome });
      }
      span.end();
    },
    'park-opened': (event) => {
      stretchOf(event).span.addEvent('wardrik.park.opened', {
        'wardrik.park.id': event.parkId,
        'wardrik.park.kind': event.kind,
        ...(event.tool === undefined ? {} : { 'gen_ai.tool.name': event.tool }),
        ...(event.rule === undefined ? {} : { 'wardrik.park.rule': event.rule }),
        ...(content ? { 'wardrik.park.reason': event.reason } : {}),
      });
    },
    'park-answered': (event) => {
      const parent = stretches.get(event.runId)?.context ?? journaled(event.trace);
      const span = tracer.startSpan(
        `park ${event.kind}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: Date.now() - event.waitedMs,
          attributes: {
            'wardrik.run.id': event.runId,
            'wardrik.park.id': event.parkId,
            'wardrik.park.kind': event.kind,
            'wardrik.park.decision': event.decision,
            'wardrik.park.answered_by': event.by,
          },
        },
        parent,
      );
      span.end();
    },
  };

  function startCall(
    stretch: Stretch,
    event: { runId: string; callId: string; tool: string; step: number; arguments?: unknown },
  ): Span {
    const args = content && event.arguments !== undefined ? JSON.stringify(event.arguments) : undefined;
    return tracer.startSpan(
      `execute_tool ${event.tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.tool,
          'gen_ai.tool.call.id': event.callId,
          'wardrik.run.id': event.runId,
          'wardrik.step': event.step,
          ...(args === undefined ? {} : { 'gen_ai.tool.call.arguments': args }),
        },
      },
      stretch.context,
    );
  }

  const stops = (Object.keys(listeners) as HookName[]).map((name) =>
    hooks.on(name, listeners[name] as (event: HookEvents[typeof name]) => void),
  );
  const unpropagate = hooks.propagate({
    runStarting: ({ runId, agent, parent }) => {
      // A child run continues from its parent's call (the attempt that started it); any other run
      // from the caller's context (e.g. the HTTP request's span, when the application traces those).
      let from = context.active();
      const parentStretch = parent ? stretches.get(parent.runId) : undefined;
      if (parent && parentStretch) {
        const span =
          parentStretch.attempts.get(parent.callId)?.span ??
          parentStretch.calls.get(parent.callId) ??
          parentStretch.span;
        from = trace.setSpan(ROOT_CONTEXT, span);
      }
      return toCarrier(open(runId, agent, from).span.spanContext());
    },
    attemptContext: ({ runId, callId, attempt }) => {
      const going = stretches.get(runId)?.attempts.get(callId);
      return going && going.attempt === attempt ? toCarrier(going.span.spanContext()) : undefined;
    },
  });
  return () => {
    for (const stop of stops) stop();
    unpropagate();
    for (const runId of [...stretches.keys()]) {
      close(runId, (span) => span.setAttribute('wardrik.run.suspended', 'stopped'));
    }
  };
}
