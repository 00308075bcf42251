import type { StoreError } from '../../errors.js';

/** What happened to each write of a committed batch: undefined if applied, else why it was refused. */
export type Outcomes = readonly (Error | undefined)[];

/** Options of a {@link GroupCommit}. */
export interface GroupCommitOptions<Write> {
  /**
   * Commits `writes` in one transaction, in order. Resolves with each write's outcome (a write may
   * be refused alone, e.g. its lease was lost); rejects if the transaction failed as a whole.
   */
  readonly commit: (writes: readonly Write[]) => Promise<Outcomes>;
  /** How long a non-durable write may wait for a flush, in ms. */
  readonly flushIntervalMs: number;
  /**
   * Flush at once when more journal records than this are queued; a non-durable write made past
   * it waits for its batch to commit (backpressure: writers that never wait for I/O yield, so that
   * the flush overlaps their next writes instead of following them all).
   */
  readonly maxPendingRecords: number;
  /**
   * A batch could not be committed: what was acknowledged may be lost. Returns the error every
   * write of it (and every write queued behind it) rejects with; called once.
   */
  readonly failed: (cause: unknown, lost: { readonly writes: number; readonly records: number }) => StoreError;
  /** A non-durable write, acknowledged already, was refused when its batch committed. */
  readonly refusedAfterAcknowledged: (write: Write, reason: Error) => void;
}

interface Entry<Write> {
  readonly write: Write;
  /** Set for durable writes: they resolve when their batch commits. */
  readonly settle?: { resolve(): void; reject(error: Error): void };
}

interface Batch<Write> {
  readonly entries: Entry<Write>[];
  records: number;
  /** Flush on the next turn of the event loop (a durable write or a read waits), not on the timer. */
  urgent: boolean;
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

function newBatch<Write>(): Batch<Write> {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const done = new Promise<void>((resolvePromise, rejectPromise) => {
    resolve = resolvePromise;
    reject = rejectPromise;
  });
  done.catch(() => {}); // Only the waiters' copies report a failure.
  return { entries: [], records: 0, urgent: false, done, resolve, reject };
}

/**
 * Groups the writes of concurrent runs into shared transactions. Writes are queued; the queue is
 * committed on `setImmediate` once a durable write (or a read) waits, so that every run writing in
 * the same turn of the event loop shares one transaction and one WAL flush, or after
 * `flushIntervalMs` when only non-durable writes wait. One batch is in flight at a time; the next
 * one queues behind it. Durable writes resolve once their batch has committed; non-durable ones
 * at once, unless more than `maxPendingRecords` records are queued (then with their batch). If a batch fails, it and every batch behind it are lost: the writes reject with the
 * error `failed` returns, and every later call does too.
 *
 * @example
 * ```ts
 * const group = new GroupCommit<string>({
 *   commit: async (writes) => writes.map(() => undefined), // one transaction for all of them
 *   flushIntervalMs: 20,
 *   maxPendingRecords: 5_000,
 *   failed: (cause) => new StoreError(`lost: ${String(cause)}`),
 *   refusedAfterAcknowledged: () => {},
 * });
 * await Promise.all([group.enqueue('a', 1, true), group.enqueue('b', 1, true)]); // one commit
 * ```
 */
export class GroupCommit<Write> {
  readonly #options: GroupCommitOptions<Write>;
  #pending: Batch<Write> = newBatch();
  #inFlight: Batch<Write> | undefined;
  #failure: StoreError | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: GroupCommitOptions<Write>) {
    this.#options = options;
  }

  /** The error of the batch that failed, if one did. */
  get failure(): StoreError | undefined {
    return this.#failure;
  }

  /** Queues a write with `records` journal records. */
  enqueue(write: Write, records: number, durable: boolean): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const batch = this.#pending;
    batch.records += records;
    if (!durable) {
      batch.entries.push({ write });
      const over = batch.records > this.#options.maxPendingRecords;
      if (over) batch.urgent = true;
      this.#schedule();
      // Backpressure: past the limit the write waits for its batch (if refused, refusedAfterAcknowledged hears it).
      return over ? batch.done : Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      batch.entries.push({ write, settle: { resolve, reject } });
      batch.urgent = true;
      this.#schedule();
    });
  }

  /** Resolves once every write queued so far is committed (or rejects with the failure). */
  barrier(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#pending.entries.length > 0) {
      this.#pending.urgent = true;
      this.#schedule();
      return this.#pending.done;
    }
    return this.#inFlight?.done ?? Promise.resolve();
  }

  /** Cancels the scheduled flush (for close, after a last barrier). */
  stop(): void {
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#immediate = undefined;
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#inFlight !== undefined || this.#pending.entries.length === 0) return; // #run schedules the next one
    if (this.#pending.urgent) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#immediate ??= setImmediate(() => this.#start());
    } else if (this.#timer === undefined && this.#immediate === undefined) {
      this.#timer = setTimeout(() => this.#start(), this.#options.flushIntervalMs);
    }
  }

  #start(): void {
    this.stop();
    if (this.#inFlight !== undefined || this.#pending.entries.length === 0 || this.#failure) return;
    const batch = this.#pending;
    this.#pending = newBatch();
    this.#inFlight = batch;
    void this.#run(batch);
  }

  async #run(batch: Batch<Write>): Promise<void> {
    let outcomes: Outcomes;
    try {
      outcomes = await this.#options.commit(batch.entries.map((entry) => entry.write));
    } catch (cause) {
      this.#fail(batch, cause);
      return;
    }
    batch.entries.forEach((entry, index) => {
      const refused = outcomes[index];
      if (refused === undefined) entry.settle?.resolve();
      else if (entry.settle) entry.settle.reject(refused);
      else this.#options.refusedAfterAcknowledged(entry.write, refused);
    });
    this.#inFlight = undefined;
    batch.resolve();
    this.#schedule();
  }

  #fail(batch: Batch<Write>, cause: unknown): void {
    const behind = this.#pending;
    const lost = {
      writes: batch.entries.length + behind.entries.length,
      records: batch.records + behind.records,
    };
    const failure = this.#options.failed(cause, lost);
    this.#failure = failure;
    this.#inFlight = undefined;
    this.#pending = newBatch();
    this.stop();
    for (const each of [batch, behind]) {
      for (const entry of each.entries) entry.settle?.reject(failure);
      each.reject(failure);
    }
  }
}
