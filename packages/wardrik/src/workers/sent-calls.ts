import { randomUUID } from 'node:crypto';
import type { Progress } from '@wardrik/core';
import { onAbort } from '../abort/on-abort.js';
import type { WorkerStore } from '../store/worker-store.js';
import type { CallMail, CancelMail, OutcomeMail, ProgressNote } from './node-messages.js';
import type { CallOutcome } from './pending-call.js';
import type { RemoteWorker } from './remote-worker.js';
import type { ToolCall } from './worker-connection.js';

/** What sent calls need from the node sending them. */
export interface SentCallsOptions {
  readonly store: WorkerStore;
  /** This node's id. */
  readonly node: string;
  /** How long a node stays alive without beating (ms): a call waits that much longer than its own limit before giving up. */
  readonly ttlMs: number;
  /** Reads the registry again (an answer came after the worker's tools changed). */
  readonly refresh: () => Promise<void>;
  /** Takes this node's mail and acts on it (an outcome already there wins over a node's death). */
  readonly drain: () => Promise<void>;
  readonly log: (message: string) => void;
}

interface Sent {
  readonly id: string;
  readonly worker: RemoteWorker;
  readonly resolve: (outcome: CallOutcome) => void;
  readonly onProgress: ((progress: Progress) => void) | undefined;
  /** Set once the call is in the target's mail: from then on the target may have taken it. */
  postedAt: number | undefined;
  /** Set once the caller stopped waiting: the target must be told (or the call withdrawn). */
  stopped: string | undefined;
  done: boolean;
  lastProgress: number | undefined;
  timer: NodeJS.Timeout | undefined;
  stopWatching: () => void;
}

/**
 * Calls this node sent to workers connected to other nodes, until each comes out. A call is a
 * message left in the target node's mail; the target answers with a message of its own.
 *
 * - **Answered**: the target's outcome (result, lost, refused, cancelled) is the call's.
 * - **Cancelled** (the run's signal aborts): the call is withdrawn if the target has not taken it,
 *   else the target is told (`cancel`), and its worker gets `notifications/cancelled`.
 * - **The target node dies** (its liveness lapses, by the store's clock): a call still in its mail
 *   is withdrawn and refused (it never reached the worker: route it again); a call it had taken is
 *   lost (it may have run).
 * - **No outcome** long after the call's own limit (the target's beats and its messages both
 *   failing): lost.
 *
 * @example
 * ```ts
 * const sent = new SentCalls({ store, node: me.id, ttlMs: 5_000, refresh, log })
 * const outcome = await sent.send(remoteWorker, { name: 'lookup', arguments: {}, meta, signal, idleTimeoutMs, maxTimeMs })
 * ```
 */
export class SentCalls {
  readonly #options: SentCallsOptions;
  readonly #sent = new Map<string, Sent>();
  /** Withdrawals and cancels under way (`settled` waits for them). */
  readonly #background = new Set<Promise<void>>();

  constructor(options: SentCallsOptions) {
    this.#options = options;
  }

  /** Sends `call` to `worker`'s node and waits for its outcome. */
  send(worker: RemoteWorker, call: ToolCall): Promise<CallOutcome> {
    if (call.signal.aborted) return Promise.resolve({ type: 'cancelled' });
    return new Promise<CallOutcome>((resolve) => {
      const sent: Sent = {
        id: randomUUID(),
        worker,
        resolve,
        onProgress: call.onProgress,
        postedAt: undefined,
        stopped: undefined,
        done: false,
        lastProgress: undefined,
        timer: undefined,
        stopWatching: () => {},
      };
      this.#sent.set(sent.id, sent);
      worker.sending += 1;
      sent.stopWatching = onAbort(call.signal, () => this.#abort(sent, describeAbort(call.signal.reason)));
      const limit = Math.max(call.idleTimeoutMs, call.maxTimeMs) + 2 * this.#options.ttlMs;
      sent.timer = setTimeout(() => this.#giveUp(sent, limit), Math.min(limit, 2_147_483_647));
      const mail: CallMail = {
        type: 'call',
        call: sent.id,
        worker: worker.id,
        name: call.name,
        arguments: call.arguments ?? {},
        meta: call.meta,
        idleTimeoutMs: call.idleTimeoutMs,
        maxTimeMs: call.maxTimeMs,
      };
      this.#track(this.#post(sent, JSON.stringify(mail)));
    });
  }

  /** An outcome from node `from`. One for a call this node no longer waits for is dropped. */
  outcome(from: string, mail: OutcomeMail): void {
    const sent = this.#sent.get(mail.call);
    if (!sent || sent.worker.node.id !== from) return;
    if (mail.revision !== undefined && mail.revision > sent.worker.revision) {
      // The worker's tools changed while it ran the call: the run sees the new ones with the answer.
      this.#track(
        this.#options
          .refresh()
          .catch(() => {})
          .then(() => this.#finish(sent, mail.outcome)),
      );
      return;
    }
    this.#finish(sent, mail.outcome);
  }

  /** Progress a worker on another node reported (a note: late, unknown or not growing is ignored). */
  progress(note: ProgressNote): void {
    const sent = this.#sent.get(note.call);
    if (!sent || sent.done) return;
    if (sent.lastProgress !== undefined && note.progress.progress <= sent.lastProgress) return;
    sent.lastProgress = note.progress.progress;
    try {
      sent.onProgress?.(note.progress);
    } catch {
      // whoever listens must not break the call
    }
  }

  /**
   * The nodes alive at a beat that began at `beganAt` (this process's clock): a call left before
   * then with a node not among them is withdrawn (refused) or, if its node had taken it, lost.
   */
  nodesAlive(alive: ReadonlyMap<string, string>, beganAt: number): void {
    for (const sent of this.#sent.values()) {
      if (sent.done || sent.postedAt === undefined || sent.postedAt >= beganAt) continue;
      if (alive.has(sent.worker.node.id)) continue;
      this.#track(this.#targetGone(sent));
    }
  }

  /**
   * The others took this node for dead (its liveness lapsed): they may have dropped the calls it
   * sent, and their answers with them. Every call waiting is lost.
   */
  lapsed(): void {
    for (const sent of [...this.#sent.values()]) {
      this.#stop(sent, 'the node driving the run was taken for dead');
      this.#finish(sent, {
        type: 'lost',
        reason: `node ${this.#options.node} was taken for dead by the others (its liveness lapsed) while worker ${sent.worker.id} on node ${sent.worker.node.name} ran the call, so its answer may be lost`,
      });
    }
  }

  /** This node stops: every call still waiting is lost, and its target told. */
  stopAll(): void {
    for (const sent of [...this.#sent.values()]) {
      this.#stop(sent, 'the node driving the run is stopping');
      this.#finish(sent, { type: 'lost', reason: 'the node driving the run is stopping' });
    }
  }

  /** Resolves once every withdrawal and cancel under way is done. */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  async #post(sent: Sent, body: string): Promise<void> {
    const { store, node } = this.#options;
    const target = sent.worker.node;
    let posted: boolean;
    try {
      posted = await store.post(target.id, { id: sent.id, from: node, body });
    } catch (cause) {
      // It may or may not be in the target's mail: withdrawing it tells.
      const withdrawn = await store.withdraw(sent.id).catch(() => false);
      this.#finish(
        sent,
        withdrawn
          ? { type: 'refused', reason: `the call could not be left for node ${target.name}: ${describe(cause)}` }
          : {
              type: 'lost',
              reason: `leaving the call for node ${target.name} failed (${describe(cause)}), and whether it got there is unknown`,
            },
      );
      return;
    }
    if (!posted) {
      this.#finish(sent, { type: 'refused', reason: `node ${target.name} is not alive any more` });
      return;
    }
    sent.postedAt = Date.now();
    if (sent.stopped !== undefined) await this.#tellTarget(sent, sent.stopped);
  }

  /** The caller stopped waiting: cancelled at once; the target is told in the background. */
  #abort(sent: Sent, why: string): void {
    if (sent.done) return;
    this.#stop(sent, why);
    this.#finish(sent, { type: 'cancelled' });
  }

  /** Tells the target (once the call is posted) that nobody waits for the call any more. */
  #stop(sent: Sent, why: string): void {
    if (sent.done || sent.stopped !== undefined) return;
    sent.stopped = why;
    if (sent.postedAt !== undefined) this.#track(this.#tellTarget(sent, why));
  }

  /** Withdraws the call if the target has not taken it, else asks the target to cancel it. */
  async #tellTarget(sent: Sent, why: string): Promise<void> {
    const { store, node, log } = this.#options;
    const target = sent.worker.node;
    try {
      if (await store.withdraw(sent.id)) return;
      const cancel: CancelMail = { type: 'cancel', call: sent.id, reason: why };
      await store.post(target.id, { id: randomUUID(), from: node, body: JSON.stringify(cancel) });
    } catch (cause) {
      log(`could not tell node ${target.name} to cancel call ${sent.id}: ${describe(cause)}`);
    }
  }

  async #targetGone(sent: Sent): Promise<void> {
    const target = sent.worker.node;
    // A node that stopped may have left the outcome first (a worker closed with its node).
    await this.#options.drain();
    if (sent.done) return;
    const withdrawn = await this.#options.store.withdraw(sent.id).catch(() => false);
    this.#finish(
      sent,
      withdrawn
        ? { type: 'refused', reason: `node ${target.name} stopped before it took the call` }
        : {
            type: 'lost',
            reason: `node ${target.name}, where worker ${sent.worker.id} is connected, stopped renewing its liveness while the call ran`,
          },
    );
  }

  #giveUp(sent: Sent, limit: number): void {
    if (sent.done) return;
    this.#stop(sent, `no outcome within ${limit} ms`);
    this.#finish(sent, {
      type: 'lost',
      reason: `no outcome from node ${sent.worker.node.name} within ${limit} ms (the call's limit and two of its liveness periods)`,
    });
  }

  #finish(sent: Sent, outcome: CallOutcome): void {
    if (sent.done) return;
    sent.done = true;
    if (sent.timer) clearTimeout(sent.timer);
    sent.stopWatching();
    sent.worker.sending -= 1;
    this.#sent.delete(sent.id);
    sent.resolve(outcome);
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch(() => {});
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }
}

function describeAbort(reason: unknown): string {
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled';
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
