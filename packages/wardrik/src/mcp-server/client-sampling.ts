import type { SampleRequest } from '@wardrik/core';
import type { CallSample, RunSampleRequest } from '../runtime/calls/call-sampling.js';

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
