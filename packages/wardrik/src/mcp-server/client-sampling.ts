import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CreateMessageRequest, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeReason, type SampleRequest } from '@wardrik/core';
import type { CallSample, RunSampleRequest } from '../runtime/call-sampling.js';
import type { Extra } from './request-scope.js';

/** Asks one MCP client's model on a call's behalf (`sampling/createMessage`). */
export type ClientSampler = (request: SampleRequest, signal: AbortSignal) => Promise<CallSample>;

/** A run being started for an MCP client whose id is not known yet. */
export interface StartingRun {
  /** Names the run: its calls' sampling goes to `sampler` until the returned function is called. */
  attach(runId: string, sampler: ClientSampler): () => void;
  /** No run was started. */
  abandon(): void;
}

/**
 * The MCP clients that the calls of gateway runs ask to sample (`context.sample`), by run: a
 * `tools/call` of a gateway tool attaches its client to the run it starts while it waits for the
 * run, and detaches it when it stops waiting. A call of a run nobody attached (made as a task,
 * after the request ended, on another node) is refused, saying so. Held by a gateway agent's model.
 *
 * @example
 * ```js
 * const starting = samplers.starting()
 * const { runId } = await wardrik.start('support.gateway', input) // (abandon() if this throws)
 * const detach = starting.attach(runId, mcpClientSampler(server, extra, { tool: 'lookup', timeoutMs }))
 * try { await wardrik.wait(runId) } finally { detach() }
 * ```
 */
export class ClientSamplers {
  readonly #byRun = new Map<string, ClientSampler>();
  /** Starts whose run id is not known yet (a call of theirs may ask before `start` resolves). */
  readonly #starting = new Set<Promise<void>>();

  /** Marks a run as being started for a client (see `StartingRun`). */
  starting(): StartingRun {
    let settle = () => {};
    const started = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.#starting.add(started);
    const done = () => {
      this.#starting.delete(started);
      settle();
    };
    return {
      attach: (runId, sampler) => {
        this.#byRun.set(runId, sampler);
        done();
        return () => {
          if (this.#byRun.get(runId) === sampler) this.#byRun.delete(runId);
        };
      },
      abandon: done,
    };
  }

  /** Asks the client attached to the run (waiting for starts under way to name theirs first). */
  async sample(input: RunSampleRequest): Promise<CallSample> {
    let sampler = this.#byRun.get(input.runId);
    while (sampler === undefined && this.#starting.size > 0) {
      await Promise.race(this.#starting);
      sampler = this.#byRun.get(input.runId);
    }
    if (sampler === undefined) {
      throw new Error(
        `sample: run ${input.runId} is a gateway call with no MCP client waiting on it (the call was made as a task, ` +
          'its request ended, or another node runs it), and a gateway agent has no model of its own to ask',
      );
    }
    return sampler(input.request, input.signal);
  }
}

/**
 * Asks the MCP client that sent a `tools/call` (on that request's stream) to sample:
 * `sampling/createMessage` with the call's text messages, system prompt and `maxTokens`, no
 * tools. Refuses at once when the client did not declare `sampling`; the client's refusal or an
 * answer that is not text rejects, naming the tool. MCP reports no usage: the answer is measured
 * as nothing (the client's model, not Wardrik, paid for it).
 */
export function mcpClientSampler(
  server: Server,
  extra: Extra,
  options: { readonly tool: string; readonly timeoutMs: number },
): ClientSampler {
  return async (request, signal) => {
    if (server.getClientCapabilities()?.sampling === undefined) {
      throw new Error(
        `sample: the MCP client that called ${options.tool} did not declare the sampling capability, so its model can't be asked`,
      );
    }
    const params: CreateMessageRequest['params'] = {
      messages: request.messages.map((message) => ({
        role: message.role,
        content: { type: 'text', text: message.text },
      })),
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      maxTokens: request.maxTokens,
    };
    let result: Awaited<ReturnType<typeof extra.sendRequest<typeof CreateMessageResultSchema>>>;
    try {
      result = await extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, {
        signal: AbortSignal.any([signal, extra.signal]),
        timeout: options.timeoutMs,
      });
    } catch (cause) {
      throw new Error(`sample: the MCP client that called ${options.tool} did not sample: ${describeReason(cause)}`);
    }
    const blocks = Array.isArray(result.content) ? result.content : [result.content];
    const texts = blocks.map((block: { type: string; text?: unknown }) => {
      if (block.type !== 'text' || typeof block.text !== 'string') {
        throw new Error(
          `sample: the MCP client that called ${options.tool} answered with ${block.type} content; only text can be sampled`,
        );
      }
      return block.text;
    });
    return {
      result: {
        text: texts.join('\n'),
        model: result.model,
        stopReason: result.stopReason === 'maxTokens' ? 'maxTokens' : 'endTurn',
      },
      measures: {},
    };
  };
}
