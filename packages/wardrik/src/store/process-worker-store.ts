import { StoreError } from '../errors.js';
import {
  type Heartbeat,
  MAX_NOTE_BYTES,
  type NodeMessage,
  type OfferList,
  type Pulse,
  type StoredOffer,
  type WorkerOffer,
  type WorkerSignal,
  type WorkerStore,
} from './worker-store.js';

/** How long a dead node's row, offers and mail are kept before they are forgotten (ms). */
export const FORGET_DEAD_NODES_MS = 60_000;

interface Mail extends NodeMessage {
  readonly to: string;
  readonly postedAt: number;
}

/**
 * The worker registry and mail of nodes sharing one process (a memory store several runtimes
 * share, or a SQLite file one runtime holds), with the rules a shared store keeps in its tables:
 * a node is alive until its `ttlMs` passes without a beat (by `now()`); offers of dead nodes are
 * not listed; messages are posted only to live nodes; signals reach every listener after the
 * current task. What it keeps is copied, so that no caller can change it.
 *
 * @example
 * ```ts
 * const bus = new ProcessWorkerStore()
 * await bus.beat({ node: { id: 'n1', name: 'a' }, ttlMs: 5_000 })
 * await bus.post('n1', { id: 'm1', from: 'n2', body: '{}' })   // true
 * await bus.takeMail('n1')                                      // [{ id: 'm1', from: 'n2', body: '{}' }]
 * ```
 */
export class ProcessWorkerStore implements WorkerStore {
  readonly #now: () => number;
  readonly #check: () => void;
  readonly #nodes = new Map<string, { name: string; expiresAt: number }>();
  readonly #offers = new Map<string, StoredOffer>();
  readonly #mail: Mail[] = [];
  readonly #listeners = new Set<(signal: WorkerSignal) => void>();
  #version = 0;
  #lastConnectedAt = 0;

  /**
   * @param options.now the clock liveness is judged by (ms).
   * @param options.check called first by every method: throws if the store cannot be used (closed, failed).
   */
  constructor(options: { now?: () => number; check?: () => void } = {}) {
    this.#now = options.now ?? Date.now;
    this.#check = options.check ?? (() => {});
  }

  async beat(heartbeat: Heartbeat): Promise<Pulse> {
    this.#check();
    const { node, ttlMs } = heartbeat;
    checkTtl(ttlMs);
    const now = this.#now();
    const previous = this.#nodes.get(node.id);
    const continued = previous !== undefined && previous.expiresAt > now;
    this.#nodes.set(node.id, { name: node.name, expiresAt: now + ttlMs });
    for (const [workerId, load] of Object.entries(heartbeat.loads ?? {})) {
      const offer = this.#offers.get(workerId);
      if (offer?.node.id === node.id && Number.isSafeInteger(load)) this.#offers.set(workerId, { ...offer, load });
    }
    this.#forgetDead(now);
    const nodes = new Map<string, string>();
    for (const [id, each] of this.#nodes) if (id !== node.id && each.expiresAt > now) nodes.set(id, each.name);
    const loads = new Map<string, number>();
    for (const offer of this.#offers.values()) {
      if (nodes.has(offer.node.id) && offer.load > 0) loads.set(offer.workerId, offer.load);
    }
    return { continued, nodes, offersVersion: String(this.#version), loads };
  }

  async leave(nodeId: string): Promise<void> {
    this.#check();
    this.#nodes.delete(nodeId);
    let removed = false;
    for (const [workerId, offer] of this.#offers) {
      if (offer.node.id !== nodeId) continue;
      this.#offers.delete(workerId);
      removed = true;
    }
    if (removed) this.#changed(nodeId);
  }

  async putOffer(offer: WorkerOffer): Promise<number> {
    this.#check();
    const existing = this.#offers.get(offer.workerId);
    if (existing && existing.node.id !== offer.node.id) {
      throw new StoreError(`worker ${offer.workerId} is offered by another node`);
    }
    // Connection times are distinct and growing, as a database's clock_timestamp() nearly always is.
    const connectedAt = existing?.connectedAt ?? Math.max(this.#now(), this.#lastConnectedAt + 1);
    this.#lastConnectedAt = Math.max(this.#lastConnectedAt, connectedAt);
    const copy = JSON.parse(JSON.stringify(offer)) as WorkerOffer;
    this.#offers.set(offer.workerId, { ...copy, connectedAt, load: existing?.load ?? 0 });
    this.#changed(offer.node.id);
    return connectedAt;
  }

  async removeOffer(workerId: string): Promise<void> {
    this.#check();
    const existing = this.#offers.get(workerId);
    if (!existing) return;
    this.#offers.delete(workerId);
    this.#changed(existing.node.id);
  }

  async listOffers(): Promise<OfferList> {
    this.#check();
    const now = this.#now();
    const offers = [...this.#offers.values()]
      .filter((offer) => (this.#nodes.get(offer.node.id)?.expiresAt ?? 0) > now)
      .sort((a, b) => a.connectedAt - b.connectedAt || (a.workerId < b.workerId ? -1 : 1))
      .map((offer) => JSON.parse(JSON.stringify(offer)) as StoredOffer);
    return { version: String(this.#version), offers };
  }

  async post(to: string, message: NodeMessage): Promise<boolean> {
    this.#check();
    const now = this.#now();
    if ((this.#nodes.get(to)?.expiresAt ?? 0) <= now) return false;
    if (this.#mail.some((each) => each.id === message.id)) {
      throw new StoreError(`a message with the id ${message.id} exists already`);
    }
    this.#mail.push({ id: message.id, from: message.from, body: message.body, to, postedAt: now });
    this.#signal({ type: 'mail', to });
    return true;
  }

  async takeMail(nodeId: string): Promise<NodeMessage[]> {
    this.#check();
    const taken: NodeMessage[] = [];
    for (let index = 0; index < this.#mail.length; ) {
      const each = this.#mail[index] as Mail;
      if (each.to !== nodeId) {
        index += 1;
        continue;
      }
      this.#mail.splice(index, 1);
      taken.push({ id: each.id, from: each.from, body: each.body });
    }
    return taken;
  }

  async withdraw(messageId: string): Promise<boolean> {
    this.#check();
    const index = this.#mail.findIndex((each) => each.id === messageId);
    if (index < 0) return false;
    this.#mail.splice(index, 1);
    return true;
  }

  async note(to: string, body: string): Promise<void> {
    this.#check();
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_NOTE_BYTES) throw new StoreError(`a note may hold at most ${MAX_NOTE_BYTES} bytes, got ${bytes}`);
    this.#signal({ type: 'note', to, body });
  }

  onWorkerSignal(listener: (signal: WorkerSignal) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets nodes dead for `FORGET_DEAD_NODES_MS`, their offers, and mail left that long for nodes that are gone. */
  #forgetDead(now: number): void {
    const cutoff = now - FORGET_DEAD_NODES_MS;
    for (const [id, node] of this.#nodes) {
      if (node.expiresAt >= cutoff) continue;
      this.#nodes.delete(id);
      for (const [workerId, offer] of this.#offers) if (offer.node.id === id) this.#offers.delete(workerId);
    }
    for (let index = this.#mail.length - 1; index >= 0; index--) {
      const each = this.#mail[index] as Mail;
      if (each.postedAt < cutoff && !this.#nodes.has(each.to)) this.#mail.splice(index, 1);
    }
  }

  #changed(from: string): void {
    this.#version += 1;
    this.#signal({ type: 'workers-changed', from });
  }

  /** Tells every listener, after the current task (a listener never runs inside a store call). */
  #signal(signal: WorkerSignal): void {
    if (this.#listeners.size === 0) return;
    queueMicrotask(() => {
      for (const listener of [...this.#listeners]) {
        try {
          listener(signal);
        } catch {
          // One listener's failure must not keep the others from hearing.
        }
      }
    });
  }
}

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new StoreError(`ttlMs must be a positive number of ms, got ${String(ttlMs)}`);
  }
}
