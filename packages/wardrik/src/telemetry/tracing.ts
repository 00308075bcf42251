import type { Attributes, Context, Meter, Span, Tracer } from '@opentelemetry/api';
import type { Model } from '../model/model.js';
import { deferredCarrier, type HookEvents, type HookName, type Hooks, type TraceCarrier } from '../runtime/hooks.js';
import { recordGenAiMetrics } from './genai-metrics.js';
import { genAiModelNames, toolType } from './genai-names.js';
import { otelApi } from './otel-api.js';
import { redactArguments, redactText } from './redaction.js';
import { fromCarrier, toCarrier } from './trace-carrier.js';

/** How {@link enableTracing} traces. */
export interface TracingOptions {
  /** The tracer spans are made with. Default: `trace.getTracer('wardrik')` (the SDK the application registered). */
  readonly tracer?: Tracer;
  /**
   * Put what people and models wrote in spans: tool arguments, park reasons, error messages.
   * Default false: spans say what happened (names, ids, outcomes, durations, tokens), never the text.
   * Even then, arguments the tool's schema marks sensitive (`writeOnly: true`, or
   * `"x-wardrik-sensitive": true`), fields named like secrets (`api_key`, `password`, `token`…)
   * and text shaped like one (API keys, bearer tokens, JWTs, private keys) are `[redacted]`.
   */
  readonly includeContent?: boolean;
  /**
   * Record the GenAI client metrics (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`)
   * through the OpenTelemetry metrics API too (see `recordGenAiMetrics`). Default true.
   */
  readonly genAiMetrics?: boolean;
  /** The meter those metrics are recorded with. Default: the global provider's `wardrik` meter. */
  readonly meter?: Meter;
}

/** What {@link enableTracing} reads of the runtime: its hooks, and its agents (for agent spans' model and description). */
export interface TracedRuntime {
  readonly hooks: Hooks;
  agents?(): readonly { readonly name: string; readonly description: string; readonly model: Model }[];
}

/** A run's stretch does not start (its start failed) when `run-started` has not come this long after its trace was made. */
const START_TIMEOUT_MS = 60_000;

/** What one node traces of one run while it drives it: a stretch, from start or resumption to park, stop or end. */
interface Stretch {
  readonly span: Span;
  readonly context: Context;
  /** Whether its spans are real (an SDK is registered): only then do attempts have context to hand on. */
  readonly real: boolean;
  /**
   * Whether its span is recorded. One that is not (its trace was sampled out) has no child spans
   * made: they would not be recorded either (a child of a span not sampled is not, by default), and
   * making them would cost as much as recording them. Calls hand on the stretch's own context.
   */
  readonly recording: boolean;
  /** The stretch's own context as a carrier, for the attempts of a stretch not recorded. */
  carrier: TraceCarrier | undefined;
  /** Model calls going on, by `step#attempt`. */
  readonly models: Map<string, Span>;
  /** Calls going on, by call id. */
  readonly calls: Map<string, CallTrace>;
  /** When its trace was made for a run not started yet (`performance.now()`); undefined once `run-started` came. */
  starting: number | undefined;
}

/** A call going on: its span, and its attempt going on. */
interface CallTrace {
  readonly span: Span;
  /** The call span's context, made when an attempt of it gets a span. */
  context: Context | undefined;
  /** How many attempts of it began on this stretch. */
  attempts: number;
  /** Whether its attempts have spans of their own (it was retried, or one failed or had its context read). */
  spans: boolean;
  /** Its attempt going on (or its last, ended without a span of its own). */
  attempt: AttemptTrace | undefined;
}

/** One attempt of a call: its span is made only when needed (see {@link enableTracing}). */
interface AttemptTrace {
  readonly started: HookEvents['call-attempt-started'];
  /** When it began (`performance.now()`, which the SDK takes as a start time). */
  readonly began: number;
  span: Span | undefined;
  /** How it ended, if it did before it had a span (its span, made later, ends at once). */
  ended: { readonly at: number; readonly event: HookEvents['call-attempt-ended'] } | undefined;
  /** When the stretch closed while it went on (its span, made later, ends at once, interrupted). */
  interrupted: number | undefined;
}

/**
 * Traces runs with OpenTelemetry, on the runtime's hooks. Spans, each with the run's id
 * (`wardrik.run.id`):
 *
 * - `invoke_agent AGENT`: a stretch of a run one node drives — from its start or resumption to
 *   its end, a park or a stop. The first one's context is journaled with the run: every later
 *   stretch (after a person's answer, a restart, on another node) is its child, in the same trace.
 *   GenAI conventions: `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.agent.name`,
 *   `gen_ai.agent.description`, `gen_ai.request.model` (of the agent's model), `gen_ai.conversation.id`
 *   (the session), `gen_ai.usage.*` (of the whole run, at its end).
 * - `chat MODEL`: one model call (GenAI conventions: `gen_ai.operation.name`, `gen_ai.provider.name`,
 *   `gen_ai.request.model` — the model the provider was asked for, `gpt-4o-mini` of
 *   `openai:gpt-4o-mini` —, `gen_ai.response.model`, `gen_ai.response.id`, `server.address`/`port`
 *   when the model says where it sends requests, `gen_ai.usage.input_tokens`/`output_tokens`,
 *   `gen_ai.response.finish_reasons`).
 * - `execute_tool TOOL`: a call, until it settles (`gen_ai.tool.call.id`: the id the model gave the
 *   call, which its tool call carries; `gen_ai.tool.type`: `function`, or `extension` for an MCP
 *   server's or a worker's; `gen_ai.tool.description`; `wardrik.call.id`, `wardrik.call.outcome`,
 *   `wardrik.call.attempts`).
 *
 * A call or model call cut short by a cancel of its run is not an error: its span's status is left
 * unset, with a `wardrik.cancelled` event (`wardrik.call.outcome` `cancelled`). The GenAI client
 * metrics are recorded too, through the metrics API (see {@link TracingOptions.genAiMetrics}).
 * - `attempt TOOL`: one attempt of a call, a child of its `execute_tool` span, whose context goes to
 *   workers and MCP servers in `_meta` (`traceparent`, `tracestate`) and to the tool's context. Made
 *   for every attempt that needs one: a call tried more than once, an attempt that did not answer
 *   `ok` (an error, a park, a timeout, a lost worker, a cancel), an attempt whose context was read (a
 *   worker's, an MCP server's, a child run's, a tool's that reads `context.traceContext`). A call
 *   answered at its first attempt by a tool that did not read its context has no attempt span: its
 *   `execute_tool` span says it all (an SDK span costs about as much as a whole step of Wardrik's).
 * - `park KIND`: a wait for a person, from the park to its answer; `wardrik.park.opened` events
 *   mark parks on the stretch that parked.
 *
 * A stretch whose span is not recorded (its trace sampled out) has no spans made under it, as the
 * SDK's default sampler (parent-based) would record none of them; its calls hand on its context.
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
export function enableTracing(wardrik: TracedRuntime, options: TracingOptions = {}): () => void {
  const { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } = otelApi();
  const tracer = options.tracer ?? trace.getTracer('wardrik');
  const content = options.includeContent === true;
  const hooks = wardrik.hooks;
  /** What content capture may write of a text: known shapes of secrets redacted. */
  const text = (value: string): string => redactText(value);
  const agentNamed = (name: string) => wardrik.agents?.().find((agent) => agent.name === name);
  const stretches = new Map<string, Stretch>();
  /** Runs whose trace was made as they started, until `run-started` comes (or their start is given up on). */
  const starting = new Set<string>();
  let sweeper: NodeJS.Timeout | undefined;

  const open = (runId: string, agent: string, parent: Context, resumed: boolean): Stretch => {
    const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent' };
    const defined = agentNamed(agent);
    if (defined) {
      const names = genAiModelNames(defined.model.id, defined.model);
      attributes['gen_ai.provider.name'] = names.provider;
      attributes['gen_ai.request.model'] = names.requestModel;
    }
    attributes['gen_ai.agent.name'] = agent;
    attributes['wardrik.run.id'] = runId;
    if (defined?.description) attributes['gen_ai.agent.description'] = defined.description;
    if (resumed) attributes['wardrik.run.resumed'] = true;
    const span = tracer.startSpan(`invoke_agent ${agent}`, { kind: SpanKind.INTERNAL, attributes }, parent);
    const stretch: Stretch = {
      span,
      context: trace.setSpan(ROOT_CONTEXT, span),
      real: isSpanContextValid(span.spanContext()),
      recording: span.isRecording(),
      carrier: undefined,
      models: new Map(),
      calls: new Map(),
      starting: undefined,
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
    stretches.get(event.runId) ?? open(event.runId, event.agent, journaled(event.trace), true);
  /** Ends a stretch, and whatever of it was still going on. */
  const close = (runId: string, finish: (span: Span) => void): void => {
    const stretch = stretches.get(runId);
    if (!stretch) return;
    stretches.delete(runId);
    starting.delete(runId);
    for (const span of stretch.models.values()) interrupt(span);
    for (const call of stretch.calls.values()) {
      const attempt = call.attempt;
      if (attempt && !attempt.ended) {
        if (attempt.span) interrupt(attempt.span);
        else attempt.interrupted = performance.now();
      }
      interrupt(call.span);
    }
    finish(stretch.span);
    stretch.span.end();
  };
  /** Gives up on runs whose start failed after their trace was made: their span ends, marked so. */
  const sweep = (): void => {
    sweeper = undefined;
    const now = performance.now();
    for (const runId of [...starting]) {
      const since = stretches.get(runId)?.starting;
      if (since !== undefined && now - since < START_TIMEOUT_MS) continue;
      close(runId, (span) => {
        span.setAttribute('wardrik.run.start_failed', true);
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the run did not start' });
      });
      starting.delete(runId);
    }
    if (starting.size > 0) watchStarts();
  };
  const watchStarts = (): void => {
    sweeper ??= setTimeout(sweep, START_TIMEOUT_MS).unref();
  };

  /** Gives an attempt its span (now, or back-dated to when it began; ended at once if it has). */
  const attemptSpan = (call: CallTrace, attempt: AttemptTrace): Span => {
    if (attempt.span) return attempt.span;
    call.spans = true;
    call.context ??= trace.setSpan(ROOT_CONTEXT, call.span);
    const started = attempt.started;
    const span = tracer.startSpan(
      `attempt ${started.tool}`,
      { kind: SpanKind.CLIENT, attributes: { 'gen_ai.tool.name': started.tool }, startTime: attempt.began },
      call.context,
    );
    if (started.modelCallId !== undefined) span.setAttribute('gen_ai.tool.call.id', started.modelCallId);
    span.setAttribute('wardrik.call.id', started.callId);
    span.setAttribute('wardrik.run.id', started.runId);
    span.setAttribute('wardrik.attempt', started.attempt);
    span.setAttribute('wardrik.call.repeatable', started.repeatable);
    span.setAttribute('wardrik.call.idempotency_key', started.idempotencyKey);
    attempt.span = span;
    if (attempt.ended) endAttempt(span, attempt.ended.event, attempt.ended.at);
    else if (attempt.interrupted !== undefined) {
      span.setAttribute('wardrik.interrupted', true);
      span.end(attempt.interrupted);
    }
    return span;
  };
  const endAttempt = (span: Span, event: HookEvents['call-attempt-ended'], at: number): void => {
    span.setAttribute('wardrik.attempt.outcome', event.outcome);
    if (event.outcome === 'error' || event.outcome === 'timeout' || event.outcome === 'lost') {
      span.setAttribute('error.type', event.outcome);
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: content && event.error ? text(event.error) : event.outcome,
      });
    } else if (event.outcome === 'cancelled') span.addEvent('wardrik.cancelled', at);
    span.end(at);
  };
  const startCall = (
    stretch: Stretch,
    event: HookEvents['call-attempt-started'] | HookEvents['call-settled'],
  ): CallTrace => {
    const span = tracer.startSpan(
      `execute_tool ${event.tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': event.tool },
      },
      stretch.context,
    );
    const definition = event.definition;
    if (event.modelCallId !== undefined) span.setAttribute('gen_ai.tool.call.id', event.modelCallId);
    span.setAttribute('gen_ai.tool.type', toolType(event.tool, definition));
    if (definition?.description) span.setAttribute('gen_ai.tool.description', definition.description);
    span.setAttribute('wardrik.call.id', event.callId);
    span.setAttribute('wardrik.run.id', event.runId);
    span.setAttribute('wardrik.step', event.step);
    const schema = definition?.schema.jsonSchema;
    if (content && 'arguments' in event && event.arguments !== undefined) {
      span.setAttribute('gen_ai.tool.call.arguments', JSON.stringify(redactArguments(event.arguments, schema)));
    }
    return { span, context: undefined, attempts: 0, spans: false, attempt: undefined };
  };

  // Spans get at their start what a sampler may decide on (the GenAI operation, model or tool), the
  // rest one by one after: the SDK checks start attributes twice more than those set later.
  const listeners: { [K in HookName]?: (event: HookEvents[K]) => void } = {
    'run-started': (event) => {
      const stretch = stretches.get(event.runId) ?? open(event.runId, event.agent, journaled(event.trace), false);
      stretch.starting = undefined;
      starting.delete(event.runId);
      const span = stretch.span;
      span.setAttribute('wardrik.run.principal', event.principal);
      if (event.session !== undefined) span.setAttribute('gen_ai.conversation.id', event.session);
      if (event.parent) span.setAttribute('wardrik.run.parent', event.parent.runId);
    },
    'run-resumed': (event) => {
      if (stretches.has(event.runId)) return;
      const span = open(event.runId, event.agent, journaled(event.trace), true).span;
      span.setAttribute('wardrik.run.principal', event.principal);
      span.setAttribute('wardrik.run.step', event.step);
    },
    'run-suspended': (event) => close(event.runId, (span) => span.setAttribute('wardrik.run.suspended', event.reason)),
    'run-ended': (event) => {
      if (!stretches.has(event.runId)) open(event.runId, event.agent, journaled(event.trace), false);
      close(event.runId, (span) => {
        const { inputTokens, outputTokens, usd } = event.measures as Record<string, number | undefined>;
        span.setAttribute('wardrik.run.status', event.status);
        span.setAttribute('wardrik.run.labels', [...event.labels]);
        if (inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', inputTokens);
        if (outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', outputTokens);
        if (usd !== undefined) span.setAttribute('wardrik.cost.usd', usd);
        if (event.status === 'failed') {
          span.setStatus({ code: SpanStatusCode.ERROR, message: content ? text(event.error ?? 'failed') : 'failed' });
        } else if (event.status === 'cancelled') span.addEvent('wardrik.cancelled');
      });
    },
    'model-call-started': (event) => {
      const stretch = stretchOf(event);
      if (!stretch.recording) return;
      const names = genAiModelNames(event.model, event.called);
      const attributes: Attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': names.provider,
        'gen_ai.request.model': names.requestModel,
      };
      if (names.serverAddress !== undefined) {
        attributes['server.address'] = names.serverAddress;
        if (names.serverPort !== undefined) attributes['server.port'] = names.serverPort;
      }
      const span = tracer.startSpan(
        `chat ${names.requestModel}`,
        { kind: SpanKind.CLIENT, attributes },
        stretch.context,
      );
      if (names.requestModel !== event.model) span.setAttribute('wardrik.model', event.model);
      span.setAttribute('wardrik.run.id', event.runId);
      span.setAttribute('wardrik.step', event.step);
      span.setAttribute('wardrik.attempt', event.attempt);
      stretch.models.set(`${event.step}#${event.attempt}`, span);
    },
    'model-call-ended': (event) => {
      const stretch = stretches.get(event.runId);
      const key = `${event.step}#${event.attempt}`;
      const span = stretch?.models.get(key);
      if (!stretch || !span) return;
      stretch.models.delete(key);
      const response = event.response;
      if (response?.responseModel !== undefined) span.setAttribute('gen_ai.response.model', response.responseModel);
      if (response?.responseId !== undefined) span.setAttribute('gen_ai.response.id', response.responseId);
      const usage = event.usage;
      if (usage) {
        span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
        span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
        if (usage.cachedInputTokens) span.setAttribute('gen_ai.usage.cache_read.input_tokens', usage.cachedInputTokens);
        if (usage.cacheWriteInputTokens) {
          span.setAttribute('gen_ai.usage.cache_creation.input_tokens', usage.cacheWriteInputTokens);
        }
      }
      const finish = event.finishReason;
      if (finish)
        span.setAttribute('gen_ai.response.finish_reasons', [finish === 'tool-calls' ? 'tool_calls' : finish]);
      if (event.toolCalls !== undefined) span.setAttribute('wardrik.tool_calls', event.toolCalls);
      const usd = event.measures?.['usd'];
      if (usd !== undefined) span.setAttribute('wardrik.cost.usd', usd);
      if (event.retrying !== undefined) span.setAttribute('wardrik.retrying', event.retrying);
      if (event.error === 'cancelled') span.addEvent('wardrik.cancelled');
      else if (event.error !== undefined) {
        span.setAttribute('error.type', 'model_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: content ? text(event.error) : 'the model call failed' });
      }
      span.end();
    },
    'call-attempt-started': (event) => {
      const stretch = stretchOf(event);
      if (!stretch.recording) return;
      let call = stretch.calls.get(event.callId);
      if (!call) {
        call = startCall(stretch, event);
        stretch.calls.set(event.callId, call);
      }
      call.attempts += 1;
      const attempt: AttemptTrace = {
        started: event,
        began: performance.now(),
        span: undefined,
        ended: undefined,
        interrupted: undefined,
      };
      call.attempt = attempt;
      // A call tried again (here, or before a restart) gets a span for each attempt from the start.
      if (call.spans || event.attempt > 1 || call.attempts > 1) attemptSpan(call, attempt);
    },
    'call-attempt-ended': (event) => {
      const call = stretches.get(event.runId)?.calls.get(event.callId);
      const attempt = call?.attempt;
      if (!call || !attempt || attempt.started.attempt !== event.attempt || attempt.ended) return;
      const at = performance.now();
      if (attempt.span) {
        endAttempt(attempt.span, event, at);
        call.attempt = undefined;
        return;
      }
      attempt.ended = { at, event };
      // Anything but a plain answer is worth an attempt span (back-dated to when the attempt began).
      if (event.outcome !== 'ok') attemptSpan(call, attempt);
    },
    'call-settled': (event) => {
      const stretch = stretchOf(event);
      if (!stretch.recording) return;
      const call = stretch.calls.get(event.callId) ?? startCall(stretch, event);
      stretch.calls.delete(event.callId);
      const span = call.span;
      span.setAttribute('wardrik.call.outcome', event.outcome);
      if (call.attempts > 0) span.setAttribute('wardrik.call.attempts', call.attempts);
      if (event.rule !== undefined) span.setAttribute('wardrik.call.rule', event.rule);
      if (event.outcome === 'error' || event.outcome === 'in_doubt') {
        span.setAttribute('error.type', event.outcome);
        span.setStatus({ code: SpanStatusCode.ERROR, message: event.outcome });
      } else if (event.outcome === 'cancelled') span.addEvent('wardrik.cancelled');
      span.end();
    },
    'park-opened': (event) => {
      const attributes: Attributes = { 'wardrik.park.id': event.parkId, 'wardrik.park.kind': event.kind };
      if (event.tool !== undefined) attributes['gen_ai.tool.name'] = event.tool;
      if (event.rule !== undefined) attributes['wardrik.park.rule'] = event.rule;
      if (content) attributes['wardrik.park.reason'] = text(event.reason);
      stretchOf(event).span.addEvent('wardrik.park.opened', attributes);
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
    'run-start-failed': (event) =>
      close(event.runId, (span) => {
        span.setAttribute('wardrik.run.start_failed', true);
        span.setStatus({ code: SpanStatusCode.ERROR, message: content ? text(event.error) : 'the run did not start' });
      }),
  };

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
        const call = parentStretch.calls.get(parent.callId);
        const attempt = call?.attempt;
        const span = call && attempt ? attemptSpan(call, attempt) : (call?.span ?? parentStretch.span);
        from = trace.setSpan(ROOT_CONTEXT, span);
      }
      const stretch = open(runId, agent, from, false);
      stretch.starting = performance.now();
      starting.add(runId);
      watchStarts();
      return toCarrier(stretch.span.spanContext());
    },
    attemptContext: ({ runId, callId, attempt: number }) => {
      const stretch = stretches.get(runId);
      if (!stretch?.real) return undefined;
      if (!stretch.recording) {
        stretch.carrier ??= toCarrier(stretch.span.spanContext());
        return stretch.carrier;
      }
      const call = stretch.calls.get(callId);
      const attempt = call?.attempt;
      if (!call || !attempt || attempt.started.attempt !== number) return undefined;
      if (attempt.span) return toCarrier(attempt.span.spanContext());
      // Its span is made when its context is first read (by a worker, an MCP server, a child run, the tool).
      return deferredCarrier(() => toCarrier(attemptSpan(call, attempt).spanContext()));
    },
    runSpan: (runId) => {
      const stretch = stretches.get(runId);
      return stretch?.real ? toCarrier(stretch.span.spanContext()) : undefined;
    },
  });
  const stopMetrics = options.genAiMetrics === false ? undefined : recordGenAiMetrics(hooks, { meter: options.meter });
  return () => {
    for (const stop of stops) stop();
    stopMetrics?.();
    unpropagate();
    if (sweeper) clearTimeout(sweeper);
    sweeper = undefined;
    for (const runId of [...stretches.keys()]) {
      close(runId, (span) => span.setAttribute('wardrik.run.suspended', 'stopped'));
    }
  };
}

/** Marks a span that was going on when its stretch closed, and ends it. */
function interrupt(span: Span): void {
  span.setAttribute('wardrik.interrupted', true);
  span.end();
}
