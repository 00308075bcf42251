import type * as pg from 'pg';
import type { RunSignal } from '../run-store.js';
import type { WorkerSignal } from '../worker-store.js';
import { pgModule, quoteIdentifier } from './connection.js';

/** A signal of either kind a store sends: about runs, or about workers and the nodes' mail. */
export type StoreSignal = RunSignal | WorkerSignal;

/** Options of {@link Signals}. */
export interface SignalsOptions {
  /** The channel to LISTEN on. */
  readonly channel: string;
  /** This store's id: its own notifications are delivered locally at once, so those heard back are skipped. */
  readonly source: string;
  /** The configuration of the dedicated listening connection. */
  readonly config: pg.ClientConfig;
  /** SQL run on the listening connection before LISTEN (its session setup). */
  readonly setup: string;
}

const RUN_TYPES: ReadonlySet<string> = new Set(['requested', 'claimable', 'appended']);

/** Whether a signal is about a run (else it is about workers). */
export function isRunSignal(signal: StoreSignal): signal is RunSignal {
  return RUN_TYPES.has(signal.type);
}

/** A notification's payload as a signal from another store, or undefined if it is not one. */
export function parseSignal(payload: string | undefined, ownSource: string): StoreSignal | undefined {
  if (payload === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const { type, runId, seq, source, from, to, body } = (value ?? {}) as Record<string, unknown>;
  if (source === ownSource || typeof type !== 'string') return undefined;
  if (RUN_TYPES.has(type)) {
    if (typeof runId !== 'string') return undefined;
    return {
      type: type as RunSignal['type'],
      runId,
      ...(typeof seq === 'number' && Number.isSafeInteger(seq) ? { seq } : {}),
    };
  }
  if (type === 'workers-changed') return typeof from === 'string' ? { type, from } : undefined;
  if (type === 'mail') return typeof to === 'string' ? { type, to } : undefined;
  if (type === 'note') return typeof to === 'string' && typeof body === 'string' ? { type, to, body } : undefined;
  return undefined;
}

/**
 * A store's signals (about runs, and about workers and the nodes' mail). Its own are delivered to its listeners at once, after the commit that
 * made them (a listener never runs inside a store call); other nodes' arrive through
 * `LISTEN`/`NOTIFY` on one dedicated connection, opened when the first listener comes and closed
 * when the last goes. If that connection drops, it is opened again (100 ms, doubling up to 5 s):
 * signals sent while it was down are not heard, so they are hints, and a node also polls
 * (`claimRuns`, a followed run's journal) at a slower pace.
 *
 * @example
 * ```ts
 * const signals = new Signals({ channel: 'wardrik', source: 'node-a', config: { connectionString: url }, setup: 'SELECT 1' });
 * const stop = signals.on((signal) => console.log(signal.type, signal.runId));
 * await signals.listening(); // other nodes' signals are heard from now on
 * stop();
 * ```
 */
export class Signals {
  readonly #options: SignalsOptions;
  readonly #listeners = new Set<(signal: StoreSignal) => void>();
  #client: pg.Client | undefined;
  #connected = false;
  #running: Promise<void> | undefined;
  #waiters: (() => void)[] = [];
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(options: SignalsOptions) {
    this.#options = options;
  }

  /** Whether anyone listens (so that a store can skip making local signals). */
  get listened(): boolean {
    return this.#listeners.size > 0;
  }

  /** Listens to every signal; returns the function that stops listening. */
  on(listener: (signal: StoreSignal) => void): () => void {
    this.#listeners.add(listener);
    if (!this.#closed) this.#running ??= this.#listen();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#wake?.();
    };
  }

  /** Resolves once other nodes' signals are heard (at once if nobody listens, or once closed). */
  listening(): Promise<void> {
    if (this.#connected || this.#running === undefined || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Delivers one of this store's own signals to its listeners, after the current task. */
  emit(signal: StoreSignal): void {
    if (this.#listeners.size === 0) return;
    queueMicrotask(() => this.#deliver(signal));
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    this.#client?.end().catch(() => {}); // a connection still being made gives up at once
    await this.#running;
    this.#resolveWaiters();
  }

  #deliver(signal: StoreSignal): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(signal);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  #active(): boolean {
    return !this.#closed && this.#listeners.size > 0;
  }

  #resolveWaiters(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Keeps one LISTEN connection open while anyone listens. */
  async #listen(): Promise<void> {
    let delay = 100;
    while (this.#active()) {
      const client = new (pgModule().Client)(this.#options.config);
      this.#client = client;
      // Without a listener an 'error' event would crash the process; #waitUntilDropped hears it too.
      client.on('error', () => {});
      client.on('notification', (message) => {
        if (message.channel !== this.#options.channel) return;
        const signal = parseSignal(message.payload, this.#options.source);
        if (signal) this.#deliver(signal);
      });
      try {
        await client.connect();
        await client.query(this.#options.setup);
        await client.query(`LISTEN ${quoteIdentifier(this.#options.channel)}`);
        this.#connected = true;
        this.#resolveWaiters();
        delay = 100;
        await this.#waitUntilDropped(client);
      } catch {
        // Could not connect: try again after the delay.
      }
      this.#connected = false;
      this.#client = undefined;
      await client.end().catch(() => {});
      if (!this.#active()) break;
      await this.#sleep(delay);
      delay = Math.min(delay * 2, 5_000);
    }
    this.#running = undefined;
    if (this.#listeners.size > 0 && !this.#closed) this.#running = this.#listen(); // a listener came back meanwhile
  }

  /** Resolves when the connection drops, or when nobody listens any more (or the store closes). */
  #waitUntilDropped(client: pg.Client): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        client.off('error', done);
        client.off('end', done);
        this.#wake = undefined;
        resolve();
      };
      client.on('error', done);
      client.on('end', done);
      this.#wake = done;
      if (!this.#active()) done();
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
