import { backoffDelay, type ReconnectOptions, reconnectPolicy } from './backoff.js';
import { WorkerError } from './errors.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, openWorkerSocket } from './open-socket.js';
import type { WardrikListing } from './wardrik-listed.js';
import { OutboundWebSocketTransport } from './websocket-transport.js';

/** Where a worker's connection to Wardrik stands. */
export type WorkerStatus = 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** A change of a worker's connection, or a retry being scheduled. */
export interface WorkerStatusEvent {
  readonly status: WorkerStatus;
  /** The attempt being made or scheduled (1 for the first attempt after a success). */
  readonly attempt: number;
  /** Why the last attempt failed or the connection was lost, or why the connection closed for good. */
  readonly error?: Error;
  /** When a retry is scheduled: in how many milliseconds. */
  readonly retryInMs?: number;
}

/** A worker's connection to Wardrik, kept open until `close()`. */
export interface WorkerConnection {
  /**
   * Resolves once Wardrik has the worker's tools: on the first connection over which Wardrik
   * initialized the session, listed the tools and registered them (it says so with
   * `notifications/wardrik/listed`). A run started after `await ready` is offered them from its
   * first model step, on the node the worker is connected to. With a Wardrik too old to say so, it
   * resolves `listedTimeoutMs` after the worker answered `tools/list`. Later listings (after
   * `list_changed`) and reconnections change nothing about it (see `onListed`).
   *
   * Rejects with a {@link WorkerError} if Wardrik refuses the worker (401/403: not retried), if
   * `reconnect.maxAttempts` attempts fail, or if `close()` is called first.
   */
  readonly ready: Promise<void>;
  /** Where the connection stands now. */
  readonly status: WorkerStatus;
  /** Stops reconnecting and closes the connection. Resolves once it is closed. */
  close(): Promise<void>;
}

/** Options shared by everything that keeps a worker connection to Wardrik. */
export interface WorkerConnectionOptions {
  /** Wardrik's base URL (`http(s)://host:port[/base]`); the worker endpoint is `<url>/v1/workers`. */
  readonly url: string | URL;
  /** A bearer token of a principal whose scope may serve agents as a worker (the `worker` role). */
  readonly token: string;
  /** Reconnection with exponential backoff and jitter. */
  readonly reconnect?: ReconnectOptions;
  /** Called on each status change and each scheduled retry. */
  readonly onStatus?: (event: WorkerStatusEvent) => void;
  /** Called with errors that do not end the connection (e.g. a malformed frame from Wardrik). */
  readonly onError?: (error: Error) => void;
  /** The largest frame either side may send, in bytes (default 4 MiB). */
  readonly maxPayloadBytes?: number;
  /** WebSocket ping interval in milliseconds, to notice a dead connection (default 30 000; 0 turns it off). */
  readonly heartbeatIntervalMs?: number;
  /**
   * Called each time Wardrik has registered the worker's tools (after each listing, on every
   * connection): how many it accepted, and those it left out with why.
   */
  readonly onListed?: (listing: WardrikListing) => void;
  /**
   * How long after answering `tools/list` `ready` waits for Wardrik to say it has the tools before
   * resolving anyway, in ms (default 2 000): only a Wardrik older than `notifications/wardrik/listed`
   * never says so.
   */
  readonly listedTimeoutMs?: number;
}

/** What a connection loop does with each connection it opens. */
export interface ConnectionLoopOptions extends WorkerConnectionOptions {
  /** Attaches the connection (e.g. connects an MCP server to it, which starts the transport). */
  readonly attach: (transport: OutboundWebSocketTransport) => Promise<void>;
  /** Cleans up after a connection has ended, before the next one is opened. */
  readonly detach?: (transport: OutboundWebSocketTransport) => Promise<void>;
}

/** A connection that ends sooner than this after opening counts as a failed attempt (so a server that accepts and drops at once is not hammered). */
const STABLE_CONNECTION_MS = 5_000;

/**
 * Opens a worker connection to Wardrik and keeps it: on an unexpected close it reconnects with
 * exponential backoff and jitter, each time with a fresh WebSocket and transport handed to
 * `attach`. Used by `connectWorker` and the bridge.
 *
 * @example
 * ```ts
 * const connection = startConnectionLoop({ url, token, attach: (transport) => server.connect(transport) })
 * await connection.ready
 * ```
 */
export function startConnectionLoop(options: ConnectionLoopOptions): WorkerConnection {
  const policy = reconnectPolicy(options.reconnect);
  const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  let status: WorkerStatus = 'connecting';
  let stopping = false;
  let current: OutboundWebSocketTransport | undefined;
  let wakeUp: (() => void) | undefined;
  let settleReady: ((error?: Error) => void) | undefined;

  const ready = new Promise<void>((resolve, reject) => {
    settleReady = (error) => {
      settleReady = undefined;
      if (error) reject(error);
      else resolve();
    };
  });
  ready.catch(() => {}); // reported through onStatus too; awaiting `ready` still sees the rejection

  const emit = (event: WorkerStatusEvent) => {
    status = event.status;
    try {
      options.onStatus?.(event);
    } catch {
      // a throwing listener must not stop the connection
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const finish = (error?: Error) => {
    emit({ status: 'closed', attempt: 0, ...(error ? { error } : {}) });
    settleReady?.(
      error ?? new WorkerError('worker_closed', 'the worker connection was closed before Wardrik had its tools'),
    );
  };

  const run = async () => {
    let failures = 0;
    let connectedOnce = false;
    emit({ status: 'connecting', attempt: 1 });
    while (!stopping) {
      const { socket, opened } = openWorkerSocket({ url: options.url, token: options.token, maxPayloadBytes });
      const transport = new OutboundWebSocketTransport(socket, {
        maxPayloadBytes,
        ...(options.heartbeatIntervalMs === undefined ? {} : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
        ...(options.listedTimeoutMs === undefined ? {} : { listedTimeoutMs: options.listedTimeoutMs }),
      });
      transport.onerror = options.onError;
      transport.onlisted = options.onListed;
      // Ready once Wardrik has the tools (this connection's first listing), whichever connection that is.
      void transport.listed.then(() => settleReady?.());
      current = transport;
      let error: Error | undefined;
      let attached = false;
      try {
        await opened;
        if (!stopping) {
          await options.attach(transport);
          attached = !transport.isClosed;
        }
      } catch (thrown) {
        error = thrown instanceof Error ? thrown : new Error(String(thrown));
        if (!WorkerError.isInstance(error) && !transport.isClosed && socket.readyState === socket.OPEN) {
          // The socket is fine: attaching failed (e.g. the server is already connected elsewhere).
          error = new WorkerError(
            'worker_server',
            `could not attach the MCP server: ${error.message}`,
            {},
            { cause: error },
          );
        }
      }
      if (attached) {
        const openedAt = Date.now();
        connectedOnce = true;
        emit({ status: 'connected', attempt: failures + 1 });
        await transport.closed;
        failures = Date.now() - openedAt < STABLE_CONNECTION_MS ? failures + 1 : 0;
        error = new Error(`the connection to Wardrik was lost (${describeClose(transport)})`);
      } else {
        failures += 1;
        error ??= new Error(`the connection to Wardrik closed during setup (${describeClose(transport)})`);
      }
      await transport.close();
      await options.detach?.(transport).catch((thrown: unknown) => options.onError?.(asError(thrown)));
      current = undefined;
      if (stopping) break;
      if (WorkerError.isInstance(error) && error.fatal) return finish(error);
      if (failures >= policy.maxAttempts) {
        return finish(
          new WorkerError(
            'worker_attempts_exhausted',
            `gave up after ${failures} failed attempt${failures === 1 ? '' : 's'} to connect to Wardrik; the last: ${error.message}`,
            WorkerError.isInstance(error) && error.status !== undefined ? { status: error.status } : {},
            { cause: error },
          ),
        );
      }
      const retryInMs = backoffDelay(policy, Math.max(1, failures));
      emit({ status: connectedOnce ? 'reconnecting' : 'connecting', attempt: failures + 1, error, retryInMs });
      await sleep(retryInMs);
    }
    finish();
  };

  const done = run().catch((thrown: unknown) => finish(asError(thrown)));

  return {
    ready,
    get status() {
      return status;
    },
    async close() {
      stopping = true;
      wakeUp?.();
      await current?.close();
      await done;
    },
  };
}

function describeClose(transport: OutboundWebSocketTransport): string {
  const code = transport.closeCode;
  if (code === undefined) return 'no close code';
  return transport.closeReason ? `code ${code}: ${transport.closeReason}` : `code ${code}`;
}

function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
