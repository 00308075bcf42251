import type { Principal } from '../auth/types.js';

/**
 * One node's worker hub on the store, for as long as it runs. `id` is new at each start (so a
 * node started again under the same name is not taken for the one that died); `name` is the
 * node's name, as its leases and `GET /v1/workers` show it.
 */
export interface WorkerNode {
  readonly id: string;
  readonly name: string;
}

/** What one connected worker offers, as its node writes it for every other node to route calls to it. */
export interface WorkerOffer {
  readonly workerId: string;
  /** The node the worker is connected to. */
  readonly node: WorkerNode;
  /** The principal the worker acts as (its role and agents say which agents it serves). */
  readonly principal: Principal;
  /** Its valid tools, as MCP `tools/list` items. */
  readonly tools: readonly unknown[];
  /** The tools it listed that are left out, with why. */
  readonly rejected: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
  /** Grows each time the worker's tools change (a `list_changed`): an answer names the revision it came after. */
  readonly revision: number;
}

/** An offer as stored: with when its worker connected and how busy its node last said it was. */
export interface StoredOffer extends WorkerOffer {
  /** When the worker connected (ms), by the store's clock: on a tie of principals, the oldest wins a tool. */
  readonly connectedAt: number;
  /** Calls in flight on the worker, as its node last said (`beat`). */
  readonly load: number;
}

/** The offers of the live nodes, and the registry's version they were read at. */
export interface OfferList {
  /** Changes whenever an offer is put or removed (compare it with `Pulse.offersVersion`). */
  readonly version: string;
  /** Oldest first (by `connectedAt`, then worker id). */
  readonly offers: readonly StoredOffer[];
}

/** What a node says at each heartbeat. */
export interface Heartbeat {
  readonly node: WorkerNode;
  /** How long the node counts as alive unless it beats again (ms, by the store's clock). */
  readonly ttlMs: number;
  /** Calls in flight on this node's workers, by worker id: those that changed since its last beat. */
  readonly loads?: Readonly<Record<string, number>>;
}

/** What a node learns at each heartbeat. */
export interface Pulse {
  /**
   * Whether the node was alive until this beat. False on its first beat — and after its liveness
   * lapsed: other nodes took it for dead (they stopped waiting for the calls it had taken), and
   * may have removed its offers and its mail.
   */
  readonly continued: boolean;
  /** The other live nodes, by id: their names. */
  readonly nodes: ReadonlyMap<string, string>;
  /** The registry's version (see `OfferList.version`). */
  readonly offersVersion: string;
  /** Calls in flight on the workers of the other live nodes, by worker id (none listed: 0). */
  readonly loads: ReadonlyMap<string, number>;
}

/** A message left for a node, taken (and removed) by it. */
export interface NodeMessage {
  /** Chosen by the sender (unique): the sender may `withdraw` it until it is taken. */
  readonly id: string;
  /** The sending node's id. */
  readonly from: string;
  /** What the message says (the store does not read it). */
  readonly body: string;
}

/**
 * Hints about the workers' registry and the nodes' mail, from any node (signals are not
 * journaled: one sent while a node was reconnecting is lost, so nodes also look at each beat):
 * - `workers-changed`: node `from` put or removed an offer;
 * - `mail`: a message waits for node `to` (`takeMail`);
 * - `note`: a message for node `to` that is not kept (progress): `body`, heard or lost.
 */
export type WorkerSignal =
  | { readonly type: 'workers-changed'; readonly from: string }
  | { readonly type: 'mail'; readonly to: string }
  | { readonly type: 'note'; readonly to: string; readonly body: string };

/** The largest `note` body a store must carry, in bytes of UTF-8 (PostgreSQL's NOTIFY carries under 8,000). */
export const MAX_NOTE_BYTES = 3_000;

/**
 * What lets nodes sharing a store serve each other's runs with their workers: node liveness, a
 * registry of what each node's workers offer, and mail between nodes. Liveness and the offers
 * are judged by the store's clock: a node that stops beating (killed, partitioned, paused) is
 * dead for the others once its `ttlMs` passes, its offers are no longer listed and messages can
 * no longer be posted to it.
 *
 * A store of one process (SQLite) keeps all of this in memory: its one node has no other nodes.
 *
 * @example
 * ```ts
 * const a = { id: randomUUID(), name: 'node-a' }
 * await store.beat({ node: a, ttlMs: 5_000 })                         // { continued: false, nodes, … }
 * await store.putOffer({ workerId: 'wkr_1', node: a, principal, tools, rejected: [], revision: 1 })
 * // node b: route a call to wkr_1
 * await store.post(a.id, { id: 'msg_1', from: b.id, body: JSON.stringify(call) })  // true: a is alive
 * // node a, on a `mail` signal for it (or at its next beat)
 * for (const message of await store.takeMail(a.id)) serve(message)
 * ```
 */
export interface WorkerStore {
  /**
   * Keeps `heartbeat.node` alive for `ttlMs` more (by the store's clock), records its workers'
   * loads, and says who else is alive. Also forgets nodes dead for a while (their offers and mail).
   */
  beat(heartbeat: Heartbeat): Promise<Pulse>;
  /** The node stops: it is not alive any more and its offers are removed (messages left for it stay until forgotten, so their senders can withdraw them). */
  leave(nodeId: string): Promise<void>;
  /**
   * Writes (or replaces) a worker's offer; a `workers-changed` signal tells the other nodes.
   * Returns when the worker connected by the store's clock (kept from the first put).
   */
  putOffer(offer: WorkerOffer): Promise<number>;
  /** Removes a worker's offer (it disconnected), if there is one; a `workers-changed` signal tells the other nodes. */
  removeOffer(workerId: string): Promise<void>;
  /** The offers of the nodes alive now. */
  listOffers(): Promise<OfferList>;
  /**
   * Leaves a message for node `to`, if it is alive; a `mail` signal tells it. Returns false (and
   * leaves nothing) if the node is not alive.
   */
  post(to: string, message: NodeMessage): Promise<boolean>;
  /** Takes (and removes) the messages left for node `nodeId`, oldest first. */
  takeMail(nodeId: string): Promise<NodeMessage[]>;
  /** Removes a message not taken yet. Returns whether it was still there (false: taken, forgotten, or never left). */
  withdraw(messageId: string): Promise<boolean>;
  /** Sends node `to` a `note` signal (not kept: lost if it is not listening). `body` is at most `MAX_NOTE_BYTES` bytes. */
  note(to: string, body: string): Promise<void>;
  /** Calls `listener` on each worker signal (see `WorkerSignal`), from every node. Returns the function that stops listening. */
  onWorkerSignal(listener: (signal: WorkerSignal) => void): () => void;
}
