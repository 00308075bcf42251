import { constants } from 'node:os';
import { type ChildExit, ChildProcessTransport } from './child-process-transport.js';
import { startConnectionLoop, type WorkerConnection, type WorkerConnectionOptions } from './connection-loop.js';
import type { OutboundWebSocketTransport } from './websocket-transport.js';

/** Options of {@link startBridge}. */
export interface BridgeOptions extends WorkerConnectionOptions {
  /** The stdio MCP server to run, and its arguments. */
  readonly command: string;
  readonly args?: readonly string[];
  /** The child's environment (default: this process's, without `WARDRIK_TOKEN`). */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** How long stopping the child waits after closing its stdin, and again after SIGTERM (default 2 000 ms). */
  readonly stopGraceMs?: number;
}

/** A running bridge between Wardrik and a stdio MCP server. */
export interface Bridge extends WorkerConnection {
  /**
   * Resolves once the bridge has stopped, with the code to exit with: the child's exit code if it
   * exited on its own (128 + the signal number if a signal ended it; 127 if the command could not
   * be started), 1 if the connection to Wardrik failed for good (refused, or attempts exhausted),
   * 0 after `close()`.
   */
  readonly exitCode: Promise<number>;
  /** The process id of the child serving the current connection, if one is running. */
  readonly childPid: number | undefined;
}

/**
 * Offers the tools of a stdio MCP server to Wardrik: for each connection to Wardrik it starts the
 * server as a child process and forwards JSON-RPC messages both ways unchanged (Wardrik is the
 * MCP client and the child the MCP server, so the bridge needs to understand none of them).
 *
 * Each connection gets a fresh child. An MCP session begins with `initialize`, and a new
 * connection to Wardrik is a new session that initializes again, which a child already
 * initialized by the previous session is not required to accept; requests of the old session
 * would also share ids with the new one. So when the connection is lost, the bridge stops the
 * child (closes its stdin, then SIGTERM, then SIGKILL) and, once reconnected, starts it again.
 * State a child keeps in memory does not survive a reconnect; calls in flight are lost (Wardrik
 * treats them as lost). If the child exits on its own, the bridge closes the connection and stops
 * with the child's exit code.
 *
 * @example
 * ```ts
 * const bridge = startBridge({
 *   url: 'http://127.0.0.1:8080',
 *   token: process.env.WARDRIK_TOKEN!,
 *   command: 'node',
 *   args: ['my-stdio-server.mjs'],
 * })
 * process.on('SIGTERM', () => bridge.close())
 * process.exitCode = await bridge.exitCode
 * ```
 */
export function startBridge(options: BridgeOptions): Bridge {
  const env = options.env ?? withoutToken(process.env);
  const report = (error: Error) => options.onError?.(error);
  /** The child serving each connection, and whether the bridge is stopping it. */
  const children = new WeakMap<OutboundWebSocketTransport, { child: ChildProcessTransport; stopping: boolean }>();
  let current: ChildProcessTransport | undefined;
  let childExit: ChildExit | undefined;
  let resolveExitCode!: (code: number) => void;
  const exitCode = new Promise<number>((resolve) => {
    resolveExitCode = resolve;
  });

  const attach = async (transport: OutboundWebSocketTransport) => {
    const child = new ChildProcessTransport({
      command: options.command,
      env,
      ...(options.args ? { args: options.args } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.stopGraceMs === undefined ? {} : { stopGraceMs: options.stopGraceMs }),
    });
    const entry = { child, started: false, stopping: false };
    children.set(transport, entry);
    current = child;
    child.onerror = report;
    child.onmessage = (message) => {
      transport.send(message).catch(report);
    };
    transport.onmessage = (message) => {
      child.send(message).catch(report);
    };
    child.onclose = () => {
      if (entry.stopping || !entry.started) return; // stopped by the bridge, or never started (start() rejects)
      // The child exited on its own: the bridge ends with it.
      void child.exited.then((exit) => {
        childExit = exit;
        return connection.close();
      });
    };
    try {
      await child.start();
      entry.started = true;
    } catch (error) {
      childExit = await child.exited;
      throw error;
    }
    await transport.start();
  };

  const detach = async (transport: OutboundWebSocketTransport) => {
    const entry = children.get(transport);
    if (!entry) return;
    entry.stopping = true;
    await entry.child.close();
    if (current === entry.child) current = undefined;
  };

  const connection = startConnectionLoop({
    ...options,
    attach,
    detach,
    onStatus: (event) => {
      options.onStatus?.(event);
      if (event.status === 'closed') resolveExitCode(exitCodeFor(childExit, event.error));
    },
  });

  return {
    ready: connection.ready,
    get status() {
      return connection.status;
    },
    get childPid() {
      return current?.pid;
    },
    exitCode,
    close: () => connection.close(),
  };
}

function exitCodeFor(exit: ChildExit | undefined, failure: Error | undefined): number {
  if (exit?.spawnError) {
    const cause = exit.spawnError.cause;
    const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
    return code === 'EACCES' ? 126 : 127;
  }
  if (exit?.code != null) return exit.code;
  if (exit?.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  return failure ? 1 : 0;
}

function withoutToken(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { WARDRIK_TOKEN: _token, ...rest } = env;
  return rest;
}
