import type { McpTool } from '@wardrik/core';
import type { Principal, Role } from '../auth/types.js';
import type { StoredOffer } from '../store/worker-store.js';
import { acceptListedTools } from './listed-tool.js';
import type { CallOutcome } from './pending-call.js';
import type { RoutedWorker } from './routed-worker.js';
import type { ToolCall } from './worker-connection.js';

const ROLES: ReadonlySet<Role> = new Set(['admin', 'operator', 'user', 'worker']);

/** Sends a call to the node a remote worker is connected to, and waits for its outcome. */
export type SendCall = (worker: RemoteWorker, call: ToolCall) => Promise<CallOutcome>;

/**
 * A worker connected to another node, as this node sees it in the store's registry: routed to
 * like a local connection, its calls sent through the store to its node. Its tools are checked
 * again here, as a worker's own listing is: another node's bad offer leaves tools out, never more.
 *
 * @example
 * ```ts
 * const worker = RemoteWorker.from(storedOffer, sendCall)   // undefined if the offer is malformed
 * const outcome = await worker?.callTool({ name: 'lookup', arguments: { key: 'a' }, meta, signal, idleTimeoutMs, maxTimeMs })
 * ```
 */
export class RemoteWorker implements RoutedWorker {
  readonly id: string;
  /** The node it is connected to. */
  readonly node: { readonly id: string; readonly name: string };
  readonly principal: Principal;
  connectedAt: number;
  revision: number;
  tools: Map<string, McpTool>;
  modelNames: Map<string, string>;
  rejected: Array<{ name: string; reason: string }>;
  /** Calls in flight on it, as its node last said. */
  load: number;
  /** Calls this node sent it that have not come out yet. */
  sending = 0;
  closed = false;
  readonly #send: SendCall;

  private constructor(offer: StoredOffer, principal: Principal, send: SendCall) {
    this.id = offer.workerId;
    this.node = { id: offer.node.id, name: offer.node.name };
    this.principal = principal;
    this.#send = send;
    this.connectedAt = offer.connectedAt;
    this.revision = offer.revision;
    this.load = offer.load;
    const accepted = acceptListedTools(offer.tools);
    this.tools = accepted.tools;
    this.modelNames = accepted.modelNames;
    this.rejected = [...readRejected(offer.rejected), ...accepted.rejected];
  }

  /** A remote worker from a stored offer, or why the offer cannot be used. */
  static from(offer: StoredOffer, send: SendCall): RemoteWorker | string {
    if (typeof offer.workerId !== 'string' || offer.workerId === '') return 'it has no worker id';
    if (typeof offer.node?.id !== 'string' || typeof offer.node.name !== 'string') return 'it names no node';
    const principal = readPrincipal(offer.principal);
    if (!principal) return 'its principal is malformed';
    if (!Array.isArray(offer.tools)) return 'its tools are not a list';
    if (!Number.isSafeInteger(offer.revision) || !Number.isFinite(offer.connectedAt)) {
      return 'its revision or connection time is not a number';
    }
    return new RemoteWorker({ ...offer, load: Number.isSafeInteger(offer.load) ? offer.load : 0 }, principal, send);
  }

  /**
   * Takes a newer stored offer of the same worker: its tools if its revision changed, its
   * connection time and load. Returns whether anything routing depends on changed.
   */
  update(offer: StoredOffer): boolean {
    let changed = false;
    if (offer.revision !== this.revision && Array.isArray(offer.tools)) {
      const accepted = acceptListedTools(offer.tools);
      this.tools = accepted.tools;
      this.modelNames = accepted.modelNames;
      this.rejected = [...readRejected(offer.rejected), ...accepted.rejected];
      this.revision = offer.revision;
      changed = true;
    }
    if (Number.isFinite(offer.connectedAt) && offer.connectedAt !== this.connectedAt) {
      this.connectedAt = offer.connectedAt;
      changed = true;
    }
    if (Number.isSafeInteger(offer.load)) this.load = offer.load;
    return changed;
  }

  /** Calls in flight on it: what its node last said, or what this node sent it if that is more. */
  get inflight(): number {
    return Math.max(this.load, this.sending);
  }

  callTool(call: ToolCall): Promise<CallOutcome> {
    if (this.closed) return Promise.resolve({ type: 'refused', reason: `worker ${this.id} is gone` });
    return this.#send(this, call);
  }
}

function readPrincipal(value: unknown): Principal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, name, kind, role, agents, createdAt } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof role !== 'string' || !ROLES.has(role as Role)) {
    return undefined;
  }
  if (!Array.isArray(agents) || !agents.every((agent) => typeof agent === 'string')) return undefined;
  return {
    id,
    name,
    kind: kind === 'user' || kind === 'service' ? kind : 'worker',
    role: role as Role,
    agents,
    createdAt: typeof createdAt === 'number' ? createdAt : 0,
  };
}

function readRejected(value: unknown): Array<{ name: string; reason: string }> {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (item): item is { name: string; reason: string } =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as { name?: unknown }).name === 'string' &&
        typeof (item as { reason?: unknown }).reason === 'string',
    )
    .map(({ name, reason }) => ({ name, reason }));
}
