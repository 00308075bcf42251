import type { InputQuestion, InputReply } from '@wardrik/core';
import { InvalidInputError, ParkNotFoundError } from '../errors.js';
import type { Park, ParkDecision } from '../journal/records.js';
import type { ParkRow } from '../store/store.js';
import { checkQuestion, replyOf } from './calls/input-parks.js';

/** How often a question asked for work looks whether it was answered on another node (signals come first). */
const POLL_MS = 1_000;

/** What asking a person for long-running work needs from the runtime. */
export interface WorkQuestionsDeps {
  /** The open `external` park of the run waiting for `handle`, if any. */
  readonly findWork: (handle: string) => Promise<ParkRow | undefined>;
  /** Journals the question (an `input` park of the work's call) in the run waiting for it. */
  readonly open: (work: ParkRow, question: InputQuestion) => Promise<Park>;
  readonly getPark: (parkId: string) => Promise<ParkRow | undefined>;
  /** Withdraws the question, best effort (the work stopped waiting). */
  readonly withdraw: (park: Park, reason: string) => Promise<void>;
  /** Calls `listener` when the run's journal grows on another node; returns how to stop. */
  readonly onAppended: (runId: string, listener: () => void) => () => void;
  readonly pollMs?: number;
}

/**
 * Questions a person is asked for long-running work (`Wardrik.requestInputFor`): work a tool
 * started (its call answered `started`, the run parked `external`) that needs input to finish, as
 * an MCP task that turns `input_required`. Each is a park of kind `input` of the work's call; the
 * answer, given on any node, reaches the asker here (at once when given here, else when the run's
 * journal grows or at the next look).
 */
export class WorkQuestions {
  readonly #deps: WorkQuestionsDeps;
  readonly #waiting = new Map<string, (decision: ParkDecision) => void>();
  readonly #stops = new Set<(reason: Error) => void>();

  constructor(deps: WorkQuestionsDeps) {
    this.#deps = deps;
  }

  async ask(handle: string, question: InputQuestion, signal?: AbortSignal): Promise<InputReply> {
    if (typeof handle !== 'string' || handle.length === 0 || handle.length > 256) {
      throw new InvalidInputError(`handle: expected a string of 1–256 characters, got ${JSON.stringify(handle)}`);
    }
    const checked = checkQuestion(question);
    signal?.throwIfAborted();
    const work = await this.#deps.findWork(handle);
    if (!work?.call) throw new ParkNotFoundError(`no run waits for the work ${JSON.stringify(handle)}`);
    const park = await this.#deps.open(work, checked);
    return this.#replyTo(park, signal);
  }

  /** The runtime closes: every asker waiting here is told (their questions are withdrawn when it starts again). */
  close(): void {
    const reason = new Error('the runtime closed before a person answered');
    for (const stop of [...this.#stops]) stop(reason);
  }

  /** A person's answer journaled on this node: the asker waiting for it (if here) has it at once. */
  answered(parkId: string, decision: ParkDecision): void {
    this.#waiting.get(parkId)?.(decision);
  }

  #replyTo(park: Park, signal: AbortSignal | undefined): Promise<InputReply> {
    return new Promise<InputReply>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        this.#waiting.delete(park.id);
        this.#stops.delete(stopHere);
        clearInterval(timer);
        stopFollowing();
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      const look = () => {
        this.#deps
          .getPark(park.id)
          .then((row) => {
            if (row?.status === 'answered' && row.decision)
              finish(() => resolve(replyOf(row.decision as ParkDecision)));
            else if (row?.status !== 'open') finish(() => reject(new Error(`the question ${park.id} was withdrawn`)));
          })
          .catch(() => {}); // looked at again at the next signal or poll
      };
      const onAbort = () => {
        finish(() => reject(signal?.reason ?? new Error('aborted')));
        void this.#deps.withdraw(park, 'the work stopped waiting for an answer').catch(() => {});
      };
      const stopHere = (reason: Error) => finish(() => reject(reason));
      this.#stops.add(stopHere);
      this.#waiting.set(park.id, (decision) => finish(() => resolve(replyOf(decision))));
      const stopFollowing = this.#deps.onAppended(park.runId, look);
      const timer = setInterval(look, this.#deps.pollMs ?? POLL_MS);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }
}
