import { addMeasures, describeType, type Measures, type SampleRequest, type SampleResult } from '@wardrik/core';
import { InvalidInputError } from '../../errors.js';
import type { Message, Model, ModelResponse } from '../../model/model.js';

/** The most messages one sampling request may carry. */
const MAX_MESSAGES = 200;

/** What asking the agent's model for a call gives: its answer, and what it cost (the call's to report). */
export interface CallSample {
  readonly result: SampleResult;
  readonly measures: Measures;
}

/** What a model that answers calls' sampling itself is asked (see `SAMPLES_FOR_RUN`). */
export interface RunSampleRequest {
  /** The run whose call asks. */
  readonly runId: string;
  /** The request, checked. */
  readonly request: SampleRequest;
  readonly signal: AbortSignal;
}

/**
 * The method by which a model answers a call's sampling itself, knowing the run, instead of
 * `generate`: the MCP gateway's model hands it to the MCP client that made the call. Only
 * Wardrik's own models have it; it is not part of the public `Model`.
 */
export const SAMPLES_FOR_RUN: unique symbol = Symbol('wardrik.samplesForRun');

/** A model with `SAMPLES_FOR_RUN`. */
export interface RunSampler {
  [SAMPLES_FOR_RUN](input: RunSampleRequest): Promise<CallSample>;
}

/** Everything one sample needs. */
export interface SampleInput {
  readonly model: Model;
  /** The run whose call asks (a model with `SAMPLES_FOR_RUN` is given it). */
  readonly runId?: string;
  readonly request: SampleRequest;
  /** Which model step of the run the call belongs to. */
  readonly step: number;
  readonly signal: AbortSignal;
  /** Why the run may not spend more (its budget is reached), or undefined. */
  readonly budgetReached: () => string | undefined;
}

/**
 * Asks the agent's model on a call's behalf (`ToolContext.sample`): the request is checked
 * (text only), refused once the run's budget is reached, and what it cost is returned for the
 * call to report, so that it counts in the run's measures and budget like any model step. A model
 * with `SAMPLES_FOR_RUN` (the MCP gateway's) answers through it rather than `generate`.
 */
export async function sampleForCall(input: SampleInput): Promise<CallSample> {
  const request = checkSampleRequest(input.request);
  const limit = input.budgetReached();
  if (limit) throw new InvalidInputError(`sample: the run's budget is reached (${limit}); the model was not asked`);
  input.signal.throwIfAborted();
  const own = (input.model as Partial<RunSampler>)[SAMPLES_FOR_RUN];
  if (own && input.runId !== undefined) {
    return own.call(input.model, { runId: input.runId, request, signal: input.signal });
  }
  const messages: Message[] = request.messages.map((message) =>
    message.role === 'user'
      ? { role: 'user', content: message.text }
      : { role: 'assistant', text: message.text, toolCalls: [] },
  );
  const response = await input.model.generate(
    { step: input.step, instructions: request.systemPrompt ?? '', messages, tools: [] },
    { signal: input.signal },
  );
  return {
    result: { text: response.text, model: input.model.id, stopReason: response.truncated ? 'maxTokens' : 'endTurn' },
    measures: responseMeasures(response),
  };
}

function responseMeasures(response: ModelResponse): Measures {
  const { inputTokens, outputTokens } = response.usage;
  return addMeasures({ inputTokens, outputTokens }, response.measures);
}

/** Checks a sampling request as a tool gave it, naming what is wrong. */
export function checkSampleRequest(request: unknown): SampleRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new InvalidInputError(`sample: expected { messages, maxTokens }, got ${describeType(request)}`);
  }
  const { messages, systemPrompt, maxTokens } = request as Record<string, unknown>;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) {
    throw new InvalidInputError(`sample.messages: expected a list of 1 to ${MAX_MESSAGES} messages`);
  }
  messages.forEach((message: unknown, index) => {
    const { role, text } = (message ?? {}) as Record<string, unknown>;
    if (role !== 'user' && role !== 'assistant') {
      throw new InvalidInputError(`sample.messages[${index}].role: expected 'user' or 'assistant'`);
    }
    if (typeof text !== 'string') {
      throw new InvalidInputError(`sample.messages[${index}].text: expected a string (only text can be sampled)`);
    }
  });
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string') {
    throw new InvalidInputError(`sample.systemPrompt: expected a string, got ${describeType(systemPrompt)}`);
  }
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new InvalidInputError(
      `sample.maxTokens: expected a whole number of at least 1, got ${describeType(maxTokens)}`,
    );
  }
  return request as SampleRequest;
}
