import { randomUUID } from 'node:crypto';
import type { Progress } from '@wardrik/core';
import type { WorkerStore } from '../store/worker-store.js';
import { type CallMail, type CancelMail, type OutcomeMail, progressNote } from './node-messages.js';
import type { CallOutcome } from './pending-call.js';
import type { WorkerConnection } from './worker-connection.js';
import { ELSEWHERE_ASKER } from './worker-questions.js';

/** What served calls need from the node serving them. */
export interface ServedCallsOptions {
  readonly store: WorkerStore;
  /** This node's id and name. */
  readonly node: { readonly id: string; readonly name: string };
  /** The worker connected to this node with this id, if any. */
  readonly worker: (id: string) => WorkerConnection | undefined;
  /** Resolves once the worker's latest tools are offered in the store. */
  readonly offered: (worker: WorkerConnection) => Promise<void>;
  readonly log: (message: string) => void;
}

interface Served {
  readonly from: string;
  readonly controller: AbortController;
  /** When the call came (this process's clock). */
  readonly receivedAt: number;
  readonly progress: ProgressRelay;
}

/** How often an outcome is tried again when the store cannot take it (then the caller's own checks decide). */
const REPLY_TRIES = 6;

/**
 * Calls other nodes sent to workers connected to this node: each runs on its worker's connection
 * as a local call does (same timeouts, progress, `notifications/cancelled`), and its outcome is
 * left in the caller's mail. A call for a worker that is not connected here any more is refused
 * (it never reached the worker, so the caller routes it again). A cancel from the caller, or the
 * caller's death (its liveness lapsed), stops the call and its worker is told.
 *
 * @example
 * ```ts
 * const served = new ServedCalls({ store, node: me, worker: (id) => connections.get(id), offered, log })
 * served.serve(message.from, callMail)
 * ```
 */
export class ServedCalls {
  readonly #options: ServedCallsOptions;
  readonly #served = new Map<string, Served>();
  readonly #work = new Set<Promise<void>>();
  #closing = false;

  constructor(options: ServedCallsOptions) {
    this.#options = options;
  }

  /** Calls in flight for other nodes. */
  get size(): number {
    return this.#served.size;
  }

  /** Runs a call node `from` sent, and leaves its outcome in `from`'s mail. */
  serve(from: string, mail: CallMail): void {
    if (this.#served.has(mail.call)) return;
    const worker = this.#options.worker(mail.worker);
    if (!worker || worker.closed || this.#closing) {
      const why = this.#closing
        ? `node ${this.#options.node.name} is stopping`
        : `worker ${mail.worker} is not connected to node ${this.#options.node.name} any more`;
      this.#track(this.#reply(from, mail.call, { type: 'refused', reason: why }));
      return;
    }
    const controller = new AbortController();
    const served: Served = {
      from,
      controller,
      receivedAt: Date.now(),
      progress: new ProgressRelay(this.#options.store, from, mail.call),
    };
    this.#served.set(mail.call, served);
    const running = worker
      .callTool({
        name: mail.name,
        arguments: mail.arguments,
        meta: mail.meta,
        signal: controller.signal,
        idleTimeoutMs: mail.idleTimeoutMs,
        maxTimeMs: mail.maxTimeMs,
        onProgress: (progress) => served.progress.report(progress),
        // The person and the model the worker could ask are the run's node's.
        asker: ELSEWHERE_ASKER,
      })
      .then(async (outcome) => {
        this.#served.delete(mail.call);
        // Cancelled: the caller stopped waiting (or is gone), so it expects nothing.
        if (outcome.type === 'cancelled') return;
        await this.#options.offered(worker).catch(() => {});
        await this.#reply(from, mail.call, outcome, worker.revision);
      });
    this.#track(running);
  }

  /** The caller stopped waiting for a call: its worker gets `notifications/cancelled`. */
  cancel(from: string, mail: CancelMail): void {
    const served = this.#served.get(mail.call);
    if (served?.from === from) served.controller.abort(new Error(mail.reason));
  }

  /**
   * The nodes alive at a beat that began at `beganAt` (this process's clock): a call received
   * before then from a node not among them is cancelled (nobody waits for it any more).
   */
  callersAlive(alive: ReadonlyMap<string, string>, beganAt: number): void {
    for (const served of this.#served.values()) {
      if (served.receivedAt >= beganAt || alive.has(served.from)) continue;
      served.controller.abort(new Error('the node driving the run stopped renewing its liveness'));
    }
  }

  /** Refuses calls from now on (this node stops); calls in flight end as their connections close. */
  close(): void {
    this.#closing = true;
  }

  /** Resolves once every call served has ended and its outcome was left (or given up on). */
  async idle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /** Leaves a call's outcome in its caller's mail, trying again a few times if the store fails. */
  async #reply(to: string, call: string, outcome: CallOutcome, revision?: number): Promise<void> {
    const mail: OutcomeMail = { type: 'outcome', call, outcome, ...(revision === undefined ? {} : { revision }) };
    const body = JSON.stringify(mail);
    for (let attempt = 1; ; attempt++) {
      try {
        // false: the caller is not alive any more, and nobody waits for the outcome.
        await this.#options.store.post(to, { id: randomUUID(), from: this.#options.node.id, body });
        return;
      } catch (cause) {
        if (attempt >= REPLY_TRIES) {
          this.#options.log(
            `the outcome of call ${call} could not be left for its node: ${cause instanceof Error ? cause.message : String(cause)}`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      }
    }
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((cause: unknown) =>
      this.#options.log(`serving a call for another node failed: ${cause instanceof Error ? cause.message : cause}`),
    );
    this.#work.add(tracked);
    void tracked.finally(() => this.#work.delete(tracked));
  }
}

/**
 * Passes a call's progress to the node that sent it, as notes (not kept): one at a time, and
 * only the latest report when several came while one was being sent.
 */
class ProgressRelay {
  readonly #store: WorkerStore;
  readonly #to: string;
  readonly #call: string;
  #sending = false;
  #latest: Progress | undefined;

  constructor(store: WorkerStore, to: string, call: string) {
    this.#store = store;
    this.#to = to;
    this.#call = call;
  }

  report(progress: Progress): void {
    this.#latest = progress;
    if (!this.#sending) void this.#send();
  }

  async #send(): Promise<void> {
    this.#sending = true;
    while (this.#latest !== undefined) {
      const progress = this.#latest;
      this.#latest = undefined;
      await this.#store.note(this.#to, progressNote(this.#call, progress)).catch(() => {
        // best effort: the call's own timeout was started again here, where the worker runs
      });
    }
    this.#sending = false;
  }
}
