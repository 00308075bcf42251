import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { signalChildProcess, stopChildProcesses, trackChildProcess } from '@wardrik/core/child-processes';
import { afterEach, describe, expect, it } from 'vitest';

/** A real child that runs until it is killed. */
function startIdleChild(): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('the child did not start');
  return child as ChildProcess & { pid: number };
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

describe('the list of child processes', () => {
  it('kills every child it holds with SIGKILL, says how many, and then holds none', async () => {
    const exitListeners = process.listenerCount('exit');
    const children = [startIdleChild(), startIdleChild()];
    started.push(...children);
    for (const child of children) trackChildProcess({ pid: child.pid, group: false });
    // One exit listener for the whole list, however many children it holds.
    expect(process.listenerCount('exit')).toBe(exitListeners + 1);

    const exited = children.map((child) => once(child, 'exit'));
    expect(stopChildProcesses()).toBe(2);
    for (const [, signal] of await Promise.all(exited)) expect(signal).toBe('SIGKILL');
    expect(process.listenerCount('exit')).toBe(exitListeners);
    expect(stopChildProcesses()).toBe(0);
  });

  it('lets go of a child once it is untracked, and listens to nothing while it holds none', async () => {
    const exitListeners = process.listenerCount('exit');
    const sigtermListeners = process.listenerCount('SIGTERM');
    const child = startIdleChild();
    started.push(child);
    const untrack = trackChildProcess({ pid: child.pid, group: false });
    expect(process.listenerCount('SIGTERM')).toBe(sigtermListeners + 1);
    untrack();
    expect(process.listenerCount('exit')).toBe(exitListeners);
    expect(process.listenerCount('SIGTERM')).toBe(sigtermListeners);
    expect(stopChildProcesses()).toBe(0);
    expect(child.exitCode).toBeNull(); // still running: nothing killed it
    expect(signalChildProcess({ pid: child.pid, group: false }, 0)).toBe(true);
  });

  it("an old entry's untrack does not remove a newer entry for the same process id", () => {
    const child = startIdleChild();
    started.push(child);
    const untrackOld = trackChildProcess({ pid: child.pid, group: false });
    const untrackNew = trackChildProcess({ pid: child.pid, group: false });
    untrackOld();
    expect(stopChildProcesses()).toBe(1);
    untrackNew(); // after a stop: nothing left to remove, and no error
  });

  it('signals a child, and says whether anything was there to receive it', async () => {
    const child = startIdleChild();
    started.push(child);
    const tracked = { pid: child.pid, group: false };
    expect(signalChildProcess(tracked, 0)).toBe(true);
    const exited = once(child, 'exit');
    expect(signalChildProcess(tracked, 'SIGTERM')).toBe(true);
    expect((await exited)[1]).toBe('SIGTERM');
    expect(signalChildProcess(tracked, 0)).toBe(false);
  });
});
