import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { signalChildProcess, type TrackedChildProcess, trackChildProcess } from '@wardrik/core/child-processes';

/** How long a stopping server has after its stdin closed, and again after SIGTERM, before the next step (ms). */
const STOP_GRACE_MS = 500;

/** What to run. */
export interface ServerProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the process. */
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/**
 * A stdio server's process, started in a process group of its own (on POSIX), so that stopping it
 * stops whatever it started too (`npx` runs the server as its child; a shell script, its commands),
 * and kept on the list of children this process stops when it ends (see `@wardrik/core/child-processes`).
 *
 * @example
 * ```ts
 * const server = ServerProcess.start({ command: 'node', args: ['server.js'], env: { PATH: '/usr/bin' } })
 * await server.spawned
 * server.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
 * await server.stop() // stdin closed; SIGTERM, then SIGKILL, to its group if it lingers
 * ```
 */
export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once the process runs; rejects with Node's error (`code` ENOENT, EACCES…) if it could not be started. */
  readonly spawned: Promise<void>;
  /** Resolves once the process has exited (or could not be started). */
  readonly exited: Promise<void>;
  readonly #tracked: TrackedChildProcess | undefined;
  readonly #untrack: () => void;
  #stopping: Promise<void> | undefined;
  #groupEnded = false;

  private constructor(options: ServerProcessOptions) {
    const group = process.platform !== 'win32';
    this.child = spawn(options.command, [...options.args], {
      env: options.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ['pipe', 'pipe', 'pipe'],
      // A new process group (and session), led by the server: the group is signalled as a whole.
      detached: group,
      shell: false,
      windowsHide: true,
    });
    const pid = this.child.pid;
    this.#tracked = pid === undefined ? undefined : { pid, group };
    this.#untrack = this.#tracked === undefined ? () => {} : trackChildProcess(this.#tracked);
    this.spawned = new Promise((resolve, reject) => {
      this.child.once('spawn', resolve);
      this.child.once('error', reject);
    });
    this.spawned.catch(() => {});
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.once('error', () => {
        if (this.child.pid === undefined) resolve();
      });
    });
    // Once the server is over (exited, its output read), what it started and left behind goes too.
    this.child.once('close', () => this.#endGroup());
  }

  /** Starts `options.command`; `spawned` says whether that worked. */
  static start(options: ServerProcessOptions): ServerProcess {
    return new ServerProcess(options);
  }

  /** The process id, or undefined if it could not be started. */
  get pid(): number | undefined {
    return this.#tracked?.pid;
  }

  /**
   * Stops the server as MCP's stdio transport asks: closes its stdin; if it has not exited after
   * a short grace, sends SIGTERM to its process group; if it still has not, SIGKILL. Whatever is
   * left of its group once it exited is killed. Resolves once it has exited. Every call returns
   * the same promise.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const tracked = this.#tracked;
    if (tracked === undefined || this.#groupEnded) return;
    this.child.stdin.end();
    if (!(await this.#exitedWithin(STOP_GRACE_MS))) {
      signalChildProcess(tracked, 'SIGTERM');
      if (!(await this.#exitedWithin(STOP_GRACE_MS))) signalChildProcess(tracked, 'SIGKILL');
    }
    await this.exited;
    this.#endGroup();
    // Output still held open by a process that left the group is not waited for.
    this.child.stdout.destroy();
    this.child.stderr.destroy();
  }

  /** The server has exited: kill what remains of its group (once), and stop tracking it. */
  #endGroup(): void {
    const tracked = this.#tracked;
    if (tracked === undefined || this.#groupEnded) return;
    if (this.child.exitCode === null && this.child.signalCode === null) return;
    this.#groupEnded = true;
    if (tracked.group) signalChildProcess(tracked, 'SIGKILL');
    this.#untrack();
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.exited.then(() => true), elapsed]);
    } finally {
      clearTimeout(timer);
    }
  }
}
