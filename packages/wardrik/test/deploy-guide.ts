/*
 * What deploy-guide.test.ts needs to run docs/deploy.md as a reader would: the guide's shell
 * blocks (its steps), a shell that runs them one after another in the app's folder (what a step
 * exports is there for the next, as in one terminal), the `wardrik` command on the PATH (the CLI
 * from its sources), and the proxies — Caddy and nginx run from copies of docs/deploy/Caddyfile
 * and docs/deploy/nginx.conf in which only what names this machine is replaced (PROXY_SITE).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cleanEnv, repoRoot } from './cli-process.js';

export const GUIDE = join(repoRoot, 'docs/deploy.md');
export const DEPLOY = join(repoRoot, 'docs/deploy');
/** The public name the guide's files serve (a reader's own replaces it). */
export const PROXY_SITE = 'wardrik.example.com';

/** One shell block of the guide. */
export interface GuideStep {
  readonly name: string;
  /** `# step: NAME (keeps running)`: a server, started in the background. */
  readonly keepsRunning: boolean;
  readonly code: string;
  /** Where the block starts in docs/deploy.md. */
  readonly line: number;
}

const STEP_LINE = /^# step: ([a-z0-9-]+)( \(keeps running\))?$/;

/**
 * The guide's fenced blocks: every `sh` block is a step (its first line `# step: NAME`), and the
 * only other kind allowed is the `ts` config — so no command can sit in the guide without the test
 * running it. Throws naming the line of a block that breaks this.
 */
export function guideBlocks(text: string): { steps: GuideStep[]; typescript: string[] } {
  const steps: GuideStep[] = [];
  const typescript: string[] = [];
  for (const match of text.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, match.index).split('\n').length;
    const [, language, code = ''] = match;
    if (language === 'ts') {
      typescript.push(code);
      continue;
    }
    if (language !== 'sh') {
      throw new Error(`docs/deploy.md line ${line}: a \`\`\`${language} block; shell commands go in \`\`\`sh blocks`);
    }
    const step = STEP_LINE.exec(code.split('\n')[0] ?? '');
    if (!step?.[1]) throw new Error(`docs/deploy.md line ${line}: a sh block must start with "# step: NAME"`);
    if (steps.some((known) => known.name === step[1])) {
      throw new Error(`docs/deploy.md line ${line}: a second step named ${step[1]}`);
    }
    steps.push({ name: step[1], keepsRunning: step[2] !== undefined, code, line });
  }
  return { steps, typescript };
}

/** A step started in the background (a server), in a process group of its own. */
export interface Background {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` to its process group, and resolves with how it ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `command` in a process group of its own, collecting its output. */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Background {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return {
    child,
    output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // It ended meanwhile.
        }
      }
      return exited;
    },
  };
}

/**
 * Runs the guide's steps in `cwd` as a reader would in one terminal: each in bash with `set -euo
 * pipefail`, with what the steps before it exported. `wardrik` on the PATH is the CLI from its
 * sources.
 */
export class GuideShell {
  readonly cwd: string;
  readonly ran = new Set<string>();
  env: Record<string, string>;
  readonly #steps: readonly GuideStep[];
  readonly #scratch: string;
  #count = 0;

  constructor(options: { cwd: string; scratch: string; steps: readonly GuideStep[]; env: Record<string, string> }) {
    this.cwd = options.cwd;
    this.#steps = options.steps;
    this.#scratch = options.scratch;
    const bin = join(options.scratch, 'bin');
    mkdirSync(bin, { recursive: true });
    const main = join(repoRoot, 'packages/wardrik/src/cli/main.ts');
    writeFileSync(
      join(bin, 'wardrik'),
      `#!/bin/sh\nexec "${process.execPath}" --conditions=@wardrik/source --import tsx "${main}" "$@"\n`,
    );
    chmodSync(join(bin, 'wardrik'), 0o755);
    const base = cleanEnv();
    this.env = {
      ...(Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined)) as Record<
        string,
        string
      >),
      ...options.env,
      PATH: `${bin}:${base['PATH'] ?? '/usr/bin:/bin'}`,
    };
  }

  step(name: string): GuideStep {
    const found = this.#steps.find((step) => step.name === name);
    if (!found) throw new Error(`docs/deploy.md has no step named ${name}`);
    return found;
  }

  /** Runs a step to its end; throws with its output if it fails. Its exports stay for the next. */
  async run(name: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
    const step = this.step(name);
    if (step.keepsRunning) throw new Error(`step ${name} keeps running: start() it`);
    this.ran.add(name);
    this.#count += 1;
    const script = join(this.#scratch, `step-${this.#count}-${name}.sh`);
    const exported = join(this.#scratch, `step-${this.#count}-${name}.env`);
    writeFileSync(script, `set -euo pipefail\n${step.code}\nenv -0 > '${exported}'\n`);
    const run = spawnGroup('bash', [script], { cwd: this.cwd, env: { ...this.env, ...env } });
    const { code, signal } = await run.exited;
    if (code !== 0) {
      throw new Error(
        `step ${name} (docs/deploy.md line ${step.line}) ended with ${code ?? signal}:\n${run.output.stdout}\n${run.output.stderr}`,
      );
    }
    const after = readFileSync(exported, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] as const);
    for (const [key, value] of after) {
      if (['_', 'SHLVL', 'PWD', 'OLDPWD'].includes(key) || key in env) continue;
      this.env[key] = value;
    }
    return run.output;
  }

  /** Starts a step that keeps running (a server). */
  start(name: string, env: Record<string, string> = {}): Background {
    const step = this.step(name);
    if (!step.keepsRunning) throw new Error(`step ${name} does not keep running: run() it`);
    this.ran.add(name);
    return spawnGroup('bash', ['-c', `set -euo pipefail\n${step.code}`], {
      cwd: this.cwd,
      env: { ...this.env, ...env },
    });
  }
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves once `check` holds; rejects after `timeoutMs` saying `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves once the node at `port` is ready; rejects (with its output) if it exits first. */
export async function untilReady(node: Background, port: number): Promise<void> {
  await until(`the node on port ${port} to be ready`, async () => {
    if (node.child.exitCode !== null || node.child.signalCode !== null) {
      throw new Error(`the node on port ${port} exited:\n${node.output.stdout}\n${node.output.stderr}`);
    }
    try {
      return (await fetch(`http://127.0.0.1:${port}/v1/ready`)).status === 200;
    } catch {
      return false;
    }
  });
}

/** A self-signed certificate for PROXY_SITE, in `directory`. */
export function selfSignedCertificate(directory: string): { certificate: string; key: string } {
  const certificate = join(directory, 'fullchain.pem');
  const key = join(directory, 'privkey.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${PROXY_SITE}`,
      '-keyout',
      key,
      '-out',
      certificate,
    ],
    { stdio: 'ignore' },
  );
  return { certificate, key };
}

/** Replaces each `[from, to]` in `text`, failing if `from` is not there (the file changed under the test). */
export function replaceAll(text: string, file: string, replacements: ReadonlyArray<readonly [string, string]>): string {
  let result = text;
  for (const [from, to] of replacements) {
    if (!result.includes(from)) throw new Error(`${file} no longer says ${JSON.stringify(from)}: update the test`);
    result = result.replaceAll(from, to);
  }
  return result;
}

/**
 * `curl` to PROXY_SITE through a proxy listening on 127.0.0.1:`port` (its certificate is the
 * test's own, hence `-k`), answering the status, the headers (lower-case names) and the body.
 */
export function curlThrough(
  port: number,
  path: string,
  options: { headers?: Record<string, string>; body?: string; method?: string } = {},
): { status: number; headers: Record<string, string>; body: string } {
  const args = ['-sS', '-k', '-i', '--resolve', `${PROXY_SITE}:${port}:127.0.0.1`];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (options.method) args.push('-X', options.method);
  if (options.body !== undefined) args.push('--data-binary', options.body);
  args.push(`https://${PROXY_SITE}:${port}${path}`);
  const text = execFileSync('curl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/[\d.]+ (\d+)/.exec(head[0] ?? '')?.[1]);
  const headers = Object.fromEntries(
    head
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status, headers, body: text.slice(split + 4) };
}

/** A response that stays open (an event stream, a WebSocket), read through the proxy by `curl`. */
export interface OpenResponse {
  /** Resolves once what came so far holds `expected` while curl still reads; rejects if it ended first. */
  waitFor(expected: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** Starts `curl -N` (no buffering of its own) on `path` through the proxy listening on 127.0.0.1:`port`. */
export function openThrough(
  port: number,
  path: string,
  options: { headers: Record<string, string>; http1?: boolean },
): OpenResponse {
  const args = ['-sS', '-k', '-N', '-i', '--resolve', `${PROXY_SITE}:${port}:127.0.0.1`];
  if (options.http1) args.push('--http1.1');
  for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}: ${value}`);
  args.push(`https://${PROXY_SITE}:${port}${path}`);
  const curl = spawnGroup('curl', args, { cwd: repoRoot, env: process.env });
  return {
    async waitFor(expected, timeoutMs = 30_000) {
      await until(
        `${JSON.stringify(expected)} from ${path} through the proxy on port ${port}`,
        () => {
          if (curl.output.stdout.includes(expected)) return true;
          if (curl.child.exitCode !== null) {
            throw new Error(`curl ended before ${expected}:\n${curl.output.stdout}\n${curl.output.stderr}`);
          }
          return false;
        },
        timeoutMs,
      );
      return curl.output.stdout;
    },
    async stop() {
      await curl.stop('SIGKILL');
    },
  };
}

/** What names this machine in the guide's proxy files, and what the test puts there instead. */
export interface ProxySetup {
  /** A folder of the proxy's own. */
  readonly directory: string;
  readonly httpPort: number;
  readonly httpsPort: number;
}

/**
 * Runs docs/deploy/Caddyfile in front of the nodes on `nodePorts`: a copy whose nodes (`to
 * 127.0.0.1:4000`) are the test's, imported by a file of global options that make Caddy sign its
 * own certificate (`local_certs`, no ACME), listen on the test's ports and keep its state in the
 * test's folder.
 */
export function startCaddy(setup: ProxySetup, nodePorts: readonly number[]): Background {
  const { directory } = setup;
  mkdirSync(join(directory, 'data'), { recursive: true });
  const site = replaceAll(readFileSync(join(DEPLOY, 'Caddyfile'), 'utf8'), 'docs/deploy/Caddyfile', [
    ['\tto 127.0.0.1:4000\n', `\tto ${nodePorts.map((port) => `127.0.0.1:${port}`).join(' ')}\n`],
  ]);
  writeFileSync(join(directory, 'site.caddy'), site);
  writeFileSync(
    join(directory, 'run.caddy'),
    [
      '{',
      '\tadmin off',
      '\tlocal_certs',
      '\tskip_install_trust',
      `\thttp_port ${setup.httpPort}`,
      `\thttps_port ${setup.httpsPort}`,
      `\tstorage file_system ${join(directory, 'data')}`,
      '}',
      `import ${join(directory, 'site.caddy')}`,
      '',
    ].join('\n'),
  );
  return spawnGroup('caddy', ['run', '--config', join(directory, 'run.caddy'), '--adapter', 'caddyfile'], {
    cwd: directory,
    env: { ...process.env, HOME: directory, XDG_DATA_HOME: directory, XDG_CONFIG_HOME: directory },
  });
}

/**
 * docs/deploy/nginx.conf with this machine's values: its two upstream nodes on `nodePorts`, its
 * listeners on the test's ports (IPv4 loopback only), its certificate the test's own — inside a
 * main config of the test's (pid, logs and temporary files in its folder). Answers the main config.
 */
export function nginxConfig(setup: ProxySetup, nodePorts: readonly [number, number]): string {
  const { directory } = setup;
  const { certificate, key } = selfSignedCertificate(directory);
  const site = replaceAll(readFileSync(join(DEPLOY, 'nginx.conf'), 'utf8'), 'docs/deploy/nginx.conf', [
    ['server 10.0.0.5:4000 ', `server 127.0.0.1:${nodePorts[0]} `],
    ['server 10.0.0.6:4000 ', `server 127.0.0.1:${nodePorts[1]} `],
    ['listen 80;', `listen 127.0.0.1:${setup.httpPort};`],
    ['listen [::]:80;', ''],
    ['listen 443 ssl http2;', `listen 127.0.0.1:${setup.httpsPort} ssl http2;`],
    ['listen [::]:443 ssl http2;', ''],
    [`/etc/letsencrypt/live/${PROXY_SITE}/fullchain.pem`, certificate],
    [`/etc/letsencrypt/live/${PROXY_SITE}/privkey.pem`, key],
  ]);
  writeFileSync(join(directory, 'wardrik.conf'), site);
  const temporary = join(directory, 'temporary');
  mkdirSync(temporary, { recursive: true, mode: 0o777 });
  chmodSync(temporary, 0o777);
  const main = join(directory, 'nginx.conf');
  writeFileSync(
    main,
    [
      `pid ${join(directory, 'nginx.pid')};`,
      `error_log ${join(directory, 'error.log')};`,
      'events {}',
      'http {',
      '    access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (kind) => `    ${kind}_temp_path ${join(temporary, kind)};`,
      ),
      `    include ${join(directory, 'wardrik.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  return main;
}

/** The arguments that point nginx at the main config `main` (and its early log at the test's folder). */
export function nginxArguments(setup: ProxySetup, main: string): string[] {
  return ['-p', setup.directory, '-e', join(setup.directory, 'error.log'), '-c', main];
}
