import { StoreError } from '../errors.js';
import { MemoryAuth } from './memory/memory-auth.js';
import { MemoryOAuth } from './memory/memory-oauth.js';
import { MemoryRetention } from './memory/memory-retention.js';
import { MemoryRuns } from './memory/memory-runs.js';
import {
  ARTIFACT_METHODS,
  AUTH_METHODS,
  delegate,
  LEASE_METHODS,
  MEMORY_METHODS,
  OAUTH_METHODS,
  RETENTION_METHODS,
  RUN_METHODS,
  SESSION_METHODS,
  WORKER_METHODS,
} from './parts.js';
import { ProcessArtifacts } from './process-artifacts.js';
import { ProcessLeaseStore } from './process-lease-store.js';
import { ProcessLeases } from './process-leases.js';
import { ProcessMemories } from './process-memories.js';
import { ProcessSessionStore } from './process-session-store.js';
import { ProcessSweepLock } from './process-sweep-lock.js';
import { ProcessWorkerStore } from './process-worker-store.js';
import type { RunStatus, Store } from './store.js';

/** The methods of each store interface, each forwarded to the part that implements it (see `delegate`). */
export interface MemoryStore extends Store {}

/**
 * A store that keeps everything in memory, for tests and benchmarks. Same semantics as the
 * SQLite store (every write is applied at once, so durable and non-durable are alike), nothing on
 * disk. What it stores is kept as JSON, so neither the objects written nor the objects read can
 * change what it holds. A write that conflicts with what is stored (a journal seq or a park id
 * used twice) fails the store, as a failed flush fails the SQLite store.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * const record: JournalRecord = { type: 'park-answered', v: 1, at: 0, parkId: 'p1', decision: { type: 'retry' }, by: 'bob' };
 * await store.write({ runId: 'r1', records: [{ runId: 'r1', seq: 1, record }] }, { durable: true });
 * await store.loadJournal('r1'); // [{ runId: 'r1', seq: 1, record }]
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above names the methods its static block gives it (delegate)
export class MemoryStore {
  #failure: StoreError | undefined;
  readonly #failureListeners = new Set<(error: StoreError) => void>();
  #closed = false;
  readonly #runs: MemoryRuns;
  readonly #leases: ProcessLeaseStore;
  readonly #auth: MemoryAuth;
  /** The nodes' worker registry and mail (several runtimes sharing this store are several nodes). */
  readonly #workers: ProcessWorkerStore;
  readonly #sessions: ProcessSessionStore;
  readonly #memories: ProcessMemories;
  readonly #artifacts: ProcessArtifacts;
  readonly #retention: MemoryRetention;
  readonly #oauth: MemoryOAuth;

  static {
    delegate(MemoryStore, (store) => store.#runs, RUN_METHODS);
    delegate(MemoryStore, (store) => store.#leases, LEASE_METHODS);
    delegate(MemoryStore, (store) => store.#auth, AUTH_METHODS);
    delegate(MemoryStore, (store) => store.#workers, WORKER_METHODS);
    delegate(MemoryStore, (store) => store.#sessions, SESSION_METHODS);
    delegate(MemoryStore, (store) => store.#memories, MEMORY_METHODS);
    delegate(MemoryStore, (store) => store.#artifacts, ARTIFACT_METHODS);
    delegate(MemoryStore, (store) => store.#retention, RETENTION_METHODS);
    delegate(MemoryStore, (store) => store.#oauth, OAUTH_METHODS);
  }

  /**
   * @param options.now the clock leases and node liveness are judged by (ms). Several runtimes
   *   (nodes) may share one memory store: it keeps leases, requests, signals, the worker registry
   *   and the nodes' mail as a store shared by many nodes does.
   */
  constructor(options: { now?: () => number } = {}) {
    const now = options.now ? { now: options.now } : {};
    const check = () => this.#checkUsable();
    const leases = new ProcessLeases(now);
    this.#workers = new ProcessWorkerStore({ ...now, check });
    const artifacts = new ProcessArtifacts({ check });
    this.#artifacts = artifacts;
    this.#memories = new ProcessMemories({ check });
    const sessions: ProcessSessionStore = new ProcessSessionStore({
      check,
      runStatus: (runId): RunStatus | undefined => runs.statusOf(runId) as RunStatus | undefined,
      deleted: (sessionId) => artifacts.deleteScope(`session:${sessionId}`),
    });
    this.#sessions = sessions;
    const runs = new MemoryRuns({ check, fail: (error) => this.fail(error), leases, sessions });
    this.#runs = runs;
    this.#leases = new ProcessLeaseStore(leases, {
      check,
      runsToDrive: () => runs.runsToDrive(),
      needsDriving: (runId) => runs.needsDriving(runId),
    });
    this.#auth = new MemoryAuth(check);
    this.#oauth = new MemoryOAuth(check);
    this.#retention = new MemoryRetention({
      check,
      runs,
      leases,
      sessions,
      memories: this.#memories,
      artifacts,
      sweepLock: new ProcessSweepLock(now),
    });
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  async ping(): Promise<void> {
    this.#checkUsable();
  }

  /** Nothing to lock: a memory store belongs to the process that made it. */
  async lockForRuntime(): Promise<void> {
    this.#checkUsable();
  }

  /**
   * Fails the store as a failed flush fails the SQLite store: every later call throws, and the
   * listeners hear of it once. Tests use it to play a disk that fills.
   */
  fail(error: StoreError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    for (const listener of [...this.#failureListeners]) {
      try {
        listener(error);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  async migrate(): Promise<void> {
    this.#checkUsable();
  }

  /** Releases the store: later calls reject. Calling it again does nothing. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #checkUsable(): void {
    if (this.#closed) throw new StoreError('the memory store is closed');
    if (this.#failure !== undefined) {
      throw new StoreError(`the memory store failed and must be replaced: ${this.#failure.message}`, {
        cause: this.#failure,
      });
    }
  }
}

/**
 * A new, empty in-memory store.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.migrate();
 * ```
 */
export function memoryStore(): MemoryStore {
  return new MemoryStore();
}
