import { addMeasures, describeReason } from '@wardrik/core';
import { checkFinalAnswer, firstTripped, trippedError } from '../../agents/final-answer.js';
import { WorkflowStopped } from '../../agents/workflow-agents.js';
import { ModelError } from '../../errors.js';
import type { ModelRequest, ModelResponse, ModelToolCall, RequestedToolCall } from '../../model/model.js';
import type { OfferedTools } from '../../tool-sources/tool-offer.js';
import { backoffDelay, sleep } from '../backoff.js';
import { checkedObject, checkedResponse, invokeCallback } from '../callbacks.js';
import type { CallScope } from '../calls/call-scope.js';
import { journaledArguments } from '../storable.js';
import type { RunAbort } from './run-abort.js';
import type { EndDetail } from './run-end.js';
import { RunFailure } from './run-failure.js';

/** The step's answer, and the callback that gave or replaced it (if one did). */
export interface Generated {
  readonly response: ModelResponse;
  readonly callback?: 'beforeModel' | 'afterModel';
}

/**
 * The step's answer: the model's, unless the agent's `beforeModel` callback gave one instead or
 * its `afterModel` callback replaced it (then `callback` names it). Undefined when the run was
 * cancelled or stopped meanwhile.
 */
export async function generate(
  run: CallScope,
  prepared: { readonly instructions: string; readonly offered: OfferedTools },
): Promise<Generated | undefined> {
  let request: ModelRequest = {
    step: run.state.steps + 1,
    instructions: prepared.instructions,
    messages: run.state.messages,
    tools: prepared.offered.definitions,
    // Plain field, absent undefined: made at every step.
    outputSchema: run.agent.output?.jsonSchema,
  };
  const { beforeModel, afterModel } = run.agent.callbacks;
  const agent = run.agent.name;
  let callback: 'beforeModel' | 'afterModel' | undefined;
  let response: ModelResponse | undefined;
  if (beforeModel) {
    const changed = await invokeCallback('beforeModel', agent, beforeModel, { ...run.callbackRun(), request });
    if (changed !== undefined) {
      checkedObject(changed, 'beforeModel', agent, '{ request } or { response }');
      if ('response' in changed) {
        response = checkedResponse(changed.response, 'beforeModel', agent);
        callback = 'beforeModel';
      } else if ('request' in changed) request = changed.request;
    }
  }
  if (response === undefined) {
    response = await callModel(run, request);
    if (response === undefined) return undefined;
  }
  if (afterModel) {
    const changed = await invokeCallback('afterModel', agent, afterModel, { ...run.callbackRun(), request, response });
    if (changed !== undefined) {
      checkedObject(changed, 'afterModel', agent, '{ response }');
      response = checkedResponse(changed.response, 'afterModel', agent);
      callback = 'afterModel';
    }
  }
  return callback ? { response, callback } : { response };
}

/** Asks the model, retrying what may be retried. Undefined when the run was cancelled or stopped meanwhile. */
async function callModel(run: CallScope, request: ModelRequest): Promise<ModelResponse | undefined> {
  const { attempts } = run.deps.modelRetry;
  const abort = run.abort;
  const step = request.step;
  const hub = run.deps.hub;
  const onTextDelta = (delta: string) => {
    if (hub.hasListeners(run.runId)) {
      hub.emit({ type: 'text-delta', runId: run.runId, seq: run.state.lastSeq, step, delta });
    }
  };
  // A model that answers at once never looks at the signal: it is made only if one does.
  const options = {
    get signal() {
      return abort.signal;
    },
    onTextDelta,
  };
  const hooks = run.deps.hooks;
  for (let tries = 1; ; tries++) {
    const began = hooks.has('model-call-ended') ? performance.now() : 0;
    if (hooks.has('model-call-started')) modelCallStarted(run, { step, tries });
    try {
      const response = await raceAbort(run.agent.model.generate(request, options), abort);
      if (hooks.has('model-call-ended')) modelCallEnded(run, { step, tries, began, response });
      return response;
    } catch (thrown) {
      const retrying = !abort.aborted && retryable(thrown) && tries < attempts;
      if (hooks.has('model-call-ended')) modelCallFailed(run, { step, tries, began, thrown, retrying });
      if (abort.aborted) return undefined;
      if (!retrying) throw modelFailure(thrown, tries);
      const delay = (thrown as { retryAfterMs?: number }).retryAfterMs ?? backoffDelay(run.deps.modelRetry, tries);
      if (hub.hasListeners(run.runId)) {
        hub.emit({
          type: 'model-retry',
          runId: run.runId,
          seq: run.state.lastSeq,
          step,
          attempt: tries,
          delayMs: Math.round(delay),
          error: describeReason(thrown),
        });
      }
      await sleep(delay, abort.signal).catch(() => {});
    }
  }
}

/** Whether a model's failure may be retried: a workflow that stopped or a model error that says so may not. */
function retryable(thrown: unknown): boolean {
  return !(thrown instanceof WorkflowStopped) && !(ModelError.isInstance(thrown) && !(thrown as ModelError).retryable);
}

/** The run's failure when the model failed for good (after `tries` attempts). */
function modelFailure(thrown: unknown, tries: number): RunFailure {
  if (thrown instanceof WorkflowStopped) return new RunFailure(thrown.message);
  if (!retryable(thrown)) return new RunFailure(`the model failed: ${describeReason(thrown)}`);
  return new RunFailure(`the model failed after ${tries} attempts: ${describeReason(thrown)}`);
}

/** One attempt of a model call, for hooks. */
interface ModelAttempt {
  readonly step: number;
  readonly tries: number;
}

function modelCallStarted(run: CallScope, { step, tries }: ModelAttempt): void {
  run.deps.hooks.emit('model-call-started', {
    runId: run.runId,
    agent: run.agent.name,
    trace: run.state.trace,
    step,
    model: run.agent.model.id,
    called: run.agent.model,
    attempt: tries,
  });
}

function modelCallEnded(
  run: CallScope,
  { step, tries, began, response }: ModelAttempt & { readonly began: number; readonly response: ModelResponse },
): void {
  run.deps.hooks.emit('model-call-ended', {
    runId: run.runId,
    agent: run.agent.name,
    trace: run.state.trace,
    step,
    model: run.agent.model.id,
    called: run.agent.model,
    response,
    attempt: tries,
    durationMs: performance.now() - began,
    usage: response.usage,
    ...(response.measures ? { measures: response.measures } : {}),
    finishReason: response.truncated ? 'length' : response.toolCalls.length > 0 ? 'tool-calls' : 'stop',
    toolCalls: response.toolCalls.length,
  });
}

function modelCallFailed(
  run: CallScope,
  failed: ModelAttempt & { readonly began: number; readonly thrown: unknown; readonly retrying: boolean },
): void {
  run.deps.hooks.emit('model-call-ended', {
    runId: run.runId,
    agent: run.agent.name,
    trace: run.state.trace,
    step: failed.step,
    model: run.agent.model.id,
    called: run.agent.model,
    attempt: failed.tries,
    durationMs: performance.now() - failed.began,
    error: run.abort.aborted ? 'cancelled' : describeReason(failed.thrown),
    retrying: failed.retrying,
  });
}

/**
 * A final answer judged before the run may complete: sent back when it does not match the
 * agent's output schema (while retries are left), or the run's failure (no retries left, or an
 * output guardrail tripped); undefined when it stands.
 */
export async function judgeFinalAnswer(
  run: CallScope,
  text: string,
): Promise<{ readonly rejected?: string; readonly failure?: EndDetail } | undefined> {
  const agent = run.agent;
  if (agent.output) {
    const checked = await checkFinalAnswer(agent.output, text);
    if (!checked.ok) {
      if (run.state.outputRejections < agent.maxOutputRetries) return { rejected: checked.reason };
      const tries = run.state.outputRejections + 1;
      return {
        failure: {
          error: `the final answer does not match the agent's output schema after ${tries} tr${tries > 1 ? 'ies' : 'y'}: ${checked.reason}`,
        },
      };
    }
  }
  if (agent.guardrails.output.length === 0) return undefined;
  const tripped = await firstTripped(agent.guardrails.output, 'output', text, run.callbackRun());
  return tripped ? { failure: { error: trippedError(tripped), guardrail: tripped } } : undefined;
}

export function usageMeasures(response: ModelResponse): Record<string, number> {
  const { inputTokens, outputTokens, cachedInputTokens, cacheWriteInputTokens } = response.usage;
  const measures: Record<string, number> = { inputTokens, outputTokens };
  if (cachedInputTokens) measures.cachedInputTokens = cachedInputTokens;
  if (cacheWriteInputTokens) measures.cacheWriteInputTokens = cacheWriteInputTokens;
  return addMeasures(measures, response.measures);
}

function raceAbort<T>(promise: Promise<T>, abort: RunAbort): Promise<T> {
  if (abort.aborted) return Promise.reject(abort.reason);
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = abort.onAbort(() => reject(abort.reason));
    promise.then(
      (value) => {
        stopWaiting();
        resolve(value);
      },
      (reason) => {
        stopWaiting();
        reject(reason);
      },
    );
  });
}

/**
 * A call the model asked for, as the journal keeps it: its id, the model's id for it if any, and its
 * arguments normalized (see `journaledArguments`). Fields are added one by one, absent ones left
 * out (no spreads: this is made at every call).
 */
export function journaledCall(requested: RequestedToolCall, callId: string): ModelToolCall {
  const journaled = journaledArguments(requested.arguments);
  // In the order the journal has always kept them: callId, modelCallId, name, arguments, invalidArguments.
  const call: Record<string, unknown> = { callId };
  if (requested.id !== undefined) call.modelCallId = requested.id;
  call.name = requested.name;
  call.arguments = journaled.arguments;
  if (journaled.invalidArguments !== undefined) call.invalidArguments = journaled.invalidArguments;
  return call as unknown as ModelToolCall;
}
