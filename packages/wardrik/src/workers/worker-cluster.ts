import type { NodeMessage, WorkerNode, WorkerSignal, WorkerStore } from '../store/worker-store.js';
import { readMail, readProgressNote } from './node-messages.js';
import { RemoteWorker, type SendCall } from './remote-worker.js';
import { SentCalls } from './sent-calls.js';
import { ServedCalls } from './served-calls.js';
import type { WorkerConnection } from './worker-connection.js';

/** What links a node's hub to the other nodes sharing its store. */
export interface ClusterOptions {
  readonly store: WorkerStore;
  readonly node: WorkerNode;
  /** How long this node counts as alive without a beat (ms); it beats every third of it. */
  readonly ttlMs: number;
  /** The worker connected to this node with this id, if any. */
  readonly localWorker: (id: string) => WorkerConnection | undefined;
  /** The workers connected to this node. */
  readonly localWorkers: () => Iterable<WorkerConnection>;
  /** Other nodes' workers changed (came, went, offer other tools, or were reordered). */
  readonly changed: () => void;
  readonly log: (message: string) => void;
}

/** The most messages a store hands over at once (then the node takes again). */
const TAKE_AGAIN_AT = 1_000;

/**
 * A node's link to the other nodes sharing its store, for workers:
 *
 * - **Liveness.** It beats every `ttlMs / 3`; a node that misses `ttlMs` is dead for the others
 *   (by the store's clock). Each beat also publishes its workers' loads, learns the others', and
 *   looks at its mail and at the registry in case a signal was missed.
 * - **Offers.** What each of its workers offers is written to the store when listed and removed
 *   when the worker goes (tried again at the next beat if the store failed); the offers of the
 *   other nodes' workers are read again when a node says they changed, and kept as
 *   `RemoteWorker`s for the hub to route to.
 * - **Calls.** Calls to remote workers go through `SentCalls`; calls other nodes send to its
 *   workers through `ServedCalls`.
 *
 * @example
 * ```ts
 * const cluster = new WorkerCluster({ store, node: { id: randomUUID(), name: 'node-a' }, ttlMs: 5_000, … })
 * cluster.start()
 * cluster.publish(connection)           // once it listed its tools
 * for (const worker of cluster.remoteWorkers()) …
 * await cluster.leave()
 * ```
 */
export class WorkerCluster {
  readonly #options: ClusterOptions;
  readonly #sent: SentCalls;
  readonly #served: ServedCalls;
  readonly #remote = new Map<string, RemoteWorker>();
  /** Offers ignored (malformed), by worker and revision: logged once. */
  readonly #ignored = new Set<string>();
  /** The other live nodes at the last beat. */
  #alive: ReadonlyMap<string, string> = new Map();
  #version: string | undefined;
  /** Loads of this node's workers as the store last took them. */
  readonly #publishedLoads = new Map<string, number>();
  /** Local workers whose offer is in the store (their loads can be recorded). */
  readonly #stored = new Set<string>();
  /** The last write of each local worker's offer (put or remove), chained. */
  readonly #offering = new Map<string, Promise<void>>();
  /** Local workers whose offer could not be written or removed: done again at the next beat. */
  readonly #unsynced = new Map<string, WorkerConnection>();
  #ready: Promise<void> | undefined;
  #beaten = false;
  #beating: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopSignals: (() => void) | undefined;
  #draining: Promise<void> | undefined;
  #drainAgain = false;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #storeFailing = false;
  #left: Promise<void> | undefined;

  constructor(options: ClusterOptions) {
    this.#options = options;
    this.#sent = new SentCalls({
      store: options.store,
      node: options.node.id,
      ttlMs: options.ttlMs,
      refresh: () => this.refresh(),
      drain: () => this.#drain(),
      log: options.log,
    });
    this.#served = new ServedCalls({
      store: options.store,
      node: options.node,
      worker: options.localWorker,
      offered: (worker) => this.#offering.get(worker.id) ?? Promise.resolve(),
      log: options.log,
    });
  }

  /** This node, as the store knows it. */
  get node(): WorkerNode {
    return this.#options.node;
  }

  /** Starts beating and listening; offers this node's workers once its first beat is in. */
  start(): void {
    if (this.#ready) return;
    this.#stopSignals = this.#options.store.onWorkerSignal((signal) => this.#onSignal(signal));
    this.#ready = this.#beat();
    this.#timer = setInterval(() => void this.#beat(), Math.max(20, Math.floor(this.#options.ttlMs / 3)));
    this.#timer.unref();
  }

  /** The workers connected to other live nodes, as last read. */
  remoteWorkers(): Iterable<RemoteWorker> {
    return this.#remote.values();
  }

  /** Writes what a local worker offers (after each listing of its tools). */
  publish(worker: WorkerConnection): void {
    if (this.#left || worker.revision === 0) return;
    this.#chain(worker, async () => {
      await this.#ready;
      if (worker.closed) return;
      const connectedAt = await this.#options.store.putOffer({
        workerId: worker.id,
        node: this.#options.node,
        principal: worker.principal,
        tools: [...worker.tools.values()],
        rejected: worker.rejected,
        revision: worker.revision,
      });
      if (!worker.closed) this.#stored.add(worker.id);
      if (!worker.closed && worker.connectedAt !== connectedAt) {
        worker.connectedAt = connectedAt;
        this.#options.changed();
      }
    });
  }

  /** Removes a local worker's offer (it disconnected). */
  unpublish(worker: WorkerConnection): void {
    this.#publishedLoads.delete(worker.id);
    this.#stored.delete(worker.id);
    if (this.#left) return;
    this.#chain(worker, async () => {
      await this.#ready;
      await this.#options.store.removeOffer(worker.id);
    });
  }

  /**
   * Reads the other nodes' offers again. Coalesced: asked for while a read is under way, one more
   * read follows it, and the promise resolves after that one.
   */
  refresh(): Promise<void> {
    this.#refreshAgain = true;
    this.#refreshing ??= this.#refreshLoop();
    return this.#refreshing;
  }

  async #refreshLoop(): Promise<void> {
    await Promise.resolve(); // runs once #refreshing is set
    try {
      while (this.#refreshAgain) {
        this.#refreshAgain = false;
        await this.#readOffers();
      }
    } finally {
      // Cleared right after the last check (no await between): a refresh asked for later starts anew.
      this.#refreshing = undefined;
    }
  }

  /** Sends a call to a remote worker (see `SentCalls`). */
  readonly send: SendCall = (worker, call) => this.#sent.send(worker, call);

  /**
   * Leaves the cluster: refuses new calls, waits for the calls it serves to end (their
   * connections are closed first by the hub) and for their outcomes to be left, loses the calls it
   * sent that still wait, removes its offers and its liveness, and refuses the calls left in its
   * mail since. Never throws.
   */
  leave(): Promise<void> {
    this.#left ??= (async () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#served.close();
      await this.#served.idle();
      this.#sent.stopAll();
      await this.#sent.settled();
      await Promise.allSettled([...this.#offering.values(), this.#beating, this.#refreshing]);
      try {
        await this.#options.store.leave(this.#options.node.id);
        await this.#drain();
        await this.#served.idle();
      } catch (cause) {
        this.#options.log(`node ${this.#options.node.name} could not leave the workers' registry: ${describe(cause)}`);
      }
      this.#stopSignals?.();
      for (const worker of this.#remote.values()) worker.closed = true;
      this.#remote.clear();
    })();
    return this.#left;
  }

  #chain(worker: WorkerConnection, write: () => Promise<void>): void {
    const previous = this.#offering.get(worker.id) ?? Promise.resolve();
    const next = previous.then(write).then(
      () => {
        this.#unsynced.delete(worker.id);
      },
      (cause: unknown) => {
        this.#unsynced.set(worker.id, worker);
        this.#options.log(
          `worker ${worker.principal.name}: its offer could not be ${worker.closed ? 'removed' : 'written'} (tried again at the next beat): ${describe(cause)}`,
        );
      },
    );
    this.#offering.set(worker.id, next);
    void next.finally(() => {
      if (this.#offering.get(worker.id) === next && worker.closed) this.#offering.delete(worker.id);
    });
  }

  #beat(): Promise<void> {
    if (this.#beating || this.#left) return this.#beating ?? Promise.resolve();
    this.#beating = this.#beatOnce().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  async #beatOnce(): Promise<void> {
    const { store, node, ttlMs } = this.#options;
    const loads: Record<string, number> = {};
    for (const worker of this.#options.localWorkers()) {
      if (worker.closed || !this.#stored.has(worker.id)) continue;
      if (this.#publishedLoads.get(worker.id) === worker.inflight) continue;
      loads[worker.id] = worker.inflight;
    }
    const beganAt = Date.now();
    let pulse: Awaited<ReturnType<WorkerStore['beat']>>;
    try {
      pulse = await store.beat({ node, ttlMs, ...(Object.keys(loads).length > 0 ? { loads } : {}) });
    } catch (cause) {
      if (!this.#storeFailing) this.#options.log(`node ${node.name}: its beat failed: ${describe(cause)}`);
      this.#storeFailing = true;
      return;
    }
    if (this.#storeFailing) this.#options.log(`node ${node.name}: beating again`);
    this.#storeFailing = false;
    for (const [workerId, load] of Object.entries(loads)) this.#publishedLoads.set(workerId, load);
    if (!pulse.continued && this.#beaten) {
      this.#options.log(`node ${node.name}: the other nodes took it for dead (its beats came late); offering again`);
      this.#sent.lapsed();
      this.#publishedLoads.clear();
      this.#stored.clear();
      for (const worker of this.#options.localWorkers()) if (!worker.closed) this.#unsynced.set(worker.id, worker);
    }
    this.#beaten = true;
    const nodesChanged = !sameKeys(this.#alive, pulse.nodes);
    this.#alive = pulse.nodes;
    this.#sent.nodesAlive(pulse.nodes, beganAt);
    this.#served.callersAlive(pulse.nodes, beganAt);
    for (const worker of this.#remote.values()) worker.load = pulse.loads.get(worker.id) ?? 0;
    for (const worker of [...this.#unsynced.values()]) {
      if (worker.closed) this.unpublish(worker);
      else this.publish(worker);
    }
    if (nodesChanged || pulse.offersVersion !== this.#version) void this.refresh().catch(() => {});
    void this.#drain();
  }

  async #readOffers(): Promise<void> {
    let list: Awaited<ReturnType<WorkerStore['listOffers']>>;
    try {
      list = await this.#options.store.listOffers();
    } catch (cause) {
      this.#options.log(`node ${this.#options.node.name}: could not read the workers' offers: ${describe(cause)}`);
      return;
    }
    if (this.#left) return;
    let changed = false;
    const seen = new Set<string>();
    for (const offer of list.offers) {
      if (offer.node?.id === this.#options.node.id) continue;
      seen.add(offer.workerId);
      const known = this.#remote.get(offer.workerId);
      if (known && known.node.id === offer.node?.id) {
        if (known.update(offer)) changed = true;
        continue;
      }
      const made = RemoteWorker.from(offer, this.send);
      if (typeof made === 'string') {
        const key = `${String(offer.workerId)}\u0000${String(offer.revision)}`;
        if (!this.#ignored.has(key)) {
          this.#ignored.add(key);
          this.#options.log(`the offer of worker ${String(offer.workerId)} is ignored: ${made}`);
        }
        continue;
      }
      if (known) known.closed = true;
      for (const { name, reason } of made.rejected) {
        this.#options.log(`worker ${made.principal.name} on node ${made.node.name}: tool ${name} left out: ${reason}`);
      }
      this.#remote.set(made.id, made);
      changed = true;
    }
    for (const [workerId, worker] of this.#remote) {
      if (seen.has(workerId)) continue;
      worker.closed = true;
      this.#remote.delete(workerId);
      changed = true;
    }
    this.#version = list.version;
    if (changed) this.#options.changed();
  }

  #onSignal(signal: WorkerSignal): void {
    const me = this.#options.node.id;
    if (signal.type === 'workers-changed') {
      if (signal.from !== me && !this.#left) void this.refresh().catch(() => {});
    } else if (signal.type === 'mail') {
      if (signal.to === me) void this.#drain();
    } else if (signal.type === 'note' && signal.to === me) {
      const note = readProgressNote(signal.body);
      if (note) this.#sent.progress(note);
    }
  }

  /**
   * Takes this node's mail and acts on it. Coalesced: mail signalled while a take is under way is
   * taken right after it.
   */
  #drain(): Promise<void> {
    this.#drainAgain = true;
    this.#draining ??= this.#drainLoop();
    return this.#draining;
  }

  async #drainLoop(): Promise<void> {
    await Promise.resolve(); // runs once #draining is set
    try {
      while (this.#drainAgain) {
        this.#drainAgain = false;
        for (;;) {
          const messages = await this.#options.store.takeMail(this.#options.node.id);
          for (const message of messages) this.#dispatch(message);
          if (messages.length < TAKE_AGAIN_AT) break;
        }
      }
    } catch (cause) {
      this.#options.log(`node ${this.#options.node.name}: could not take its mail: ${describe(cause)}`);
    } finally {
      // Cleared right after the last check (no await between): mail signalled later starts a new take.
      this.#draining = undefined;
    }
  }

  #dispatch(message: NodeMessage): void {
    const read = readMail(message.body);
    if (!read.ok) {
      this.#options.log(`a message from node ${message.from} is ignored: ${read.reason}`);
      return;
    }
    const { mail } = read;
    if (mail.type === 'call') this.#served.serve(message.from, mail);
    else if (mail.type === 'cancel') this.#served.cancel(message.from, mail);
    else this.#sent.outcome(message.from, mail);
  }
}

function sameKeys(left: ReadonlyMap<string, unknown>, right: ReadonlyMap<string, unknown>): boolean {
  if (left.size !== right.size) return false;
  for (const key of left.keys()) if (!right.has(key)) return false;
  return true;
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
