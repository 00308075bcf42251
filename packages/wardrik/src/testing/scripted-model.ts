import type { Measures } from '@wardrik/core';
import { onAbort } from '../abort/on-abort.js';
import { ModelError } from '../errors.js';
import type {
  GenerateOptions,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  RequestedToolCall,
  Usage,
} from '../model/model.js';

/** One scripted model turn: text, tool calls, or both, with what it cost. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly toolCalls?: readonly RequestedToolCall[];
  /** Default `{ inputTokens: 10, outputTokens: 5 }` (or the model's default). */
  readonly usage?: Usage;
  /** Extra measures, e.g. `{ usd: 0.002 }`. */
  readonly measures?: Measures;
  /** Wait this long first (the signal cuts it short). */
  readonly delayMs?: number;
  /** Fail this turn with this error instead of answering. */
  readonly fail?: Error;
  /** Answer as a model cut off at its output token limit would (`truncated: true`). */
  readonly truncated?: boolean;
}

/** A turn, or a function choosing it from the request (e.g. from the last tool answers). */
export type ScriptedStep = ScriptedTurn | ((request: ModelRequest) => ScriptedTurn);

/** A whole script: turns by step, or one function for every step. */
export type Script = readonly ScriptedStep[] | ((request: ModelRequest) => ScriptedTurn);

/**
 * A model that plays a script, for tests, benchmarks and offline demos. The turn is chosen by
 * the request's step number, so a run recovered in a new process gets the same turns.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }] },
 *   (request) => ({ text: `Your order is ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
 * ])
 * ```
 */
export class ScriptedModel implements Model {
  readonly id: string;
  /** How many times `generate` was called. */
  calls = 0;
  readonly #script: Script;
  readonly #usage: Usage;
  readonly #stream: boolean;

  constructor(script: Script, options: { id?: string; usage?: Usage; stream?: boolean } = {}) {
    this.#script = script;
    this.id = options.id ?? 'scripted';
    this.#usage = options.usage ?? { inputTokens: 10, outputTokens: 5 };
    this.#stream = options.stream ?? false;
  }

  async generate(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse> {
    this.calls += 1;
    const turn = this.#turn(request);
    if (turn.delayMs) await delay(turn.delayMs, options.signal);
    if (turn.fail) throw turn.fail;
    const text = turn.text ?? '';
    if (this.#stream && options.onTextDelta) {
      for (const piece of text.split(/(?<= )/)) options.onTextDelta(piece);
    }
    return {
      text,
      toolCalls: turn.toolCalls ?? [],
      usage: turn.usage ?? this.#usage,
      ...(turn.measures ? { measures: turn.measures } : {}),
      ...(turn.truncated ? { truncated: true } : {}),
    };
  }

  #turn(request: ModelRequest): ScriptedTurn {
    if (typeof this.#script === 'function') return this.#script(request);
    const step = this.#script[request.step - 1];
    if (step === undefined) {
      throw new ModelError(`ScriptedModel: the script has no turn for step ${request.step}`, { retryable: false });
    }
    return typeof step === 'function' ? step(request) : step;
  }
}

/** The tool answers the model got since its last turn, in call order. */
export function lastToolResults(request: ModelRequest): Array<Message & { role: 'tool' }> {
  const results: Array<Message & { role: 'tool' }> = [];
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index] as Message;
    if (message.role !== 'tool') break;
    results.unshift(message);
  }
  return results;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      stopWaiting();
      resolve();
    }, ms);
    const stopWaiting = onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
