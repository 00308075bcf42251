/*
 * Helpers for the tests that run `wardrik serve` as a real process from the sources (no build):
 * start it on a config copied into a fresh directory, read its JSON banner and its JSON log lines,
 * poll its readiness, and talk to its API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, repoRoot, tmpRoot } from './cli-process.js';

const mainPath = join(repoRoot, 'packages/wardrik/src/cli/main.ts');

/** A fresh directory holding a copy of `fixture` (a file of test/fixtures) as wardrik.config.mjs. */
export function configDirectory(fixture: string): string {
  mkdirSync(tmpRoot, { recursive: true });
  const directory = mkdtempSync(join(tmpRoot, 'serve-'));
  copyFileSync(join(repoRoot, 'packages/wardrik/test/fixtures', fixture), join(directory, 'wardrik.config.mjs'));
  return directory;
}

/** `node --conditions=@wardrik/source --import tsx src/cli/main.ts …args`: the CLI from its sources. */
export function spawnWardrik(args: readonly string[], options: { cwd: string; env?: Record<string, string> }) {
  const child = spawn(process.execPath, ['--conditions=@wardrik/source', '--import', 'tsx', mainPath, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, exited };
}

/** A `wardrik serve` process, listening. */
export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly token: string;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its log lines so far (JSON objects, from stderr). */
  logs(): Record<string, unknown>[];
}

/**
 * Starts `wardrik serve --port 0 --json` in `cwd` and resolves once its banner is out (its runs
 * recovered). `token`: the admin token it printed, or the one saved in .wardrik/admin-token.
 */
export async function startServeProcess(
  cwd: string,
  options: { env?: Record<string, string>; args?: readonly string[] } = {},
): Promise<ServeProcess> {
  const { child, output, exited } = spawnWardrik(
    ['serve', '--config', 'wardrik.config.mjs', '--port', '0', '--json', ...(options.args ?? [])],
    {
      cwd,
      env: { ...options.env },
    },
  );
  let banner: { url: string; token?: string } | undefined;
  const deadline = Date.now() + 120_000;
  while (!banner) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`serve exited (${child.exitCode ?? child.signalCode}):\n${output.stdout}\n${output.stderr}`);
    }
    if (Date.now() > deadline) throw new Error(`serve printed no banner:\n${output.stdout}\n${output.stderr}`);
    try {
      banner = JSON.parse(output.stdout) as { url: string; token?: string };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const token = banner.token ?? readFileSync(join(cwd, '.wardrik', 'admin-token'), 'utf8').trim();
  return {
    child,
    url: banner.url.replace('//0.0.0.0:', '//127.0.0.1:'),
    token,
    output,
    exited,
    logs: () =>
      output.stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** What a poll of `/v1/ready` saw: its status, or the connection error (the port closed). */
export type ReadySample = { readonly status: number; readonly detail?: string } | { readonly error: string };

/** Polls `/v1/ready` every few ms until `stop()` is called or the port closes for good. */
export function pollReady(url: string): { samples: ReadySample[]; stop: () => Promise<void> } {
  const samples: ReadySample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const response = await fetch(`${url}/v1/ready`);
        const body = (await response.json()) as { detail?: string };
        samples.push({ status: response.status, ...(body.detail ? { detail: body.detail } : {}) });
      } catch (thrown) {
        const cause = (thrown as { cause?: { code?: string } }).cause;
        samples.push({ error: cause?.code ?? String(thrown) });
        if (cause?.code === 'ECONNREFUSED') return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** Calls the API with the admin token. */
export async function callApi(serve: Pick<ServeProcess, 'url' | 'token'>, path: string, body?: unknown) {
  const response = await fetch(`${serve.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${serve.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** Resolves once `check` holds, polling. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
