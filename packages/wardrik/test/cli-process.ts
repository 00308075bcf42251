/*
 * Helpers for the CLI tests: the built bin (packages/wardrik/dist/cli/main.js) run as a user runs
 * it, in a clean environment, and a real `wardrik serve` to run it against.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const cliPath = join(repoRoot, 'packages/wardrik/dist/cli/main.js');
/** Where the tests make their directories: inside the repo, so configs resolve 'wardrik' from its node_modules. */
export const tmpRoot = fileURLToPath(new URL('./.tmp/', import.meta.url));

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of a user who set nothing Wardrik-specific (and no NO_COLOR). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('WARDRIK_') || key.startsWith('npm_') || key === 'NO_COLOR' || key === 'FORCE_COLOR') {
      delete env[key];
    }
  }
  return { ...env, ...extra };
}

/**
 * Builds core and wardrik (tsc -b) so that the bin under test is current. CLI test files run at
 * the same time, so a lock directory makes them build one after the other (the second build finds
 * nothing to do).
 */
export async function buildCli(): Promise<void> {
  mkdirSync(tmpRoot, { recursive: true });
  const lock = join(tmpRoot, 'build.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed test run is stale after five minutes.
      const age = Date.now() - (statSafe(lock) ?? Date.now());
      if (age > 300_000) rmSync(lock, { recursive: true, force: true });
      await sleep(100);
    }
  }
  try {
    execFileSync(
      process.execPath,
      [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', 'packages/core', 'packages/wardrik'],
      { cwd: repoRoot, stdio: 'inherit' },
    );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function statSafe(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A running `wardrik ...` process, its output so far, and its end. */
export interface Spawned {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly done: Promise<Result>;
  /** Resolves once stdout contains `text` (or matches it); rejects if the process ends first. */
  readonly waitFor: (text: string | RegExp) => Promise<void>;
}

/** Starts `wardrik ...args` in `cwd`, with piped output (not a TTY). */
export function spawnCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; guardMs?: number },
): Spawned {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  // A hung command is killed rather than hanging the test file (a server lives as long as its file).
  const guard = setTimeout(() => child.kill('SIGKILL'), options.guardMs ?? 50_000);
  const done = new Promise<Result>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      for (const listener of listeners) listener();
      resolve({ code, ...output });
    });
  });
  const waitFor = (text: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (typeof text === 'string' ? output.stdout.includes(text) : text.test(output.stdout)) {
          listeners.delete(check);
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          listeners.delete(check);
          reject(
            new Error(
              `wardrik ${args.join(' ')} ended before printing ${String(text)}:\n${output.stdout}\n${output.stderr}`,
            ),
          );
        }
      };
      listeners.add(check);
      check();
    });
  return { child, output, done, waitFor };
}

/** Runs `wardrik ...args` in `cwd` and resolves once it exits. */
export function cli(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<Result> {
  return spawnCli(args, options).done;
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address ? address.port : 1;
}

/** `wardrik serve --port 0` in `cwd`, resolved once its banner is out (it ends with the line to try). */
export async function startServe(cwd: string, args: readonly string[] = []): Promise<{ server: Spawned; url: string }> {
  const server = spawnCli(['serve', '--port', '0', ...args], { cwd, guardMs: 20 * 60_000 });
  const ended = server.done.then((result) => {
    throw new Error(`serve exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  });
  await Promise.race([server.waitFor(/Try it[^\n]*\n[^\n]*\n/), ended]);
  const url = /Wardrik listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output.stdout)?.[1];
  if (!url) throw new Error(`no "listening on" line:\n${server.output.stdout}`);
  ended.catch(() => {});
  return { server, url };
}

/** Stops a server started with startServe and resolves to its exit code. */
export async function stopServe(server: Spawned | undefined): Promise<number | null> {
  if (!server || server.child.exitCode !== null) return server?.child.exitCode ?? null;
  server.child.kill('SIGTERM');
  return (await server.done).code;
}
