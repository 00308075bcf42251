/** Where a node stands: `starting` (migrating, recovering runs), `ready` (taking work), `stopping` (draining). */
export type NodePhase = 'starting' | 'ready' | 'stopping';

/** The last event an event stream gets when its node stops: reconnect (with `Last-Event-ID`) to follow on elsewhere. */
export const NODE_STOPPING_EVENT = {
  type: 'node-stopping',
  reason:
    'this node is stopping; reconnect (with Last-Event-ID for a run) and another node (or this one, restarted) goes on',
} as const;

/**
 * A server's life: its phase, which `/v1/ready` reports (503 unless `ready`), and its open event
 * streams, which `closeStreams()` ends with a last `node-stopping` event when the node stops.
 *
 * @example
 * ```ts
 * const lifecycle = new NodeLifecycle('starting')
 * const server = await startServer({ wardrik, auth, lifecycle })   // /v1/ready: 503 while starting
 * await wardrik.recover()
 * lifecycle.ready()                                                 // /v1/ready: 200
 * // on SIGTERM:
 * lifecycle.stopping()                                              // /v1/ready: 503 at once
 * await wardrik.drain({ graceMs: 20_000 })
 * await lifecycle.closeStreams()
 * await server.close()
 * ```
 */
export class NodeLifecycle {
  #phase: NodePhase;
  /** Open event streams, each with what ends it with a last event. */
  readonly #streams = new Set<() => void>();
  #drained: (() => void) | undefined;

  constructor(phase: NodePhase = 'ready') {
    this.#phase = phase;
  }

  get phase(): NodePhase {
    return this.#phase;
  }

  /** Migrated and recovered: the node takes work (unless it is stopping already). */
  ready(): void {
    if (this.#phase === 'starting') this.#phase = 'ready';
  }

  /** The node stops: `/v1/ready` answers 503 from now on. */
  stopping(): void {
    this.#phase = 'stopping';
  }

  /**
   * Registers an open event stream: `stop` makes it send its last event (`NODE_STOPPING_EVENT`)
   * and end. Returns the function the stream calls once it has ended.
   */
  holdStream(stop: () => void): () => void {
    this.#streams.add(stop);
    return () => {
      this.#streams.delete(stop);
      if (this.#streams.size === 0) this.#drained?.();
    };
  }

  /** How many event streams are open. */
  get openStreams(): number {
    return this.#streams.size;
  }

  /**
   * Ends every open event stream with a last `node-stopping` event; resolves once they have ended
   * (or after `waitMs`, default 2 s: a client that does not read may not hold the node up).
   */
  async closeStreams(waitMs = 2_000): Promise<number> {
    const count = this.#streams.size;
    if (count === 0) return 0;
    const ended = new Promise<void>((resolve) => {
      this.#drained = resolve;
    });
    for (const stop of [...this.#streams]) stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    this.#drained = undefined;
    return count;
  }
}
