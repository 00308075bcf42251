import { type Answer, type Arguments, error, mergeLabels, type Tool } from '@wardrik/core';
import type { CallState } from '../../journal/state.js';
import {
  type CallbackCall,
  checkedAnswer,
  checkedArguments,
  checkedObject,
  invokeCallback,
  toolCallback,
} from '../callbacks.js';
import { NOT_DURABLE } from '../run/run-writer.js';
import { journaledArguments, storableAnswer } from '../storable.js';
import type { CallScope } from './call-scope.js';

/** A call and the tool that runs it (none when no source offers it), as a callback is told of them. */
export interface ToolCall {
  readonly call: CallState;
  readonly tool: Tool<Arguments> | undefined;
}

/**
 * The agent's `beforeTool` callback on a call not yet judged: new arguments are journaled
 * (`call-changed`) and judged as the call's own; an answer (or a failure of the callback)
 * answers the call without running it. Resolves to whether the call is answered.
 */
export async function beforeTool(run: CallScope, { call, tool }: ToolCall): Promise<boolean> {
  const agent = run.agent.name;
  const callback = run.agent.callbacks.beforeTool;
  if (!callback) return false;
  type Changed = { readonly answer: Answer } | { readonly arguments: Record<string, unknown> };
  const { result, failure } = await toolCallback('beforeTool', agent, async (): Promise<Changed | undefined> => {
    const changed = await invokeCallback('beforeTool', agent, callback, {
      ...run.callbackRun(),
      call: callbackCall(call, tool),
    });
    if (changed === undefined) return undefined;
    checkedObject(changed, 'beforeTool', agent, '{ arguments } or { answer }');
    if ('answer' in changed) return { answer: checkedAnswer(changed.answer, 'beforeTool', agent) };
    return { arguments: checkedArguments((changed as { arguments: unknown }).arguments, agent) };
  });
  if (failure) {
    await run.writer.write([run.answered(call, failure)], NOT_DURABLE);
    return true;
  }
  if (result && 'answer' in result) {
    // An answer given in the tool's place carries at least the labels the tool's own would (its `labels` annotation).
    const promised = tool?.annotations.labels;
    const answer = promised?.length
      ? ({ ...result.answer, labels: mergeLabels(result.answer.labels, promised) } as Answer)
      : result.answer;
    await run.writer.write([run.answered(call, storableAnswer(answer), { rule: 'beforeTool' })], NOT_DURABLE);
    return true;
  }
  if (result) return changeArguments(run, call, result.arguments);
  return false;
}

/** Journals the arguments `beforeTool` gave (`call-changed`); resolves to whether they answered the call instead (unusable). */
async function changeArguments(run: CallScope, call: CallState, given: Record<string, unknown>): Promise<boolean> {
  const changed = journaledArguments(given);
  if (changed.invalidArguments !== undefined) {
    const reason = `the beforeTool callback of agent ${run.agent.name} gave arguments that can't be used: ${changed.invalidArguments}`;
    await run.writer.write([run.answered(call, error(reason, { code: 'callback_failed' }))], NOT_DURABLE);
    return true;
  }
  const record = run.writer.record('call-changed', {
    callId: call.callId,
    arguments: changed.arguments,
    by: 'beforeTool',
  });
  await run.writer.write([record], NOT_DURABLE);
  return false;
}

/**
 * The agent's `afterTool` callback on a call's answer: what it returns replaces the answer, which
 * still carries the labels and cost of the real one (a callback cannot wash them away).
 */
export async function afterTool(run: CallScope, { call, tool }: ToolCall, answer: Answer): Promise<Answer> {
  const agent = run.agent.name;
  const callback = run.agent.callbacks.afterTool;
  if (!callback) return answer;
  const { result, failure } = await toolCallback('afterTool', agent, async () => {
    const changed = await invokeCallback('afterTool', agent, callback, {
      ...run.callbackRun(),
      call: callbackCall(call, tool),
      answer,
    });
    if (changed === undefined) return undefined;
    checkedObject(changed, 'afterTool', agent, '{ answer }');
    return checkedAnswer((changed as { answer: unknown }).answer, 'afterTool', agent);
  });
  const replaced = failure ?? result;
  if (!replaced) return answer;
  return storableAnswer({
    ...replaced,
    measures: answer.measures,
    labels: mergeLabels(answer.labels, replaced.labels),
  } as Answer);
}

/** A call as the agent's tool callbacks see it. */
function callbackCall(call: CallState, tool: Tool<Arguments> | undefined): CallbackCall {
  return { callId: call.callId, name: call.name, arguments: call.arguments, annotations: tool?.annotations ?? {} };
}
