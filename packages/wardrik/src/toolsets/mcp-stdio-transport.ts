import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ServerProcess } from './server-process.js';

/** How much of a child's stderr is kept, to say why it failed. */
const STDERR_TAIL_CHARACTERS = 1_000;

/** What server to run. */
export interface McpStdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the few variables inherited from this process (the SDK's `getDefaultEnvironment()`). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Aborted when the toolset closes: the server is not started, or is stopped at once. */
  readonly signal: AbortSignal;
}

/**
 * An MCP client transport to a stdio server run as a child process, in place of the SDK's
 * `StdioClientTransport` (same framing and environment), so that a server that hangs never
 * outlives its toolset:
 * - the server runs in a process group of its own, stopped as a whole (stdin closed, then SIGTERM,
 *   then SIGKILL: see `ServerProcess.stop`), and `close()` resolves only once it has exited —
 *   every call to `close()`, not only the first;
 * - aborting `signal` stops it at once, even while the SDK is still waiting for `initialize`;
 *   `start()` after that spawns nothing;
 * - until it has exited it is on the list of children killed when this process ends.
 *
 * @example
 * ```ts
 * const transport = new McpStdioTransport({ command: 'node', args: ['server.js'], signal: closing.signal })
 * await client.connect(transport)
 * ```
 */
export class McpStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;

  readonly #options: McpStdioTransportOptions;
  readonly #readBuffer = new ReadBuffer();
  #server: ServerProcess | undefined;
  #closed = false;
  #stderrTail = '';

  constructor(options: McpStdioTransportOptions) {
    this.#options = options;
  }

  /** The server's process id, while it runs. */
  get pid(): number | undefined {
    const child = this.#server?.child;
    return child === undefined || child.exitCode !== null || child.signalCode !== null ? undefined : child.pid;
  }

  /** The last lines the server wrote to stderr, for error messages; empty if none. */
  get stderrTail(): string {
    return this.#stderrTail.trim();
  }

  async start(): Promise<void> {
    if (this.#server !== undefined) throw new Error('McpStdioTransport already started');
    this.#options.signal.throwIfAborted();
    if (this.#closed) throw new Error('the transport was closed');
    const { command, args, env, cwd } = this.#options;
    const server = ServerProcess.start({
      command,
      args,
      env: { ...getDefaultEnvironment(), ...env },
      ...(cwd === undefined ? {} : { cwd }),
    });
    this.#server = server;
    const { child } = server;
    const report = (error: Error) => this.onerror?.(error);
    child.on('error', (error) => {
      if (child.pid !== undefined) report(error);
    });
    child.stdin.on('error', report);
    child.stdout.on('error', report);
    child.stderr.on('error', report);
    child.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARACTERS);
    });
    child.once('close', () => {
      this.#readBuffer.clear();
      this.onclose?.();
    });
    const stopOnAbort = () => void this.close();
    this.#options.signal.addEventListener('abort', stopOnAbort, { once: true });
    void server.exited.then(() => this.#options.signal.removeEventListener('abort', stopOnAbort));
    await server.spawned;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#server?.child.stdin;
    if (stdin === undefined || this.#closed || !stdin.writable) throw new Error('Not connected');
    if (!stdin.write(serializeMessage(message))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stdin.off('drain', done);
          stdin.off('close', done);
          resolve();
        };
        stdin.on('drain', done);
        stdin.on('close', done);
      });
    }
  }

  /** Stops the server (see the class) and resolves once it has exited. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#server?.stop();
  }

  #read(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      // More than the SDK's limit without a newline: the server is not speaking MCP.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}
