/*
 * The bridge's stdio server never outlives the bridge (issue 26, item 13, the bridge's share):
 * stopping the child used to signal only the child, so what it started (`npx` runs the server as
 * its child) went on running; and a bridge that ended without stopping it (a second Ctrl-C, SIGHUP,
 * an uncaught exception) left a server that ignores the end of its stdin running, reparented to
 * init. Real processes throughout, checked in /proc.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChildProcessTransport } from '../src/child-process-transport.js';
import { eventually, WardrikDouble } from './wardrik-double.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/bridge-cli.ts', import.meta.url));
const CRASHING = fileURLToPath(new URL('./fixtures/crashing-bridge.ts', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/stubborn-server.mjs', import.meta.url));
const TOKEN = 'children-token';

/** Every process a test started (found by its marker), killed after it if it is still there. */
const markers: string[] = [];
let wardrik: WardrikDouble;

beforeEach(async () => {
  wardrik = await WardrikDouble.start(TOKEN);
});

afterEach(async () => {
  await wardrik.close();
  for (const marker of markers.splice(0)) {
    for (const pid of processesWith(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
});

function newMarker(): string {
  const marker = `wardrik-bridge-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  markers.push(marker);
  return marker;
}

/** The running processes whose command line contains `marker` (zombies excluded). */
function processesWith(marker: string): number[] {
  let listing = '';
  try {
    listing = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return listing
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter(isRunning);
}

/** Whether `pid` is a process that has not ended: in /proc and not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The stubborn server and the child it starts: they keep running after stdin ends, and ignore SIGTERM. */
function stubborn(marker: string): string[] {
  return [SERVER, marker, '--ignore-sigterm', '--grandchild'];
}

/** The server and its child, once both run (not `bridge`, whose command line names the server too). */
async function bothRunning(marker: string, bridge?: ChildProcess): Promise<number[]> {
  const started = () => processesWith(marker).filter((pid) => pid !== bridge?.pid);
  await eventually(() => started().length === 2, 15_000, 'the server and its child');
  return started();
}

type Ran = {
  process: ChildProcess;
  ready: Promise<void>;
  ended: Promise<{ code: number | null; signal: string | null }>;
};

function run(args: string[]): Ran {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stderr?.on('data', () => {});
  const ready = new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk) => {
      stdout += String(chunk);
      if (stdout.includes('ready\n')) resolve();
    });
  });
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, ready, ended };
}

describe('ChildProcessTransport', () => {
  it('close() stops the processes the server started, not only the server', async () => {
    const marker = newMarker();
    const transport = new ChildProcessTransport({
      command: process.execPath,
      args: stubborn(marker),
      stopGraceMs: 100,
    });
    await transport.start();
    const started = await bothRunning(marker);
    await transport.close();
    await eventually(() => started.every((pid) => !isRunning(pid)), 15_000, 'the server and its child to be gone');
  });
});

describe('a bridge process that ends before stopping its server leaves none', () => {
  it('a second SIGTERM, while the first is still stopping the server', async () => {
    const marker = newMarker();
    const ran = run([CLI, '--url', wardrik.url, '--token', TOKEN, '--', process.execPath, ...stubborn(marker)]);
    const session = await wardrik.nextSession(20_000);
    await session.initialize();
    const started = await bothRunning(marker, ran.process);
    ran.process.kill('SIGTERM');
    await session.closed; // the bridge is stopping: the server ignores the end of its stdin, so it waits
    ran.process.kill('SIGTERM'); // leave now
    expect(await ran.ended).toEqual({ code: 143, signal: null });
    await eventually(() => started.every((pid) => !isRunning(pid)), 15_000, 'the server and its child to be gone');
  });

  it('SIGHUP, which the bridge does not handle: it still ends by that signal', async () => {
    const marker = newMarker();
    const ran = run([CLI, '--url', wardrik.url, '--token', TOKEN, '--', process.execPath, ...stubborn(marker)]);
    const session = await wardrik.nextSession(20_000);
    await session.initialize();
    const started = await bothRunning(marker, ran.process);
    ran.process.kill('SIGHUP');
    expect(await ran.ended).toEqual({ code: null, signal: 'SIGHUP' });
    await eventually(() => started.every((pid) => !isRunning(pid)), 15_000, 'the server and its child to be gone');
  });

  it('an uncaught exception in a process running startBridge', async () => {
    const marker = newMarker();
    const ran = run([CRASHING, wardrik.url, TOKEN, process.execPath, ...stubborn(marker)]);
    await (await wardrik.nextSession(20_000)).handshake(); // the bridge is ready once Wardrik has the tools
    await ran.ready;
    const started = await bothRunning(marker, ran.process);
    ran.process.stdin?.write('crash\n');
    expect(await ran.ended).toEqual({ code: 1, signal: null });
    await eventually(() => started.every((pid) => !isRunning(pid)), 15_000, 'the server and its child to be gone');
  });
});
