/**
 * The package surface (issue 30, item 3): what `wardrik` and its subpaths export, that each export
 * is documented, and that importing `wardrik` loads none of the heavy packages an app may not use.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from 'wardrik';
import { loadLater, loadNow, MissingPackageError } from '../src/lazy-package.js';

const packageDir = resolve(import.meta.dirname, '..');
const repoDir = resolve(packageDir, '..', '..');

/**
 * Exports of the root that are internal, kept only because earlier releases exported them: each is
 * marked `@deprecated` in its TSDoc and leaves the public API in a later release (issue 30).
 */
const INTERNAL_EXPORTS: Record<string, string> = {
  MCP_TOOLSET_TOOL: "the private key marking an MCP toolset's tools; the runtime reads it, apps have no use for it",
  WORKER_PREFIX: "the `workers__` prefix of worker tools' model names, a detail of the workers hub",
  WORKER_TOOL: "the private key marking a worker's tools; the runtime reads it, apps have no use for it",
  matchesWorkerPattern: "the hub's matching of an agent's `workers/…` patterns, used inside the runtime only",
};

/** The heavy packages an app pays for only when it uses what needs them. */
const LAZY_PACKAGES = [
  'pg',
  'hono',
  '@hono/node-server',
  'pino',
  'prom-client',
  '@modelcontextprotocol/sdk',
  'ai',
  '@opentelemetry/api',
  'ajv',
  'zod',
];
const isLazy = (name: string) => LAZY_PACKAGES.includes(name) || name.startsWith('@ai-sdk/');

interface ExportInfo {
  readonly name: string;
  /** Its TSDoc, as the generated API reference shows it. */
  readonly doc: string;
  readonly deprecated: boolean;
}

/** Every export of a module, values and types, with its TSDoc, as TypeScript sees them. */
function exportsOf(file: string): ExportInfo[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    customConditions: ['@wardrik/source'],
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`no module at ${file}`);
  return checker.getExportsOfModule(moduleSymbol).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return {
      name: symbol.name,
      doc: ts.displayPartsToString(target.getDocumentationComment(checker)).trim(),
      deprecated: target.getJsDocTags(checker).some((tag) => tag.name === 'deprecated'),
    };
  });
}

/** The hand-written docs (docs/**\/*.md, not the generated API reference under docs/api). */
function guideText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'api' && !entry.name.startsWith('.')) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) texts.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(repoDir, 'docs'));
  return texts.join('\n');
}

const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  typesVersions: { '*': Record<string, string[]> };
};
/** The parts, imported as an app would. */
const PARTS = {
  sqlite: () => import('wardrik/sqlite'),
  postgres: () => import('wardrik/postgres'),
  server: () => import('wardrik/server'),
  telemetry: () => import('wardrik/telemetry'),
  mcp: () => import('wardrik/mcp'),
};
const SUBPATHS = Object.keys(PARTS) as (keyof typeof PARTS)[];

describe('the package surface', () => {
  const rootExports = exportsOf(join(packageDir, 'src', 'index.ts'));

  it('documents every export of the root: TSDoc (the API reference) or the guides, internals listed and deprecated', () => {
    expect(rootExports.length).toBeGreaterThan(200);
    const guides = guideText();
    const named = (name: string) => new RegExp(`\\b${name.replace(/[$]/g, '\\$')}\\b`).test(guides);
    const undocumented = rootExports.filter((each) => each.doc === '' && !named(each.name)).map((each) => each.name);
    expect(undocumented).toEqual([]);
    // The internals: exactly the deprecated exports, each with its reason.
    const deprecated = rootExports.filter((each) => each.deprecated).map((each) => each.name);
    expect(deprecated.sort()).toEqual(Object.keys(INTERNAL_EXPORTS).sort());
    for (const reason of Object.values(INTERNAL_EXPORTS)) expect(reason.length).toBeGreaterThan(10);
  });

  it('has a subpath for each part, in exports (the same three conditions) and typesVersions', () => {
    for (const subpath of [...SUBPATHS, 'testing']) {
      const source = subpath === 'testing' ? './src/testing/index.ts' : `./src/${subpath}.ts`;
      const built = subpath === 'testing' ? './dist/testing/index' : `./dist/${subpath}`;
      expect(manifest.exports[`./${subpath}`]).toEqual({
        '@wardrik/source': source,
        types: `${built}.d.ts`,
        default: `${built}.js`,
      });
      expect(manifest.typesVersions['*'][subpath]).toEqual([`${built}.d.ts`]);
    }
  });

  it.each(SUBPATHS)('wardrik/%s exports part of the root: the same values, nothing the root lacks', async (subpath) => {
    const part = (await PARTS[subpath]()) as Record<string, unknown>;
    const names = Object.keys(part);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(part[name], name).toBe((root as Record<string, unknown>)[name]);
    // Types too: every name the entry exports, the root exports.
    const rootNames = new Set(rootExports.map((each) => each.name));
    const missing = exportsOf(join(packageDir, 'src', `${subpath}.ts`))
      .map((each) => each.name)
      .filter((name) => !rootNames.has(name));
    expect(missing).toEqual([]);
  });

  it.skipIf(typeof nodeModule.registerHooks !== 'function')(
    'importing wardrik loads none of the heavy packages; each loads when first used',
    () => {
      // A fresh process records every module it resolves (node:module registerHooks).
      const script = `
import { registerHooks } from 'node:module';
const urls = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    urls.add(result.url);
    return result;
  },
});
const packages = () => [...new Set([...urls].map((url) => /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url)?.[1]).filter(Boolean))].sort();
const seen = {};
const wardrik = await import('wardrik');
seen.root = packages();
await import('wardrik/sqlite');
seen.sqlite = packages();
wardrik.createLogger({ destination: { write() {} } });
seen.logger = packages();
wardrik.modelFromString('openai:gpt-4.1-mini', { OPENAI_API_KEY: 'sk-test' });
seen.model = packages();
const store = wardrik.postgresStore('postgres://nobody@127.0.0.1:1/none');
seen.postgres = packages();
await store.close();
void wardrik.loadMemory.schema;
seen.tools = packages();
process.stdout.write(JSON.stringify(seen));
`;
      const child = spawnSync(
        process.execPath,
        ['--conditions=@wardrik/source', '--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: repoDir, encoding: 'utf8' },
      );
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      const seen = JSON.parse(child.stdout) as Record<
        'root' | 'sqlite' | 'logger' | 'model' | 'postgres' | 'tools',
        string[]
      >;
      // The recorder sees packages: the SQLite entry's driver is among them.
      expect(seen.sqlite).toContain('better-sqlite3');
      expect(seen.sqlite.filter(isLazy)).toEqual([]);
      expect(seen.root.filter(isLazy)).toEqual([]);
      // Each heavy package loads when what needs it is first used, and nothing else with it.
      expect(seen.logger.filter(isLazy)).toEqual(['pino']);
      const model = seen.model.filter((name) => isLazy(name) && name !== 'pino');
      expect(model).toContain('ai');
      expect(model).toContain('@ai-sdk/openai');
      expect(model).not.toContain('@ai-sdk/anthropic');
      expect(model).not.toContain('pg');
      expect(seen.postgres).toContain('pg');
      expect(seen.postgres).not.toContain('hono');
      expect(seen.postgres).not.toContain('@modelcontextprotocol/sdk');
      // The built-in tools are built (their schemas compiled by Ajv) when first used.
      expect(seen.postgres).not.toContain('ajv');
      expect(seen.tools).toContain('ajv');
    },
  );

  it('names the package to install when a lazily loaded one is missing', async () => {
    expect(() => loadNow('wardrik-no-such-package', 'the feature X')).toThrow(MissingPackageError);
    expect(() => loadNow('@wardrik-none/no-such-package/sub.js', 'the feature X')).toThrow(
      'wardrik: the feature X needs the package "@wardrik-none/no-such-package", which is not installed: npm install @wardrik-none/no-such-package',
    );
    await expect(loadLater('wardrik-no-such-package', 'the feature Y')).rejects.toThrow(
      'wardrik: the feature Y needs the package "wardrik-no-such-package", which is not installed: npm install wardrik-no-such-package',
    );
    // A package that is there loads, once: the same module each time.
    expect(loadNow('pg', 'a PostgreSQL store')).toBe(loadNow('pg', 'a PostgreSQL store'));
  });
});
