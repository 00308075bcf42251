import {
  type Answer,
  type Approval,
  type Arguments,
  type ArtifactSource,
  type CompleteExternal,
  call,
  createContext,
  describeReason,
  error,
  type InputQuestion,
  type InputReply,
  type Label,
  type MemorySource,
  OUTSIDE,
  type Progress,
  type RequestInputFor,
  type SampleRequest,
  type StateChange,
  type StateSource,
  type Tool,
} from '@wardrik/core';
import type { RunAbort } from '../run/run-abort.js';
import type { CallSample } from './call-sampling.js';

/** How one try of a call came out. */
export type Attempt =
  | { readonly kind: 'answered'; readonly answer: Answer; readonly stateChanges: readonly StateChange[] }
  | { readonly kind: 'timeout'; readonly ms: number; readonly answerSoFar: Answer }
  | { readonly kind: 'cancelled' };

/** Everything one try needs. */
export interface AttemptInput {
  readonly tools: ReadonlyMap<string, Tool<Arguments>>;
  readonly callId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly runId: string;
  readonly agent: string;
  readonly principal: string;
  readonly idempotencyKey: string;
  /** The attempt's fencing token (the seq of its intent in the journal). */
  readonly fencingToken?: number;
  readonly labels: readonly Label[];
  readonly approval?: Approval;
  /** Stops the call when the run is cancelled or the process shuts down; its signal is the tool's. */
  readonly run: RunAbort;
  /** Receives the call's progress reports. */
  readonly onProgress?: (progress: Progress) => void;
  readonly sessionId?: string;
  /** The state the call reads. */
  readonly state?: StateSource;
  /** Why the call may not write `key`, or undefined when it may. */
  readonly stateWriteRefusal?: (key: string) => string | undefined;
  /** Delivers results of long-running work. */
  readonly completeExternal?: CompleteExternal;
  /** Asks a person for long-running work the call started. */
  readonly requestInputFor?: RequestInputFor;
  /** The memory service, scoped to the run (made when the tool first reads `context.memory`). */
  readonly memory?: () => MemorySource | undefined;
  /** The artifact service, scoped to the run and this call (made when the tool first reads `context.artifacts`). */
  readonly artifacts?: () => ArtifactSource | undefined;
  /** Values the runtime gives the tool on its context, by owning module (`getPrivate`). */
  readonly privates?: ReadonlyMap<unknown, unknown>;
  /** The attempt's trace context, when telemetry is on. */
  readonly traceContext?: Readonly<Record<string, string>>;
  /** Asks a person while the call runs (an `input` park); `signal` aborts with the call. */
  readonly requestInput?: (question: InputQuestion, signal: AbortSignal) => Promise<InputReply>;
  /** Asks the agent's model for the call; what it cost is reported on the call's context. */
  readonly sample?: (request: SampleRequest, signal: AbortSignal) => Promise<CallSample>;
}

/** What a call's memory and artifacts are scoped to. */
export interface CallServicesRequest {
  readonly runId: string;
  readonly app: string;
  readonly principal: string;
  readonly sessionId: string | undefined;
  readonly idempotencyKey: string;
}

/** Where a call's memory and artifact services come from (made when its tool first reads them). */
export interface CallServices {
  memoryFor(request: CallServicesRequest): MemorySource;
  artifactsFor(request: CallServicesRequest): ArtifactSource;
}

const onlyTools = new WeakMap<Tool<Arguments>, ReadonlyMap<string, Tool<Arguments>>>();

/** `tool` alone, under the name the call gave it (one map per tool, made once: this is done at every call). */
export function onlyTool(name: string, tool: Tool<Arguments>): ReadonlyMap<string, Tool<Arguments>> {
  let tools = onlyTools.get(tool);
  if (tools?.has(name) !== true) {
    tools = new Map([[name, tool]]);
    onlyTools.set(tool, tools);
  }
  return tools;
}

/**
 * Makes one try of a call: checks its arguments, runs it, and stops waiting when the tool's
 * `timeout` passes (aborting its signal) or the run is cancelled. What the call reported before a
 * timeout is kept.
 */
export async function attemptCall(input: AttemptInput): Promise<Attempt> {
  // Stopped while its intent was being written (a cancel, the process stopping): the tool is not run.
  if (input.run.aborted) return { kind: 'cancelled' };
  const timeout = input.tools.get(input.name)?.annotations.timeout;
  const controller = timeout === undefined ? undefined : new AbortController();
  const context = callContext(input, controller);
  // One promise settled by whichever comes first: the answer, a cancel of the run, the timeout.
  let stopWaiting: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const attempt = new Promise<Attempt>((resolve, reject) => {
    call(input.tools, { id: input.callId, name: input.name, arguments: input.arguments }, context)
      .then((answer) => withSavesLabelled(context, answer))
      .then((answer) => resolve({ kind: 'answered', answer, stateChanges: context.stateChanges }), reject);
    if (input.run.aborted) resolve({ kind: 'cancelled' });
    else stopWaiting = input.run.onAbort(() => resolve({ kind: 'cancelled' }));
    if (controller && timeout !== undefined) {
      timer = setTimeout(() => {
        controller.abort(new Error(`timed out after ${timeout} ms`));
        resolve({ kind: 'timeout', ms: timeout, answerSoFar: snapshot(context) });
      }, timeout);
    }
  });
  try {
    return await attempt;
  } finally {
    if (timer) clearTimeout(timer);
    stopWaiting?.();
  }
}

/** The context the tool is given for one try (`controller`: aborts its signal when the tool's timeout passes). */
function callContext(input: AttemptInput, controller: AbortController | undefined): ReturnType<typeof createContext> {
  const { requestInput, sample } = input;
  const context: ReturnType<typeof createContext> = createContext({
    runId: input.runId,
    agent: input.agent,
    principal: input.principal,
    callId: input.callId,
    idempotencyKey: input.idempotencyKey,
    fencingToken: input.fencingToken,
    // Made when the tool first looks at it: most tools never do.
    signal: controller ? () => AbortSignal.any([input.run.signal, controller.signal]) : () => input.run.signal,
    labels: input.labels,
    // Plain fields, absent ones undefined: conditional spreads cost ~1 µs a property on every call.
    approval: input.approval,
    onProgress: input.onProgress,
    sessionId: input.sessionId,
    state: input.state,
    stateWriteRefusal: input.stateWriteRefusal,
    completeExternal: input.completeExternal,
    requestInputFor: input.requestInputFor,
    memory: input.memory,
    artifacts: input.artifacts,
    toolLabels: input.tools.get(input.name)?.annotations.labels ?? [],
    privates: input.privates,
    traceContext: input.traceContext,
    requestInput:
      requestInput && ((question, options) => requestInput(question, withCallSignal(context.signal, options?.signal))),
    sample:
      sample &&
      (async (request, options) => {
        const sampled = await sample(request, withCallSignal(context.signal, options?.signal));
        for (const [unit, amount] of Object.entries(sampled.measures)) context.measure(unit, amount);
        // The prompt came from the tool, not from the agent's side: what the call answers carries `outside`.
        context.addLabels(OUTSIDE);
        return sampled.result;
      }),
  });
  return context;
}

function withCallSignal(call: AbortSignal, given: AbortSignal | undefined): AbortSignal {
  return given ? AbortSignal.any([call, given]) : call;
}

/**
 * Gives the artifacts the call saved its answer's labels (a tool may say `outside` only in its
 * answer); if that fails, the call fails with an error answer saying so, keeping its labels.
 */
function withSavesLabelled(context: ReturnType<typeof createContext>, answer: Answer): Answer | Promise<Answer> {
  if (answer.type === 'park' || !answer.labels?.length) return answer;
  return labelSaves(context, answer);
}

async function labelSaves(context: ReturnType<typeof createContext>, answer: Answer): Promise<Answer> {
  try {
    await context.labelArtifactSaves(answer.labels ?? []);
    return answer;
  } catch (cause) {
    return error(`the artifacts this call saved could not be labelled: ${describeReason(cause)}`, {
      ...(answer.labels ? { labels: answer.labels } : {}),
      ...(answer.measures ? { measures: answer.measures } : {}),
    });
  }
}

function snapshot(context: ReturnType<typeof createContext>): Answer {
  return {
    type: 'error',
    reason: 'timed out',
    measures: { ...context.measures },
    labels: [...context.addedLabels],
  };
}
