import { addMeasures, describeType, type Measures, type SampleRequest, type SampleResult } from '@wardrik/core';
import { InvalidInputError } from '../errors.js';
import type { Message, Model, ModelResponse } from '../model/model.js';

/** The most messages one sampling request may carry. */
const MAX_MESSAGES = 200;

/** What asking the agent's model for a call gives: its answer, and what it cost (the call's to report). */
export interface CallSample {
  readonly result: SampleResult;
  readonly measures: Measures;
}

/** Everything one sample needs. */
export interface SampleInput {
  readonly model: Model;
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
 * call to report, so that it counts in the run's measures and budget like any model step.
 */
export async function sampleForCall(input: SampleInput): Promise<CallSample> {
  const request = checkSampleRequest(input.request);
  const limit = input.budgetReached();
  if (limit) throw new InvalidInputError(`sample: the run's budget is reached (${limit}); the model was not asked`);
  input.signal.throwIfAborted();
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
