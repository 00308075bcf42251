import type { Label, StateSource, ToolsetContext } from '@wardrik/core';
import { StateView } from '@wardrik/core';

/** What a step's toolsets are asked with. */
export interface ResolveInput {
  readonly runId: string;
  readonly principal: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly labels: readonly Label[];
  readonly state: StateSource;
  readonly signal: AbortSignal;
}

/**
 * What a toolset is asked with. Its state view and its signal are made when first read: a toolset
 * that reads neither costs an object.
 */
export class StepContext implements ToolsetContext {
  readonly runId: string;
  readonly agentName: string;
  readonly principal: string;
  readonly sessionId?: string;
  readonly step: number;
  readonly labels: readonly Label[];
  readonly #input: ResolveInput;
  readonly #onRead: (labels: readonly Label[]) => void;
  #state: StateView | undefined;
  #controller: AbortController | undefined;
  #signal: AbortSignal | undefined;

  constructor(agentName: string, input: ResolveInput, onRead: (labels: readonly Label[]) => void) {
    this.runId = input.runId;
    this.agentName = agentName;
    this.principal = input.principal;
    if (input.sessionId !== undefined) this.sessionId = input.sessionId;
    this.step = input.step;
    this.labels = input.labels;
    this.#input = input;
    this.#onRead = onRead;
  }

  get state(): StateView {
    this.#state ??= new StateView(this.#input.state, { onRead: this.#onRead });
    return this.#state;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    this.#signal ??= AbortSignal.any([this.#input.signal, this.#controller.signal]);
    return this.#signal;
  }

  /** The toolset took too long: its signal aborts. */
  abort(): void {
    this.#controller ??= new AbortController();
    this.#controller.abort(new Error('timed out'));
  }
}
