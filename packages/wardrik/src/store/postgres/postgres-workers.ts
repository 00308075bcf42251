import { StoreError } from '../../errors.js';
import type { WorkerStore } from '../worker-store.js';
import {
  type Heartbeat,
  MAX_NOTE_BYTES,
  type NodeMessage,
  type OfferList,
  type Pulse,
  type WorkerOffer,
  type WorkerSignal,
} from '../worker-store.js';
import type { PostgresExecutor } from './postgres-executor.js';
import { isRunSignal } from './signals.js';
import * as workerQueries from './worker-queries.js';

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new StoreError(`ttlMs must be a positive number of ms, got ${String(ttlMs)}`);
  }
}

/** The nodes' worker registry and mail on PostgreSQL, with their signals. */
export class PostgresWorkers implements WorkerStore {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async beat(heartbeat: Heartbeat): Promise<Pulse> {
    checkTtl(heartbeat.ttlMs);
    return this.#executor.call(
      `renewing the liveness of node ${heartbeat.node.name}`,
      (client) => workerQueries.beat(client, heartbeat),
      { retry: true },
    );
  }

  async leave(nodeId: string): Promise<void> {
    await this.#executor.call(
      `removing node ${nodeId}`,
      (client) => workerQueries.leave(client, nodeId, this.#executor.signalTarget),
      {
        retry: true,
      },
    );
    this.#executor.signals.emit({ type: 'workers-changed', from: nodeId });
  }

  async putOffer(offer: WorkerOffer): Promise<number> {
    const connectedAt = await this.#executor.call(
      `writing the offer of worker ${offer.workerId}`,
      (client) => workerQueries.putOffer(client, offer, this.#executor.signalTarget),
      { retry: true },
    );
    this.#executor.signals.emit({ type: 'workers-changed', from: offer.node.id });
    return connectedAt;
  }

  async removeOffer(workerId: string): Promise<void> {
    await this.#executor.call(
      `removing the offer of worker ${workerId}`,
      (client) => workerQueries.removeOffer(client, workerId, this.#executor.signalTarget),
      { retry: true },
    );
  }

  async listOffers(): Promise<OfferList> {
    return this.#executor.call('listing the workers', (client) => workerQueries.listOffers(client), { retry: true });
  }

  async post(to: string, message: NodeMessage): Promise<boolean> {
    const posted = await this.#executor.call(
      `leaving a message for node ${to}`,
      (client) => workerQueries.post(client, to, message, this.#executor.signalTarget),
      { retry: false },
    );
    if (posted) this.#executor.signals.emit({ type: 'mail', to });
    return posted;
  }

  async takeMail(nodeId: string): Promise<NodeMessage[]> {
    return this.#executor.call(
      `taking the messages of node ${nodeId}`,
      (client) => workerQueries.takeMail(client, nodeId),
      {
        retry: false,
      },
    );
  }

  async withdraw(messageId: string): Promise<boolean> {
    return this.#executor.call(
      `withdrawing message ${messageId}`,
      (client) => workerQueries.withdraw(client, messageId),
      {
        retry: true,
      },
    );
  }

  async note(to: string, body: string): Promise<void> {
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_NOTE_BYTES) throw new StoreError(`a note may hold at most ${MAX_NOTE_BYTES} bytes, got ${bytes}`);
    await this.#executor.call(
      `sending a note to node ${to}`,
      (client) => workerQueries.note(client, to, body, this.#executor.signalTarget),
      { retry: false },
    );
    this.#executor.signals.emit({ type: 'note', to, body });
  }

  onWorkerSignal(listener: (signal: WorkerSignal) => void): () => void {
    return this.#executor.signals.on((signal) => {
      if (!isRunSignal(signal)) listener(signal);
    });
  }
}
