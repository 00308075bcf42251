import type { Progress } from '@wardrik/core';
import { onAbort } from '../abort/on-abort.js';
import type { CallAsker } from './worker-questions.js';

/**
 * How a call sent to a worker came out: its result; lost (it may have run, and its answer is
 * gone); cancelled (the caller stopped waiting); or refused — it never reached the worker (a worker
 * on another node that went before its node took the call), so it may be routed again.
 */
export type CallOutcome =
  | { readonly type: 'result'; readonly result: unknown }
  | { readonly type: 'lost'; readonly reason: string }
  | { readonly type: 'cancelled' }
  | { readonly type: 'refused'; readonly reason: string };

/** The answer to a request: a result, the worker's JSON-RPC error, or no answer at all (lost). */
export type Reply =
  | { readonly type: 'result'; readonly result: unknown }
  | { readonly type: 'error'; readonly message: string; readonly code?: number }
  | { readonly type: 'lost'; readonly reason: string };

/** A request waiting for its response. */
export interface Pending {
  readonly method: string;
  settle(reply: Reply): void;
}

/** The connection a call was sent on, as the call sees it. */
export interface CallOwner {
  /** Stops waiting for the call (the worker gets `notifications/cancelled`); false if it already ended. */
  stopCall(call: PendingCall, why: string): boolean;
}

/** How long a call may take, and who hears of its progress. */
export interface CallLimits {
  readonly signal: AbortSignal;
  /** How long the call may go without an answer or progress (ms); each progress report starts it again. */
  readonly idleTimeoutMs: number;
  /** The most the call may take in all, progress or not (ms); never less than `idleTimeoutMs`. */
  readonly maxTimeMs: number;
  readonly onProgress?: ((progress: Progress) => void) | undefined;
  /**
   * Who answers what the worker asks while it runs the call (`elicitation/create`,
   * `sampling/createMessage`): the call's context. None: such questions are refused.
   */
  readonly asker?: CallAsker | undefined;
}

/**
 * A `tools/call` waiting for its answer. Its timer calls back into it; the run's signal, shared by
 * all its calls, watches it through `onAbort` (one listener per signal, not one per call).
 *
 * Its timeout is an idle timeout: progress (a report whose `progress` is greater than the last)
 * starts it again, up to the call's maximum time, after which it is lost whatever it reports.
 */
export class PendingCall implements Pending {
  readonly method = 'tools/call';
  readonly id: number;
  readonly #owner: CallOwner;
  readonly #resolve: (outcome: CallOutcome) => void;
  readonly #limits: CallLimits;
  /** When the call must have ended, progress or not (ms since the epoch). */
  readonly #deadline: number;
  #timer: NodeJS.Timeout;
  /** Whether the running timer ends at the deadline rather than an idle period. */
  #timerAtDeadline = false;
  #lastProgress: number | undefined;
  readonly #stopWatching: () => void;
  /** Questions of the worker open now: the idle timeout waits for them (the deadline does not). */
  #asking = 0;
  #finished = false;
  /** Aborted when the call ends (made when the worker first asks something). */
  #ended: AbortController | undefined;

  constructor(owner: CallOwner, id: number, resolve: (outcome: CallOutcome) => void, limits: CallLimits) {
    this.#owner = owner;
    this.id = id;
    this.#resolve = resolve;
    this.#limits = limits;
    this.#deadline = Date.now() + Math.max(limits.maxTimeMs, limits.idleTimeoutMs);
    this.#timer = this.#startTimer();
    this.#stopWatching = onAbort(limits.signal, () => this.aborted());
  }

  /** The worker answered, or the connection was lost. */
  settle(reply: Reply): void {
    this.#finish(
      reply.type === 'error'
        ? { type: 'result', result: { content: [{ type: 'text', text: reply.message }], isError: true } }
        : reply,
    );
  }

  /**
   * The worker reported progress: passed on and the idle timeout started again, unless `progress`
   * did not grow (MCP requires it to), which is ignored. Returns whether it was taken.
   */
  progress(report: Progress): boolean {
    if (this.#lastProgress !== undefined && report.progress <= this.#lastProgress) return false;
    this.#lastProgress = report.progress;
    if (!this.#timerAtDeadline) {
      clearTimeout(this.#timer);
      this.#timer = this.#startTimer();
    }
    try {
      this.#limits.onProgress?.(report);
    } catch {
      // whoever listens must not break the call
    }
    return true;
  }

  /** Who answers what the worker asks during the call, if anyone. */
  get asker(): CallAsker | undefined {
    return this.#limits.asker;
  }

  /** Aborted once the call has ended (answered, lost, cancelled): questions asked for it stop. */
  get ended(): AbortSignal {
    this.#ended ??= new AbortController();
    if (this.#finished && !this.#ended.signal.aborted) this.#ended.abort(new Error('the call ended'));
    return this.#ended.signal;
  }

  /**
   * The worker asked something (a person, the model): the idle timeout is held until the answer
   * (a person may take their time), then starts again; the call's deadline still holds. Returns the
   * function to call once it is answered.
   */
  asking(): () => void {
    this.#asking += 1;
    if (this.#asking === 1 && !this.#timerAtDeadline) {
      clearTimeout(this.#timer);
      this.#timer = this.#startTimer();
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#asking -= 1;
      if (this.#asking > 0 || this.#finished) return;
      clearTimeout(this.#timer);
      this.#timer = this.#startTimer();
    };
  }

  aborted(): void {
    if (this.#owner.stopCall(this, describeAbort(this.#limits.signal.reason))) this.#finish({ type: 'cancelled' });
  }

  timedOut(): void {
    const { idleTimeoutMs, maxTimeMs } = this.#limits;
    const why = this.#timerAtDeadline
      ? `no answer within ${Math.max(maxTimeMs, idleTimeoutMs)} ms, the most a call may take, progress or not`
      : this.#lastProgress === undefined
        ? `no answer within ${idleTimeoutMs} ms`
        : `no answer or progress within ${idleTimeoutMs} ms of the last progress report`;
    if (this.#owner.stopCall(this, why)) this.#finish({ type: 'lost', reason: why });
  }

  #startTimer(): NodeJS.Timeout {
    const idle = this.#asking > 0 ? Number.POSITIVE_INFINITY : this.#limits.idleTimeoutMs;
    const left = this.#deadline - Date.now();
    this.#timerAtDeadline = left <= idle;
    return setTimeout(onTimeout, Math.max(0, Math.min(idle, left)), this);
  }

  #finish(outcome: CallOutcome): void {
    this.#finished = true;
    clearTimeout(this.#timer);
    this.#ended?.abort(new Error(outcome.type === 'cancelled' ? 'the call was cancelled' : 'the call ended'));
    this.#stopWatching();
    this.#resolve(outcome);
  }
}

function onTimeout(call: PendingCall): void {
  call.timedOut();
}

function describeAbort(reason: unknown): string {
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled';
}
