import type { CompleteExternal } from './context.js';
import { ToolDefinitionError } from './errors.js';
import type { Label } from './labels.js';
import type { RequestInputFor } from './person-input.js';
import type { StateReader } from './state.js';
import { isValidToolName, type Tool } from './tool.js';

/** What a toolset sees when it is asked which tools it offers now (before every model step). */
export interface ToolsetContext {
  readonly runId: string;
  readonly agentName: string;
  readonly principal: string;
  /** The run's session, if it has one. */
  readonly sessionId?: string;
  /** The model step about to be made (1 for the first). */
  readonly step: number;
  /** The labels the run carries now. */
  readonly labels: readonly Label[];
  /** The state as the step sees it (reading a labelled value labels the run). */
  readonly state: StateReader;
  /** Aborted when the run stops or the toolset takes too long. */
  readonly signal: AbortSignal;
}

/**
 * A source of tools resolved before every model step, so that tools can appear and disappear as
 * the run goes (by state, labels, principal or step). Gates judge its tools like any other.
 * Return the same array while nothing changed: the run then reuses what it built for it.
 */
export interface Toolset {
  /** 1–128 characters of `A–Z a–z 0–9 _ - .`; named in the journal and in errors. */
  readonly name: string;
  /** The tools offered now. A toolset that throws or takes too long is left out of that step. */
  tools(context: ToolsetContext): readonly Tool<never>[] | Promise<readonly Tool<never>[]>;
  /** Releases what the toolset holds (connections, processes); called when the runtime closes. */
  close?(): Promise<void>;
  /**
   * For a toolset whose tools start long-running work they watch themselves (answering
   * `started(reason, { handle })` with handles that begin with `NAME:`): called when the runtime
   * starts, with the handles runs still wait for, so that it watches them again after a restart
   * and delivers their results with `completeExternal` (and asks a person for the work with
   * `requestInputFor`, when it needs input).
   */
  resume?(waiting: {
    readonly handles: readonly string[];
    readonly completeExternal: CompleteExternal;
    readonly requestInputFor?: RequestInputFor;
  }): void | Promise<void>;
}

/** How to build a toolset. */
export interface ToolsetOptions {
  readonly name: string;
  readonly tools: Toolset['tools'];
  readonly close?: () => Promise<void>;
  readonly resume?: Toolset['resume'];
}

/**
 * Builds a toolset. Throws `ToolDefinitionError` naming the field if anything is malformed.
 *
 * @example
 * ```ts
 * const checkout = toolset({
 *   name: 'checkout',
 *   // The payment tool is offered only once the cart holds something.
 *   tools: ({ state }) => ((state.get<string[]>('cart') ?? []).length > 0 ? withPayment : browsing),
 * })
 * const shop = defineAgent({ name: 'shop', instructions: '…', model, toolsets: [checkout] })
 * ```
 */
export function toolset(options: ToolsetOptions): Toolset {
  if (typeof options !== 'object' || options === null)
    throw new ToolDefinitionError('toolset: expected an options object');
  if (!isValidToolName(options.name)) {
    throw new ToolDefinitionError(
      `toolset: name ${JSON.stringify(options.name)} is invalid: use 1–128 characters of A–Z a–z 0–9 _ - .`,
    );
  }
  if (typeof options.tools !== 'function') {
    throw new ToolDefinitionError(`toolset ${options.name}: tools must be a function (context) => Tool[]`);
  }
  if (options.close !== undefined && typeof options.close !== 'function') {
    throw new ToolDefinitionError(`toolset ${options.name}: close must be a function`);
  }
  if (options.resume !== undefined && typeof options.resume !== 'function') {
    throw new ToolDefinitionError(`toolset ${options.name}: resume must be a function`);
  }
  return Object.freeze({
    name: options.name,
    tools: options.tools,
    ...(options.close ? { close: options.close } : {}),
    ...(options.resume ? { resume: options.resume } : {}),
  });
}
