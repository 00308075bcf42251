import { type ChildProcess, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { signalChildProcess, type TrackedChildProcess, trackChildProcess } from '@wardrik/core/child-processes';
import { parseFrame } from './frame.js';

/** How to start a stdio MCP server as a child process. */
export interface ChildProcessTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** The child's environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** The longest line accepted from the child's stdout, in bytes (default 16 MiB). Longer lines are dropped. */
  readonly maxLineBytes?: number;
  /** How long `close()` waits after closing stdin, and again after SIGTERM, before the next step (default 2 000 ms). */
  readonly stopGraceMs?: number;
}

/** How a child process ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the child could not be started at all (e.g. `ENOENT`: no such command). */
  readonly spawnError?: Error;
}

/**
 * An MCP client {@link Transport} to a stdio MCP server run as a child process: one JSON-RPC
 * message per line on its stdin and stdout; its stderr goes to this process's stderr. Unlike the
 * SDK's `StdioClientTransport`, it reports how the child exited (`exited`), passes the whole
 * environment it is given, and hands messages on exactly as the child wrote them. Lines on stdout
 * that are not JSON-RPC messages are reported to `onerror` and dropped.
 *
 * The child never outlives it: on POSIX it runs in a process group of its own, which `close()` and
 * `kill()` signal as a whole (so what the server started goes too: `npx` runs the server as its
 * child); and until it has exited it is killed (SIGKILL) when this process exits, or on SIGINT,
 * SIGTERM or SIGHUP that nothing else handles. If this process is killed with SIGKILL, nothing can
 * run: the child's stdin closes, and a server that exits on end of input ends with it.
 *
 * @example
 * ```ts
 * const child = new ChildProcessTransport({ command: 'node', args: ['server.mjs'] })
 * child.onmessage = (message) => console.log(message)
 * await child.start()
 * await child.send({ jsonrpc: '2.0', id: 1, method: 'ping' })
 * const { code } = await child.exited
 * ```
 */
export class ChildProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  /** Resolves once the child has exited and its output has been read (`onclose` has been called). */
  readonly exited: Promise<ChildExit>;

  readonly #options: ChildProcessTransportOptions;
  #process: ChildProcess | undefined;
  /** The child as the list of children to stop at exit knows it (a process group on POSIX). */
  #tracked: TrackedChildProcess | undefined;
  #untrack: () => void = () => {};
  #stopping: Promise<void> | undefined;
  #resolveExited!: (exit: ChildExit) => void;
  #hasExited = false;
  #decoder = new StringDecoder('utf8');
  #line = '';
  #discarding = false;

  constructor(options: ChildProcessTransportOptions) {
    this.#options = options;
    this.exited = new Promise((resolve) => {
      this.#resolveExited = resolve;
    });
  }

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** Starts the child; rejects if it cannot be started (e.g. no such command). */
  start(): Promise<void> {
    if (this.#process) return Promise.reject(new Error('ChildProcessTransport already started'));
    const { command, args = [], env = process.env, cwd } = this.#options;
    const group = process.platform !== 'win32';
    // detached: a new process group (and session) led by the child, so that it is signalled as a whole.
    const child = spawn(command, [...args], { env, cwd, stdio: ['pipe', 'pipe', 'inherit'], detached: group });
    this.#process = child;
    if (child.pid !== undefined) {
      this.#tracked = { pid: child.pid, group };
      this.#untrack = trackChildProcess(this.#tracked);
    }
    child.stdout?.on('data', (chunk: Buffer) => this.#read(this.#decoder.write(chunk)));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    child.stdin?.on('error', (error) => this.onerror?.(new Error(`writing to the child failed: ${error.message}`)));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        if (child.pid === undefined) {
          const spawnError = new Error(`could not start ${JSON.stringify(command)}: ${error.message}`, {
            cause: error,
          });
          reject(spawnError);
          this.#exit({ code: null, signal: null, spawnError });
        } else {
          this.onerror?.(error);
        }
      });
      child.once('close', (code, signal) => {
        this.#read(this.#decoder.end());
        this.#endGroup();
        this.#exit({ code, signal });
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin || this.#hasExited || !stdin.writable) throw new Error('Not connected: the child process has no stdin');
    const line = `${JSON.stringify(message)}\n`;
    if (!stdin.write(line)) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  /**
   * Stops the child: closes its stdin (a stdio server exits on end of input), then after
   * `stopGraceMs` sends SIGTERM to its process group, then SIGKILL; what is left of the group once
   * the child exited is killed. Resolves once it has exited. Every call returns the same promise.
   */
  close(): Promise<void> {
    if (!this.#process) return Promise.resolve(); // not started: nothing to stop (yet)
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /** Sends a signal to the child (its process group) at once. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (!this.#hasExited && this.#tracked) signalChildProcess(this.#tracked, signal);
  }

  async #stop(): Promise<void> {
    const child = this.#process;
    const tracked = this.#tracked;
    if (!child || !tracked || this.#hasExited) return;
    const grace = this.#options.stopGraceMs ?? 2_000;
    const waitExit = async (ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      const elapsed = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      });
      try {
        return await Promise.race([this.exited.then(() => true), elapsed]);
      } finally {
        clearTimeout(timer);
      }
    };
    child.stdin?.end();
    if (await waitExit(grace)) return;
    signalChildProcess(tracked, 'SIGTERM');
    if (await waitExit(grace)) return;
    signalChildProcess(tracked, 'SIGKILL');
    await this.exited;
  }

  /** The child is over (exited, its output read): kill what is left of its group, and stop tracking it. */
  #endGroup(): void {
    if (this.#tracked?.group) signalChildProcess(this.#tracked, 'SIGKILL');
    this.#untrack();
  }

  #read(text: string): void {
    const limit = this.#options.maxLineBytes ?? 16 * 1024 * 1024;
    let rest = text;
    for (let newline = rest.indexOf('\n'); newline !== -1; newline = rest.indexOf('\n')) {
      const line = (this.#line + rest.slice(0, newline)).replace(/\r$/, '');
      rest = rest.slice(newline + 1);
      this.#line = '';
      if (this.#discarding) this.#discarding = false;
      else if (line.trim() !== '') this.#deliver(line);
    }
    if (this.#discarding) return;
    this.#line += rest;
    if (this.#line.length > limit) {
      this.onerror?.(new Error(`the child wrote a line longer than ${limit} bytes to stdout; dropped`));
      this.#line = '';
      this.#discarding = true;
    }
  }

  #deliver(line: string): void {
    const frame = parseFrame(line);
    if (frame.type === 'message') this.onmessage?.(frame.message);
    else
      this.onerror?.(
        new Error(`the child wrote a line to stdout that is not a JSON-RPC message, dropped: ${frame.reason}`),
      );
  }

  #exit(exit: ChildExit): void {
    if (this.#hasExited) return;
    this.#hasExited = true;
    try {
      this.onclose?.();
    } finally {
      this.#resolveExited(exit);
    }
  }
}
