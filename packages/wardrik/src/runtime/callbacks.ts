import { type Annotations, type Answer, describeReason, error, isAnswer, type Label } from '@wardrik/core';
import type { ModelRequest, ModelResponse } from '../model/model.js';

/** What every callback is told of the run it is called in. */
export interface CallbackRun {
  readonly runId: string;
  /** The agent speaking now (the run's own, or the one it was transferred to). */
  readonly agentName: string;
  readonly principal: string;
  readonly sessionId?: string;
  /** The model step, from 1. */
  readonly step: number;
  /** The run's labels so far. */
  readonly labels: readonly Label[];
}

/** A call as a tool callback sees it. */
export interface CallbackCall {
  readonly callId: string;
  /** The name the model used. */
  readonly name: string;
  readonly arguments: unknown;
  /** The tool's annotations (none for a tool the agent doesn't have). */
  readonly annotations: Annotations;
}

/** What a callback returns: a change, or nothing (a callback written to return nothing is welcome). */
// biome-ignore lint/suspicious/noConfusingVoidType: callbacks that only look return void
type Maybe<T> = T | undefined | void | Promise<T | undefined | void>;

/**
 * ADK's four callbacks, on an agent: each may look at, change or short-circuit the request or
 * answer of a model step or a call. What they decide is journaled (the step's answer, a call's
 * new arguments, a call's answer), so a recovered run replays it rather than asking again. A
 * callback that throws fails its step: the run, for a model callback; the call (with an error
 * answer the model reads), for a tool callback. Callbacks can tighten but never loosen the gates:
 * a call whose arguments `beforeTool` changed is judged by the policy as changed, and an answer
 * `afterTool` replaces still carries the labels and cost of the real one.
 *
 * @example
 * ```ts
 * const support = defineAgent({
 *   name: 'support',
 *   instructions: 'Help customers.',
 *   model,
 *   tools: [refund],
 *   callbacks: {
 *     // Cap refunds before the policy judges them.
 *     beforeTool: ({ call }) =>
 *       call.name === 'refund' ? { arguments: { ...(call.arguments as object), amount: 100 } } : undefined,
 *     // Answer greetings without a model call.
 *     beforeModel: ({ request }) =>
 *       request.step === 1 && /^hi\b/i.test(String(request.messages.at(-1)?.content))
 *         ? { response: { text: 'Hello! How can I help?', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } } }
 *         : undefined,
 *   },
 * })
 * ```
 */
export interface AgentCallbacks {
  /** Before each model call: return `{ request }` to change what the model is asked, or `{ response }` to answer instead of it. */
  readonly beforeModel?: (
    input: CallbackRun & { readonly request: ModelRequest },
  ) => Maybe<{ readonly request: ModelRequest } | { readonly response: ModelResponse }>;
  /** After each model call: return `{ response }` to replace its answer. */
  readonly afterModel?: (
    input: CallbackRun & { readonly request: ModelRequest; readonly response: ModelResponse },
  ) => Maybe<{ readonly response: ModelResponse }>;
  /**
   * Before a call is judged and run: return `{ arguments }` to run it with others (the policy
   * judges those), or `{ answer }` to answer it without running the tool.
   */
  readonly beforeTool?: (
    input: CallbackRun & { readonly call: CallbackCall },
  ) => Maybe<{ readonly arguments: Record<string, unknown> } | { readonly answer: Answer }>;
  /** After a call answered (before the answer is journaled): return `{ answer }` to replace it. */
  readonly afterTool?: (
    input: CallbackRun & { readonly call: CallbackCall; readonly answer: Answer },
  ) => Maybe<{ readonly answer: Answer }>;
}

/** The names of the callbacks, as errors and the journal name them. */
export type CallbackName = keyof AgentCallbacks;

/** A callback threw, or returned something it may not. */
export class CallbackFailure extends Error {
  constructor(
    readonly callback: CallbackName,
    agent: string,
    detail: string,
  ) {
    super(`the ${callback} callback of agent ${agent} failed: ${detail}`);
  }
}

/** Calls a callback, turning what it throws into a `CallbackFailure` that names it. */
export async function invokeCallback<I, O>(
  name: CallbackName,
  agent: string,
  callback: (input: I) => Maybe<O>,
  input: I,
): Promise<O | undefined> {
  try {
    const result = await callback(input);
    return result ?? undefined;
  } catch (thrown) {
    throw new CallbackFailure(name, agent, describeReason(thrown));
  }
}

/** Checks an object a callback returned: `key` must be present and an object. */
export function checkedObject(value: unknown, name: CallbackName, agent: string, expected: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CallbackFailure(name, agent, `it returned ${describeValue(value)}; expected ${expected}`);
  }
}

/** A model answer a callback gave: text and tool calls as a model gives them (usage counts nothing when left out). */
export function checkedResponse(value: unknown, name: CallbackName, agent: string): ModelResponse {
  checkedObject(value, name, agent, 'a response such as { text, toolCalls: [] }');
  const { text = '', toolCalls = [], usage } = value as Partial<ModelResponse>;
  if (typeof text !== 'string')
    throw new CallbackFailure(name, agent, `its response.text is ${describeValue(text)}, not a string`);
  if (!Array.isArray(toolCalls)) {
    throw new CallbackFailure(name, agent, `its response.toolCalls is ${describeValue(toolCalls)}, not an array`);
  }
  for (const [index, each] of toolCalls.entries()) {
    if (typeof each !== 'object' || each === null || typeof each.name !== 'string') {
      throw new CallbackFailure(name, agent, `its response.toolCalls[${index}] has no name`);
    }
  }
  const counted = (count: unknown) => (typeof count === 'number' && Number.isFinite(count) && count >= 0 ? count : 0);
  return {
    text,
    toolCalls,
    usage: { inputTokens: counted(usage?.inputTokens), outputTokens: counted(usage?.outputTokens) },
    ...((value as ModelResponse).truncated ? { truncated: true } : {}),
  };
}

/** New arguments a `beforeTool` callback gave: a JSON object. */
export function checkedArguments(value: unknown, agent: string): Record<string, unknown> {
  checkedObject(value, 'beforeTool', agent, '{ arguments: { … } }');
  return value as Record<string, unknown>;
}

/** An answer a tool callback gave: one made with `ok()` or `error()`. */
export function checkedAnswer(value: unknown, name: CallbackName, agent: string): Answer {
  if (!isAnswer(value) || value.type === 'park') {
    throw new CallbackFailure(
      name,
      agent,
      `its answer is ${describeValue(value)}; expected one made with ok() or error()`,
    );
  }
  return value;
}

/** Calls the tool callback `name`, answering the call with an error that names it if it fails. */
export async function toolCallback<O>(
  name: 'beforeTool' | 'afterTool',
  agent: string,
  run: () => Promise<O | undefined>,
): Promise<{ readonly result?: O; readonly failure?: Answer }> {
  try {
    const result = await run();
    return result === undefined ? {} : { result };
  } catch (thrown) {
    const reason =
      thrown instanceof CallbackFailure
        ? thrown.message
        : new CallbackFailure(name, agent, describeReason(thrown)).message;
    return { failure: error(reason, { code: 'callback_failed' }) };
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
