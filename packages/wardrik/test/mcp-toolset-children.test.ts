/*
 * A stdio MCP server never outlives its toolset, nor the Wardrik process (issue 26, item 13).
 * `close()` while connecting used to return with the server still running (the SDK's transport
 * closes once, and a failed connect closes it twice), so a server that hangs was killed only when
 * the connect timeout fired; a server's own children were never stopped; and a Wardrik process that
 * ended without closing its toolsets left its servers running, reparented to init. Real processes
 * throughout, checked in /proc.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StateView, type ToolsetContext } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServerUnavailableError } from '../src/toolsets/mcp-server-unavailable.js';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import type { McpToolsetOptions } from '../src/toolsets/mcp-toolset-options.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/children/stubborn-server.mjs', import.meta.url));
const OWNER = fileURLToPath(new URL('./fixtures/children/toolset-owner.ts', import.meta.url));

const open: McpToolset[] = [];
/** Every process a test started (found by its marker), killed after it if it is still there. */
const markers: string[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((toolset) => toolset.close()));
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

function start(options: McpToolsetOptions): McpToolset {
  const toolset = mcpToolset(options);
  open.push(toolset);
  return toolset;
}

/** A marker no other process carries, to find a test's processes in `ps`. */
function newMarker(): string {
  const marker = `wardrik-child-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  markers.push(marker);
  return marker;
}

function toolsetContext(signal = new AbortController().signal): ToolsetContext {
  return { runId: 'r1', agentName: 'helper', principal: 'carol', step: 1, labels: [], state: new StateView(), signal };
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

/** The parent of `pid`, from /proc. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '', 10);
  } catch {
    return undefined;
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The stubborn server, run with `flags` (see the fixture). */
function stubborn(marker: string, flags: string[], extra: Partial<McpToolsetOptions> = {}): McpToolsetOptions {
  return { name: 'stubborn', command: process.execPath, args: [SERVER, marker, ...flags], ...extra };
}

describe('close()', () => {
  it('stops a server that hangs while connecting, without waiting for the connect timeout', async () => {
    const marker = newMarker();
    // The reproduction; a connect timeout far longer than the test's, so waiting for it fails the test.
    const toolset = start({
      command: process.execPath,
      args: ['-e', `setInterval(() => {}, 1000) // ${marker}`],
      connectTimeoutMs: 3_600_000,
    });
    const controller = new AbortController();
    const listing = Promise.resolve(toolset.tools(toolsetContext(controller.signal)));
    await until(() => processesWith(marker).length === 1, 'the server to start');
    const [pid] = processesWith(marker) as [number];
    controller.abort(new Error('the step went on without the toolset'));
    await expect(listing).rejects.toThrow(McpServerUnavailableError);

    await toolset.close();
    expect(isRunning(pid)).toBe(false);
  });

  it('racing a connect that has just begun leaves no server, and nothing is started after', async () => {
    const marker = newMarker();
    const toolset = start(stubborn(marker, [], { connectTimeoutMs: 3_600_000 }));
    const listing = Promise.resolve(toolset.tools(toolsetContext()));
    await toolset.close();
    await expect(listing).rejects.toThrow(/the toolset was closed/);
    expect(processesWith(marker)).toEqual([]);

    // A step that asks again, or a call, starts nothing.
    await expect(Promise.resolve(toolset.tools(toolsetContext()))).rejects.toThrow(/the toolset was closed/);
    await expect(toolset.connect()).rejects.toThrow(McpServerUnavailableError);
    expect(processesWith(marker)).toEqual([]);
  });

  it('kills a server that ignores the end of its stdin and SIGTERM, and the processes it started', async () => {
    const marker = newMarker();
    const toolset = start(stubborn(marker, ['--ignore-sigterm', '--grandchild']));
    await toolset.connect();
    await until(() => processesWith(marker).length === 2, 'the server and its child');
    const server = processesWith(marker).find((pid) => parentOf(pid) === process.pid) as number;
    const grandchild = processesWith(marker).find((pid) => parentOf(pid) === server) as number;
    expect([server, grandchild]).toEqual([expect.any(Number), expect.any(Number)]);

    await toolset.close();
    expect(isRunning(server)).toBe(false);
    // Killed with its group; init reaps it.
    await until(() => !isRunning(grandchild), "the server's own child to be gone");
  });
});

type Owner = {
  process: ChildProcess;
  ready: Promise<void>;
  ended: Promise<{ code: number | null; signal: string | null }>;
};

/** A Wardrik process (fixtures/children/toolset-owner.ts) ended `how`, its toolset's server started with `flags`. */
function owner(how: string, marker: string, flags: string[]): Owner {
  const child = spawn(
    process.execPath,
    ['--conditions=@wardrik/source', '--import', 'tsx', OWNER, how, marker, ...flags],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += String(chunk);
      if (stdout.includes('ready\n')) resolve();
    });
    child.once('exit', () => reject(new Error(`the owner exited before it was ready: ${stderr}`)));
  });
  ready.catch(() => {});
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, ready, ended };
}

describe('a Wardrik process that ends without closing its toolsets leaves no server', () => {
  // The server keeps running after its stdin ends and ignores SIGTERM; its own child too.
  const stubbornFlags = ['--ignore-sigterm', '--grandchild'];

  /** The server and its child, once both run (not `owner`, whose command line names the server too). */
  async function serverOf(marker: string, owner: Owner): Promise<number[]> {
    const started = () => processesWith(marker).filter((pid) => pid !== owner.process.pid);
    await until(() => started().length === 2, 'the server and its child');
    return started();
  }

  it.each([
    ['exits (process.exit)', 'exit', { code: 0, signal: null }],
    ['throws an uncaught exception', 'throw', { code: 1, signal: null }],
    [
      "fails its store (crash-only: the runtime's onFailure listener exits)",
      'store-failure',
      { code: 1, signal: null },
    ],
  ])('%s', async (_title, how, ending) => {
    const marker = newMarker();
    const ran = owner(how, marker, stubbornFlags);
    await ran.ready;
    const started = await serverOf(marker, ran);
    ran.process.stdin?.write('now\n');
    expect(await ran.ended).toEqual(ending);
    await until(() => started.every((pid) => !isRunning(pid)), 'the server and its child to be gone');
  });

  it('is ended by SIGTERM, with no listener of its own: it still ends by that signal', async () => {
    const marker = newMarker();
    const ran = owner('wait', marker, stubbornFlags);
    await ran.ready;
    const started = await serverOf(marker, ran);
    ran.process.kill('SIGTERM');
    expect(await ran.ended).toEqual({ code: null, signal: 'SIGTERM' });
    await until(() => started.every((pid) => !isRunning(pid)), 'the server and its child to be gone');
  });

  it('handles SIGTERM itself (as `wardrik serve` does): its listener decides, and closing stops the server', async () => {
    const marker = newMarker();
    const ran = owner('graceful', marker, stubbornFlags);
    await ran.ready;
    const started = await serverOf(marker, ran);
    ran.process.kill('SIGTERM');
    // Not cut short by a re-raised SIGTERM: its own listener closed the runtime and exited 0.
    expect(await ran.ended).toEqual({ code: 0, signal: null });
    await until(() => started.every((pid) => !isRunning(pid)), 'the server and its child to be gone');
  });

  it('is killed with SIGKILL: a server that exits when its stdin ends, ends', async () => {
    // Nothing runs in a process killed with SIGKILL; what is guaranteed is that the server's stdin
    // closes (nothing else holds it open). A server that ignores that is left running (README).
    const marker = newMarker();
    const ran = owner('wait', marker, ['--exit-on-eof']);
    await ran.ready;
    const started = () => processesWith(marker).filter((pid) => pid !== ran.process.pid);
    await until(() => started().length === 1, 'the server');
    const [server] = started() as [number];
    ran.process.kill('SIGKILL');
    expect(await ran.ended).toEqual({ code: null, signal: 'SIGKILL' });
    await until(() => !isRunning(server), 'the server to be gone');
  });
});
