import { isMainThread } from 'node:worker_threads';

/**
 * The child processes this process started and must not leave behind (stdio MCP servers: Wardrik's
 * stdio toolsets, `@wardrik/worker`'s bridge), and what stops them when this process ends without
 * closing them first. One list for both packages; the only part of `@wardrik/core` that touches the
 * process, so it has a subpath of its own (`@wardrik/core/child-processes`), apart from the tool API.
 *
 * While at least one is running:
 * - on `'exit'` (a normal end, `process.exit()`, an uncaught exception, a handled signal that
 *   exits) each is killed with SIGKILL: an exit handler can only do synchronous work, so it
 *   cannot wait for a gentler stop;
 * - on SIGINT, SIGTERM or SIGHUP, if nothing else listens for that signal, each is killed and the
 *   signal is raised again, so the process ends just as it would have without this handler. If
 *   something else listens (`wardrik serve` closes its toolsets gracefully), it decides; the
 *   exit handler stops whatever is still running when the process then exits.
 *
 * Nothing can run when this process is killed with SIGKILL: its children's stdin then closes,
 * and a stdio server that exits on end of input (as MCP's stdio transport asks) ends with it.
 */

/** Marks the signal listeners that only stop children, in any copy of this module (another version installed beside this one). */
const STOPS_CHILD_PROCESSES = Symbol.for('wardrik.stopsChildProcesses');

/** The signals that end a process by default and that a process is usually stopped with. */
const STOPPING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A running child: its process id, and whether it leads a process group of its own (killed as a whole). */
export interface TrackedChildProcess {
  readonly pid: number;
  readonly group: boolean;
}

const running = new Map<number, TrackedChildProcess>();
let installed = false;

/**
 * Keeps `child` on the list of processes stopped when this process ends, until the returned
 * function is called (once it has exited).
 */
export function trackChildProcess(child: TrackedChildProcess): () => void {
  running.set(child.pid, child);
  install();
  return () => {
    if (running.get(child.pid) !== child) return;
    running.delete(child.pid);
    if (running.size === 0) uninstall();
  };
}

/**
 * Sends `signal` to `child` (to its whole process group if it leads one). Returns whether
 * anything was there to receive it.
 */
export function signalChildProcess(child: TrackedChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(child.group ? -child.pid : child.pid, signal);
    return true;
  } catch (thrown) {
    return (thrown as { code?: unknown }).code === 'EPERM';
  }
}

/**
 * Kills (SIGKILL) every stdio MCP server this process started (a `ChildProcessTransport`, a stdio
 * toolset) and has not stopped yet, with the processes they started, at once and synchronously;
 * returns how many there were. It runs when the process exits (and on SIGINT, SIGTERM or SIGHUP
 * when nothing else handles them); call it yourself on a path that ends the process some other
 * way. Prefer closing them (`close()`, `wardrik.close()`), which lets each server end gracefully first.
 *
 * @example
 * ```ts
 * stopChildProcesses() // process.abort() runs no 'exit' handler
 * process.abort()
 * ```
 */
export function stopChildProcesses(): number {
  const children = [...running.values()];
  for (const child of children) signalChildProcess(child, 'SIGKILL');
  running.clear();
  uninstall();
  return children.length;
}

function onExit(): void {
  stopChildProcesses();
}

function onSignal(signal: NodeJS.Signals): void {
  const others = process.listeners(signal).filter((listener) => !(STOPS_CHILD_PROCESSES in listener));
  if (others.length > 0) return;
  stopChildProcesses();
  // Without listeners the signal does what it does by default: it ends the process, as it would have.
  process.kill(process.pid, signal);
}
Object.defineProperty(onSignal, STOPS_CHILD_PROCESSES, { value: true });

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  // Signals reach only the main thread; in a worker thread, raising one again would end the whole process.
  if (!isMainThread) return;
  // First, so that a `once` listener added before this one is still there to be seen.
  for (const signal of STOPPING_SIGNALS) process.prependListener(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  for (const signal of STOPPING_SIGNALS) process.off(signal, onSignal);
}
