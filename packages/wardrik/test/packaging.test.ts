/*
 * Wardrik in a user's own project, end to end: the three packages packed with `npm pack` from an
 * unbuilt copy of this checkout (so `prepack` must build them), installed from the tarballs into
 * two fresh apps outside the repository — one made by `npm init -y` ("type": "commonjs"), one with
 * "type": "module" — and used there as the README says: `npx wardrik --version`, `init`,
 * `serve --port 0`, a run to its park, `answer`, `show` and `follow`; a CommonJS script that
 * require()s the packages and runs an agent; and a strict TypeScript program (`skipLibCheck:
 * false`) of the README's examples and the config `init` wrote, compiled against what was installed.
 *
 * Speed: both apps share one npm cache under the test's temp dir; installs are --prefer-offline.
 * better-sqlite3's install script fetches a prebuilt binary (with no prebuilt it compiles SQLite:
 * two minutes an app); the test serves it one from a local mirror (prebuild-install's
 * `npm_config_better_sqlite3_binary_host`), packed from the binary this repository's own
 * `npm ci` built for the same version and Node — the script still has to be approved and run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../src/cli/example-config.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const PACKAGES = ['core', 'wardrik', 'worker'] as const;
/** What a package folder holds besides dist: what `npm pack` may ship, and what `prepack` needs to build. */
const PACKAGE_FILES = ['package.json', 'tsconfig.json', 'tsconfig.emit.json', 'src', 'bin', 'README.md', 'LICENSE'];
/** The console's sources, which wardrik's `prepack` builds into its console/ folder. */
const CONSOLE_FILES = ['package.json', 'tsconfig.json', 'vite.config.ts', 'index.html', 'src', 'public'];

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One tarball, as `npm pack --json` describes it. */
interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly { path: string }[];
}

let root: string;
let cache: string;
let mirror: Server | undefined;
let mirrorUrl: string | undefined;
const packed = new Map<string, Packed>();
const servers: ChildProcess[] = [];

/**
 * The environment of a user in their own app: no variables of the npm that runs this test (they
 * would point npm at this repository), none of Wardrik's, the shared npm cache, and the mirror.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(npm_|WARDRIK_|NO_COLOR$|FORCE_COLOR$|NODE_OPTIONS$|VITEST)/i.test(key)) delete env[key];
  }
  env['npm_config_cache'] = cache;
  env['npm_config_update_notifier'] = 'false';
  if (mirrorUrl) env['npm_config_better_sqlite3_binary_host'] = mirrorUrl;
  return env;
}

/** Runs `command ...args` in `cwd` and resolves once it exits (killed after `timeoutMs`). */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npx wardrik ...args` in `app` (with --no: never fetch a package of that name from the registry; `--`: the options are wardrik's). */
function wardrik(app: string, args: readonly string[]): Promise<Result> {
  return run('npx', ['--no', '--', 'wardrik', ...args], app);
}

/** Says what a failed command printed. */
function shown(result: Result): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/**
 * Copies each package's sources (no dist) to `<root>/checkout`, beside this repository's
 * tsconfig.base.json and node_modules (the compiler and the dependencies), then packs them: the
 * tarballs only have a dist if `prepack` built one.
 */
async function packUnbuiltCheckout(): Promise<void> {
  const checkout = join(root, 'checkout');
  mkdirSync(join(checkout, 'packages'), { recursive: true });
  cpSync(join(repoRoot, 'tsconfig.base.json'), join(checkout, 'tsconfig.base.json'));
  cpSync(join(repoRoot, 'package.json'), join(checkout, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  for (const file of CONSOLE_FILES) {
    cpSync(join(repoRoot, 'packages', 'console', file), join(checkout, 'packages', 'console', file), {
      recursive: true,
    });
  }
  const tarballs = join(root, 'tarballs');
  mkdirSync(tarballs);
  await Promise.all(
    PACKAGES.map(async (name) => {
      const copy = join(checkout, 'packages', name);
      for (const file of PACKAGE_FILES) {
        const from = join(repoRoot, 'packages', name, file);
        if (existsSync(from)) cpSync(from, join(copy, file), { recursive: true });
      }
      expect(existsSync(join(copy, 'dist')), `${name}: the copy starts unbuilt`).toBe(false);
      const result = await run('npm', ['pack', '--json', '--pack-destination', tarballs], copy, 300_000);
      expect(result.code, `npm pack ${name}: ${shown(result)}`).toBe(0);
      const [described] = JSON.parse(result.stdout) as Packed[];
      if (!described) throw new Error(`npm pack ${name} described no tarball: ${result.stdout}`);
      packed.set(described.name, described);
    }),
  );
}

/**
 * Serves the prebuilt better-sqlite3 binary that prebuild-install asks for, made from this
 * repository's own build of the same version (absent: no mirror, and the install compiles).
 */
async function startMirror(): Promise<{ version: string } | undefined> {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('better-sqlite3/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const binary = join(dirname(manifest), 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(binary)) return undefined;
  const stage = join(root, 'prebuilt');
  mkdirSync(join(stage, 'build', 'Release'), { recursive: true });
  cpSync(binary, join(stage, 'build', 'Release', 'better_sqlite3.node'));
  const tarball = join(root, 'prebuilt.tar.gz');
  const tar = await run('tar', ['-czf', tarball, '-C', stage, 'build'], root);
  if (tar.code !== 0) return undefined;
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const body = readFileSync(tarball);
  mirror = createServer((request, response) => {
    const found = request.url === `/v${version}/${asset}`;
    response.writeHead(found ? 200 : 404, { 'content-type': 'application/octet-stream' });
    response.end(found ? body : undefined);
  });
  await new Promise<void>((resolve) => mirror?.listen(0, '127.0.0.1', resolve));
  const address = mirror.address();
  if (typeof address === 'object' && address) mirrorUrl = `http://127.0.0.1:${address.port}`;
  return { version };
}

/** The app of a kind: `npm init -y` for the CommonJS one (npm 11 writes "type": "commonjs"), a package.json with "type": "module" for the other. */
async function makeApp(kind: 'commonjs' | 'module', pin: { version: string } | undefined): Promise<string> {
  const app = join(root, `app-${kind}`);
  mkdirSync(app);
  if (kind === 'commonjs') {
    const init = await run('npm', ['init', '-y'], app);
    expect(init.code, shown(init)).toBe(0);
  } else {
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'app-module', version: '1.0.0', type: 'module' })}\n`,
    );
  }
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
  // What a user does (see the README): approve better-sqlite3's install script, which fetches or
  // builds its native binding. esbuild's (through tsx) only checks its binary: denied, to show
  // that Wardrik needs no other.
  manifest['allowScripts'] = { 'better-sqlite3': true, esbuild: false };
  // The version the mirror has a binary for (a newer 12.x would compile instead).
  if (pin) manifest['overrides'] = { 'better-sqlite3': pin.version };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const tarballs = [...packed.values()].map(({ filename }) => join(root, 'tarballs', filename));
  // --strict-allow-scripts: a script nobody approved fails the install instead of running with a warning.
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--strict-allow-scripts', ...tarballs],
    app,
    600_000,
  );
  expect(install.code, `npm install in ${app}: ${shown(install)}`).toBe(0);
  return app;
}

const apps = new Map<'commonjs' | 'module', string>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'wardrik-packaging-'));
  cache = join(root, 'npm-cache');
  const [pin] = await Promise.all([startMirror(), packUnbuiltCheckout()]);
  const [commonjs, module] = await Promise.all([makeApp('commonjs', pin), makeApp('module', pin)]);
  apps.set('commonjs', commonjs);
  apps.set('module', module);
}, 900_000);

afterAll(async () => {
  for (const server of servers) {
    if (server.exitCode !== null || server.signalCode !== null || !server.pid) continue;
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await new Promise((resolve) => (mirror ? mirror.close(resolve) : resolve(undefined)));
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it("ship their JavaScript without comments (an app keeps every module's source in memory) and their TSDoc in the .d.ts", () => {
    const app = apps.get('module') ?? '';
    const modules = { '@wardrik/core': 'tool', wardrik: 'runtime/run/run-driver' };
    for (const [name, module] of Object.entries(modules)) {
      const path = join(app, 'node_modules', name, 'dist', module);
      expect(readFileSync(`${path}.js`, 'utf8'), `${name}: dist/${module}.js`).not.toMatch(/\/\*\*|^\s*\/\/ /m);
      expect(readFileSync(`${path}.d.ts`, 'utf8'), `${name}: dist/${module}.d.ts`).toContain('/**');
    }
  });

  it('declare every package their modules and declarations import (wardrik imported @wardrik/core without)', () => {
    const app = apps.get('module') ?? '';
    for (const name of packed.keys()) {
      const installed = join(app, 'node_modules', name);
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const declared = new Set([name, ...Object.keys(manifest.dependencies ?? {})]);
      const undeclared = [...importedPackages(join(installed, 'dist'))].filter(([imported]) => !declared.has(imported));
      expect(undeclared, `${name} imports packages it does not declare`).toEqual([]);
    }
  });

  it('ship dist (built by prepack), bin, src, README and LICENSE, and no tests', () => {
    expect([...packed.keys()].sort()).toEqual(['@wardrik/core', '@wardrik/worker', 'wardrik']);
    for (const [name, { files }] of packed) {
      const paths = files.map(({ path }) => path);
      expect(paths, name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js']));
      expect(paths, name).toContain('dist/index.d.ts');
      const tops = new Set(paths.map((path) => path.split('/')[0]));
      expect([...tops].sort(), name).toEqual(
        name === '@wardrik/core'
          ? ['LICENSE', 'README.md', 'dist', 'package.json', 'src']
          : name === 'wardrik'
            ? ['LICENSE', 'README.md', 'bin', 'console', 'dist', 'package.json', 'src']
            : ['LICENSE', 'README.md', 'bin', 'dist', 'package.json', 'src'],
      );
      expect(
        paths.filter((path) => /\.test\.|\.tsbuildinfo$|(^|\/)test\//.test(path)),
        name,
      ).toEqual([]);
    }
    const runtime = packed.get('wardrik')?.files.map(({ path }) => path) ?? [];
    expect(runtime).toEqual(
      expect.arrayContaining([
        'bin/wardrik.js',
        'dist/cli/main.js',
        'dist/testing/index.js',
        'dist/testing/index.d.ts',
        'dist/config/config-module-hooks.js',
        'console/index.html',
      ]),
    );
    expect(runtime.filter((path) => /^console\/assets\/index-.*\.js$/.test(path))).toHaveLength(1);
  });
});

/** The packages that the modules and declarations under `directory` import, by file. */
function importedPackages(directory: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(js|d\.ts)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, ''); // not the examples in TSDoc
    // `from` only in an import or export statement (not in a string such as SQL's `'from', $2`).
    const statements = /(?:^(?:import|export)\b[^;'"]*?\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm;
    for (const [, specifier = ''] of text.matchAll(statements)) {
      if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      const parts = specifier.split('/');
      const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
      if (!found.has(name)) found.set(name, file);
    }
  }
  return found;
}

/** The CLI as a user drives it in `app`, against a server it starts there. */
async function cliFlow(app: string, configName: string): Promise<void> {
  const version = await wardrik(app, ['--version']);
  expect(version.code, shown(version)).toBe(0);
  expect(version.stdout).toContain('0.1.0');

  const init = await wardrik(app, ['init']);
  expect(init.code, shown(init)).toBe(0);
  expect(existsSync(join(app, configName)), `init wrote ${configName}`).toBe(true);

  const server = spawn('npx', ['--no', '--', 'wardrik', 'serve', '--port', '0'], {
    cwd: app,
    env: userEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npx and the server under it are stopped together
  });
  servers.push(server);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const listening = /Wardrik listening on (http:\/\/\S+)/.exec(output);
      if (listening?.[1]) resolve(listening[1]);
    });
    server.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    server.on('exit', (code) => reject(new Error(`wardrik serve exited (${code}) before listening:\n${output}`)));
  });

  // The console is served at / (built by prepack), with its Content-Security-Policy.
  const page = await fetch(`${url}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
  expect(script).toBeDefined();
  expect((await fetch(`${url}${script}`)).status).toBe(200);

  const started = await wardrik(app, ['run', 'support', 'Please refund order A1', '--url', url]);
  expect(started.code, shown(started)).toBe(3); // the refund waits for a person
  const runId = /Run (run_\S+) of support/.exec(started.stdout)?.[1];
  expect(runId, started.stdout).toBeDefined();

  const parks = await wardrik(app, ['parks', '--json', '--url', url]);
  expect(parks.code, shown(parks)).toBe(0);
  const [park] = JSON.parse(parks.stdout) as { id: string; runId: string }[];
  expect(park?.runId).toBe(runId);

  const answered = await wardrik(app, ['answer', park?.id ?? '', 'approve', '--url', url]);
  expect(answered.code, shown(answered)).toBe(0);
  expect(answered.stdout).toContain('Refunded');

  const show = await wardrik(app, ['show', runId ?? '', '--url', url]);
  expect(show.code, shown(show)).toBe(0);
  expect(show.stdout).toContain('refund');

  const follow = await wardrik(app, ['follow', runId ?? '', '--url', url]);
  expect(follow.code, shown(follow)).toBe(0); // the run completed
  expect(follow.stdout).toContain('Refunded');

  const stopped = new Promise<number | null>((resolve) => server.once('exit', resolve));
  if (server.pid) process.kill(-server.pid, 'SIGTERM');
  await stopped;
}

/** How a user's tsconfig resolves modules. */
interface ModuleSettings {
  readonly module: string;
  readonly moduleResolution: string;
  readonly skipLibCheck?: boolean;
  readonly esModuleInterop?: boolean;
}

/**
 * Compiles `files` in `app` with this repository's TypeScript as a user's strict project would:
 * `strict`, `noUncheckedIndexedAccess`, `skipLibCheck: false` (every .d.ts the packages bring in
 * is checked), NodeNext modules unless `settings` says. Returns tsc's output.
 */
async function compile(
  app: string,
  files: readonly string[],
  settings: ModuleSettings = { module: 'NodeNext', moduleResolution: 'NodeNext' },
): Promise<Result> {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'ES2022',
      ...settings,
      types: ['node'],
    },
    files,
  };
  // A file of its own per setting: tests in one app compile at the same time.
  const config = `tsconfig.${settings.module}-${settings.moduleResolution}.json`.toLowerCase();
  writeFileSync(join(app, config), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', config], app, 300_000);
}

/** A program of our own that uses each package the way the README does (it stands whatever the README's examples become). */
const PROGRAM = `import { ok, park, tool } from '@wardrik/core';
import { aiSdkModel, createWardrik, defineAgent, type RunStatus, sqliteStore } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { connectWorker } from '@wardrik/worker';

const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  run: ({ order_id, amount }, context) =>
    amount > 100 && !context.approval ? park('needs a manager') : ok({ refunded: amount, order_id: order_id.trim() }),
});
const support = defineAgent({ name: 'support', instructions: '', model: new ScriptedModel([{ text: 'hi' }]), tools: [refund] });
const wardrik = await createWardrik({ store: sqliteStore('.wardrik/program.db'), agents: [support] });
const result = await wardrik.run('support', 'Please refund order A1', { principal: 'customer-7' });
const status: RunStatus = result.status;
export { aiSdkModel, connectWorker, status };
`;

/**
 * The TypeScript examples of the core and runtime packages' own READMEs (what npm shows), as one
 * program: the core one defines the `refund` tool the runtime one runs; `model` is declared.
 */
function packageReadmesProgram(): string {
  const blocks = ['core', 'wardrik'].flatMap((name) => {
    const readme = readFileSync(join(repoRoot, 'packages', name, 'README.md'), 'utf8');
    return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(([, code = '']) => code);
  });
  return ["import type { Model } from 'wardrik';", 'declare const model: Model;', ...blocks].join('\n');
}

/** A CommonJS app's code: require() the packages (Node 20.19+ and 22.12+) and run an agent to its end. */
const COMMONJS_SCRIPT = `const { tool } = require('@wardrik/core');
const { createWardrik, defineAgent, sqliteStore } = require('wardrik');
const { ScriptedModel } = require('wardrik/testing');

const echo = tool({ name: 'echo', description: 'Echoes.', annotations: { readOnly: true }, run: () => 'echoed' });
const model = new ScriptedModel([{ toolCalls: [{ name: 'echo', arguments: {} }] }, { text: 'done' }]);
const agent = defineAgent({ name: 'echoer', instructions: '', model, tools: [echo] });
(async () => {
  const wardrik = await createWardrik({ store: sqliteStore('.wardrik/script.db'), agents: [agent] });
  const result = await wardrik.run('echoer', 'hello', { principal: 'me' });
  await wardrik.close();
  console.log(JSON.stringify({ status: result.status, output: result.output }));
})();
`;

/** The same program in CommonJS TypeScript: imports become require() calls. */
const COMMONJS_PROGRAM = `import { tool } from '@wardrik/core';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

const echo = tool({ name: 'echo', description: 'Echoes.', schema: { text: { type: 'string' } }, run: ({ text }) => text ?? '' });
const agent = defineAgent({ name: 'echoer', instructions: '', model: new ScriptedModel([{ text: 'done' }]), tools: [echo] });
export async function open(): Promise<Wardrik> {
  return createWardrik({ store: sqliteStore('.wardrik/program.db'), agents: [agent] });
}
`;

describe('in an app made by `npm init -y` ("type": "commonjs")', () => {
  it.concurrent('the CLI: --version, init (wardrik.config.mts), serve, a run to its park, answer, show, follow', async () => {
    await cliFlow(apps.get('commonjs') ?? '', 'wardrik.config.mts');
  }, 300_000);

  it.concurrent("CommonJS code require()s the packages and runs an agent; CommonJS TypeScript and init's config compile under strict", async () => {
    const app = apps.get('commonjs') ?? '';
    writeFileSync(join(app, 'script.cjs'), COMMONJS_SCRIPT);
    const script = await run(process.execPath, ['script.cjs'], app);
    expect(script.code, shown(script)).toBe(0);
    expect(JSON.parse(script.stdout.trim().split('\n').pop() ?? '')).toEqual({ status: 'completed', output: 'done' });

    writeFileSync(join(app, 'program.ts'), COMMONJS_PROGRAM);
    // What init writes (config-loading.test.ts checks it), under a name of its own: the CLI test runs beside this one.
    writeFileSync(join(app, 'example-config.mts'), EXAMPLE_CONFIG);
    const compiled = await compile(app, ['program.ts', 'example-config.mts']);
    expect(compiled.code, shown(compiled)).toBe(0);
  }, 300_000);

  it.concurrent('CommonJS TypeScript compiles under the module settings the README advises: node20, commonjs (typesVersions), not node16', async () => {
    const app = apps.get('commonjs') ?? '';
    writeFileSync(join(app, 'settings-program.ts'), COMMONJS_PROGRAM);
    for (const settings of [
      { module: 'node20', moduleResolution: 'node16' },
      // moduleResolution node10 ignores "exports": wardrik/testing is found through typesVersions.
      // As `tsc --init` writes it: the declarations of dependencies (zod, pino, the AI SDK) need
      // esModuleInterop, or do not resolve under node10 at all, so skipLibCheck too.
      { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, skipLibCheck: true },
    ]) {
      const compiled = await compile(app, ['settings-program.ts'], settings);
      expect({ settings, code: compiled.code, output: shown(compiled) }).toMatchObject({ settings, code: 0 });
    }
    // node16 (and node18) model a Node.js that cannot require() an ES module: the README says to use
    // node20 or nodenext instead, which model Node.js 22.12+, where it can.
    const old = await compile(app, ['settings-program.ts'], { module: 'node16', moduleResolution: 'node16' });
    expect(old.code).not.toBe(0);
    expect(old.stdout).toContain('TS1479');
  }, 300_000);
});

describe('in an app with "type": "module"', () => {
  it.concurrent('the CLI: --version, init (wardrik.config.ts), serve, a run to its park, answer, show, follow', async () => {
    await cliFlow(apps.get('module') ?? '', 'wardrik.config.ts');
  }, 300_000);

  it.concurrent("the README's examples (the packages' too), a program of our own and init's config compile under strict with skipLibCheck: false", async () => {
    const app = apps.get('module') ?? '';
    const files = ['program.ts', 'example-config.ts'];
    writeFileSync(join(app, 'program.ts'), PROGRAM);
    // What init writes (config-loading.test.ts checks it), under a name of its own: the CLI test runs beside this one.
    writeFileSync(join(app, 'example-config.ts'), EXAMPLE_CONFIG);
    writeFileSync(join(app, 'package-readmes.ts'), packageReadmesProgram());
    files.push('package-readmes.ts');
    if (existsSync(new URL('./readme-examples.ts', import.meta.url))) {
      const { readmeProgram } = (await import('./readme-examples.js')) as { readmeProgram: () => string };
      writeFileSync(join(app, 'readme.ts'), readmeProgram());
      files.push('readme.ts');
    }
    const compiled = await compile(app, files);
    expect(compiled.code, shown(compiled)).toBe(0);
  }, 300_000);

  it.concurrent('ES module TypeScript compiles for a bundler too (module preserve, moduleResolution bundler)', async () => {
    const app = apps.get('module') ?? '';
    writeFileSync(join(app, 'bundler-program.ts'), PROGRAM);
    const compiled = await compile(app, ['bundler-program.ts'], { module: 'preserve', moduleResolution: 'bundler' });
    expect(compiled.code, shown(compiled)).toBe(0);
  }, 300_000);
});
