/*
 * Config files load in any app: ES-module apps ("type": "module"), CommonJS apps ("type":
 * "commonjs", what `npm init` writes) and apps with no "type", as wardrik.config.ts, .mts, .cts,
 * .js, .mjs and .cjs; and the config shares the CLI's 'wardrik' and '@wardrik/core' (one module
 * instance of each, so what its defineAgent makes passes the CLI's checks).
 *
 * Each app is a real folder under the OS temp dir (outside this repository, so none of our
 * package.json files applies) whose node_modules link 'wardrik' and '@wardrik/core' to this
 * repository's packages, used through their built dist as an installed copy would be. A node
 * process imports 'wardrik' there, calls loadConfig and reports what the config saw; the CLI runs
 * `init` and `tokens list` there.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../src/cli/example-config.js';
import { buildCli } from './cli-process.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const cliPath = join(repoRoot, 'packages/wardrik/dist/cli/main.js');

type AppType = 'module' | 'commonjs' | 'none';
const APP_TYPES: readonly AppType[] = ['module', 'commonjs', 'none'];

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What the probe prints: what the config saw, or the error loadConfig threw. */
interface Probe {
  readonly agents?: string[];
  readonly sameWardrik?: boolean;
  readonly sameCore?: boolean;
  readonly format?: 'module' | 'commonjs';
  readonly error?: string;
}

let root: string;

/** The environment of a user who set nothing Wardrik-specific. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('WARDRIK_') || key.startsWith('npm_')) delete env[key];
  return env;
}

/** Runs `node ...args` in `cwd` and resolves once it exits. */
function run(args: readonly string[], cwd: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Imports 'wardrik' in `app` as the CLI would, loads `file` (or the one config there) and says what it saw. */
async function probe(app: string, file?: string): Promise<Probe> {
  const result = await run(['probe.mjs', ...(file === undefined ? [] : [file])], app);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Probe;
  } catch {
    throw new Error(`the probe printed no result (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
}

const PROBE = `import * as core from '@wardrik/core';
import * as wardrik from 'wardrik';

try {
  const config = await wardrik.loadConfig(process.argv[2]);
  const seen = globalThis.wardrikConfigProbe;
  console.log(JSON.stringify({
    agents: config.agents.map((agent) => agent.name),
    sameWardrik: seen?.defineAgent === wardrik.defineAgent,
    sameCore: seen?.tool === core.tool,
    format: seen?.format,
  }));
} catch (error) {
  console.log(JSON.stringify({ error: error.message }));
}
`;

/** A config in ES-module syntax (TypeScript when `typed`); its agent comes from ./support-agent.ts when `local`. */
function moduleConfig(options: { typed: boolean; local?: boolean }): string {
  const annotation = options.typed ? ': string' : '';
  const agent = options.local
    ? "import { support } from './support-agent.js';\n"
    : `const name${annotation} = 'support';
const support = defineAgent({ name, instructions: '', model: new ScriptedModel([{ text: 'hi' }]), tools: [echo] });
`;
  return `import { tool } from '@wardrik/core';
import { defineAgent, defineConfig } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

globalThis.wardrikConfigProbe = { defineAgent, tool, format: typeof require === 'undefined' ? 'module' : 'commonjs' };
const echo = tool({ name: 'echo', description: 'Echoes.', run: () => 'echo' });
${agent}
export default defineConfig({ agents: [support] });
`;
}

/** The agent of a config that imports it from a TypeScript file beside it. */
const SUPPORT_AGENT = `import { defineAgent } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

const name: string = 'support';
export const support = defineAgent({ name, instructions: '', model: new ScriptedModel([{ text: 'hi' }]) });
`;

/** A config in CommonJS syntax. */
const COMMONJS_CONFIG = `const { tool } = require('@wardrik/core');
const { defineAgent, defineConfig } = require('wardrik');
const { ScriptedModel } = require('wardrik/testing');

globalThis.wardrikConfigProbe = { defineAgent, tool, format: typeof require === 'undefined' ? 'module' : 'commonjs' };
const echo = tool({ name: 'echo', description: 'Echoes.', run: () => 'echo' });
const support = defineAgent({ name: 'support', instructions: '', model: new ScriptedModel([{ text: 'hi' }]), tools: [echo] });
module.exports = defineConfig({ agents: [support] });
`;

/** A new app of `type` under the test's temp dir, with 'wardrik' and '@wardrik/core' linked in. */
function makeApp(type: AppType, name: string): string {
  const app = join(root, `${name}-${type}`);
  mkdirSync(join(app, 'node_modules', '@wardrik'), { recursive: true });
  const manifest: Record<string, unknown> = { name: `app-${name}`, version: '1.0.0', private: true };
  if (type !== 'none') manifest['type'] = type;
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  symlinkSync(join(repoRoot, 'packages/wardrik'), join(app, 'node_modules', 'wardrik'), 'dir');
  symlinkSync(join(repoRoot, 'packages/core'), join(app, 'node_modules', '@wardrik', 'core'), 'dir');
  writeFileSync(join(app, 'probe.mjs'), PROBE);
  return app;
}

/** The config files to load in an app of `type`, with the module format each must run as. */
function configFiles(type: AppType): Array<[file: string, text: string, format: 'module' | 'commonjs']> {
  const jsIsModule = type === 'module';
  return [
    ['wardrik.config.ts', moduleConfig({ typed: true }), 'module'],
    ['local.config.ts', moduleConfig({ typed: true, local: true }), 'module'],
    ['wardrik.config.mts', moduleConfig({ typed: true }), 'module'],
    ['wardrik.config.cts', moduleConfig({ typed: true }), 'commonjs'],
    [
      'wardrik.config.js',
      jsIsModule ? moduleConfig({ typed: false }) : COMMONJS_CONFIG,
      jsIsModule ? 'module' : 'commonjs',
    ],
    ['wardrik.config.mjs', moduleConfig({ typed: false }), 'module'],
    ['wardrik.config.cjs', COMMONJS_CONFIG, 'commonjs'],
  ];
}

beforeAll(async () => {
  // The apps use the built dist, as an installed copy would; `npm test` builds first, this makes sure it is current.
  await buildCli();
  root = mkdtempSync(join(tmpdir(), 'wardrik-config-loading-'));
}, 300_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('loadConfig in any app', () => {
  for (const type of APP_TYPES) {
    it(`loads every kind of config file in an app with ${type === 'none' ? 'no "type"' : `"type": "${type}"`}, sharing the CLI's packages`, async () => {
      const app = makeApp(type, 'load');
      const files = configFiles(type);
      writeFileSync(join(app, 'support-agent.ts'), SUPPORT_AGENT);
      for (const [file, text] of files) writeFileSync(join(app, file), text);
      const results = await Promise.all(files.map(([file]) => probe(app, file)));
      files.forEach(([file, , format], index) => {
        expect(results[index], file).toEqual({ agents: ['support'], sameWardrik: true, sameCore: true, format });
      });
    });
  }

  it('a .ts config is an ES module even in a CommonJS app; using __dirname there says so and what to do', async () => {
    const app = makeApp('commonjs', 'dirname');
    writeFileSync(join(app, 'wardrik.config.ts'), `console.log(__dirname);\nexport default {};\n`);
    const { error } = await probe(app, 'wardrik.config.ts');
    expect(error).toContain(`config file ${join(app, 'wardrik.config.ts')} failed to load: __dirname is not defined`);
    expect(error).toContain('a .ts config is an ES module, whatever package.json says');
    expect(error).toContain('wardrik.config.cts');
  });

  it('a .js config with import in a CommonJS app says the file is CommonJS there and what to name it', async () => {
    const app = makeApp('commonjs', 'import-in-cjs');
    writeFileSync(join(app, 'wardrik.config.js'), moduleConfig({ typed: false }));
    const { error } = await probe(app, 'wardrik.config.js');
    expect(error).toContain(`config file ${join(app, 'wardrik.config.js')} failed to load`);
    expect(error).toContain('This .js file is CommonJS');
    expect(error).toContain('name it wardrik.config.ts or .mjs');
  });

  it('two config files in one folder are refused, naming both; a file of another kind is refused naming the kinds', async () => {
    const app = makeApp('module', 'two');
    writeFileSync(join(app, 'wardrik.config.ts'), moduleConfig({ typed: true }));
    writeFileSync(join(app, 'wardrik.config.mjs'), moduleConfig({ typed: false }));
    expect((await probe(app)).error).toBe(
      `2 config files in ${app}: wardrik.config.ts, wardrik.config.mjs; keep one, or name one with --config`,
    );
    expect(await probe(app, 'wardrik.config.mjs')).toMatchObject({ agents: ['support'] });
    writeFileSync(join(app, 'wardrik.config.json'), '{}\n');
    expect((await probe(app, 'wardrik.config.json')).error).toBe(
      `config file ${join(app, 'wardrik.config.json')}: expected a .ts, .mts, .cts, .js, .mjs, .cjs file`,
    );
  });
});

describe('wardrik init in any app', () => {
  it('writes a config that the CLI then loads: wardrik.config.ts in an ES-module app, .mts in the others', async () => {
    for (const type of APP_TYPES) {
      const app = makeApp(type, 'init');
      const written = await run([cliPath, 'init', '--json'], app);
      expect(written.code, written.stderr).toBe(0);
      const name = type === 'module' ? 'wardrik.config.ts' : 'wardrik.config.mts';
      expect(JSON.parse(written.stdout)).toMatchObject({ config: join(app, name) });
      expect(readFileSync(join(app, name), 'utf8')).toBe(EXAMPLE_CONFIG);
      const listed = await run([cliPath, 'tokens', 'list'], app);
      expect(listed.code, `${type}: ${listed.stderr}`).toBe(0);
    }
  });

  it('the example config as wardrik.config.ts works in a CommonJS app too (it failed: "Cannot require() ES Module … in a cycle")', async () => {
    const app = makeApp('commonjs', 'example-ts');
    writeFileSync(join(app, 'wardrik.config.ts'), EXAMPLE_CONFIG);
    const listed = await run([cliPath, 'tokens', 'list'], app);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
  });

  it('--force overwrites an existing TypeScript config under its own name, and refuses to leave a JavaScript one beside it', async () => {
    const app = makeApp('commonjs', 'force');
    writeFileSync(join(app, 'wardrik.config.ts'), '// mine\n');
    const refused = await run([cliPath, 'init'], app);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(app, 'wardrik.config.ts')} exists already; pass --force to overwrite it`);
    const forced = await run([cliPath, 'init', '--force', '--json'], app);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ config: join(app, 'wardrik.config.ts') });
    expect(readFileSync(join(app, 'wardrik.config.ts'), 'utf8')).toBe(EXAMPLE_CONFIG);

    rmSync(join(app, 'wardrik.config.ts'));
    writeFileSync(join(app, 'wardrik.config.js'), COMMONJS_CONFIG);
    const javascript = await run([cliPath, 'init', '--force'], app);
    expect(javascript.code).toBe(1);
    expect(javascript.stderr).toContain(
      `wardrik.config.js exists in ${app}; init writes one TypeScript config: remove it first`,
    );
  });
});
