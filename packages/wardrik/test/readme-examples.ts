import { readdirSync, readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * What the README's examples use but do not define, typed as a user's own code would have them:
 * the services its tools call, a model, a key. Imports here are merged with the examples' own.
 */
const prelude = `
import { createOpenAI } from '@ai-sdk/openai';
import { type Model, defaultPrices, mergePrices, modelFromString, usdFor } from 'wardrik';

declare const orders: { status(orderId: string): Promise<{ status: string; total: number }> };
declare const directory: {
  lookup(email: string, options: { signal: AbortSignal }): Promise<{ name: string; plan: string } | undefined>;
};
declare const payments: {
  refund(orderId: string, amount: number, options: { idempotencyKey: string }): Promise<{ refundId: string }>;
};
declare const refunds: {
  refund(orderId: string, options: { idempotencyKey: string; signal: AbortSignal }): Promise<void>;
};
declare const apiKey: string;
const model: Model = modelFromString('openai:gpt-4.1-mini');
const languageModel = createOpenAI({ apiKey }).chat('gpt-4o');
`;

/** The root of this repository. */
const repositoryRoot = new URL('../../../', import.meta.url);

/** The README's text, from the root of this repository. */
export function readmeText(): string {
  return readFileSync(new URL('README.md', repositoryRoot), 'utf8');
}

/**
 * The docs site's pages whose examples are compiled, in the order their examples are put in the
 * program (later pages use what earlier ones define, as the README's sections did): these first,
 * then any other page under docs/ (not the generated API reference), by path, then getting
 * started, whose example stands alone (it defines again what the pages before define).
 */
const PAGE_ORDER = [
  'docs/guide/tools.md',
  'docs/concepts/journal.md',
  'docs/concepts/parks.md',
  'docs/concepts/budgets.md',
  'docs/guide/conversations.md',
  'docs/guide/mcp.md',
  'docs/guide/agents-together.md',
  'docs/guide/agents.md',
  'docs/concepts/labels-and-gates.md',
  'docs/guide/many-nodes.md',
  'docs/guide/models.md',
  'docs/guide/cli.md',
  'docs/guide/workers.md',
  'docs/guide/telemetry.md',
  'docs/guide/operations.md',
];

/**
 * Pages whose examples are not compiled here: the deployment guide's config imports files beside
 * it (`./agents.js`); deploy-guide.test.ts runs that guide, its config included.
 */
const NOT_COMPILED = new Set(['docs/deploy.md']);

/** The docs site's Markdown pages (paths from the repository's root), in PAGE_ORDER, then by path. */
export function docsPages(): string[] {
  const docs = fileURLToPath(new URL('docs/', repositoryRoot));
  const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md') && !/^(api|\.vitepress|node_modules)(\/|$)/.test(path))
    .map((path) => `docs/${path.split(sep).join('/')}`)
    .filter((path) => !NOT_COMPILED.has(path))
    .sort();
  const rank = (path: string) =>
    PAGE_ORDER.includes(path)
      ? PAGE_ORDER.indexOf(path)
      : path === 'docs/guide/getting-started.md'
        ? PAGE_ORDER.length + 1
        : PAGE_ORDER.length;
  return pages.sort((a, b) => rank(a) - rank(b));
}

/** A page's text, by its path from the repository's root. */
export function pageText(path: string): string {
  return readFileSync(new URL(path, repositoryRoot), 'utf8');
}

/**
 * A Markdown text's ```ts blocks that are compiled, in order, each with the line its code starts
 * on: a plain ```ts block, or one labelled `[Wardrik]` in a code group. A block labelled otherwise
 * (```ts [OpenAI Agents JS] on a migration page) shows another framework's code and is left out.
 */
export function exampleBlocks(text: string): { line: number; code: string; label?: string }[] {
  const blocks: { line: number; code: string; label?: string }[] = [];
  const fence = /^```ts(?: \[([^\]\n]+)\])?\n([\s\S]*?)^```$/gm;
  for (const match of text.matchAll(fence)) {
    const line = text.slice(0, match.index).split('\n').length + 1;
    const label = match[1];
    if (label === undefined || label === 'Wardrik')
      blocks.push({ line, code: match[2] ?? '', ...(label ? { label } : {}) });
  }
  return blocks;
}

/** The README's ```ts blocks, in order, each with the line its code starts on. */
export function readmeBlocks(readme: string = readmeText()): { line: number; code: string }[] {
  return exampleBlocks(readme);
}

/**
 * The README's and the docs pages' TypeScript examples as one ES module, to compile as a user's
 * program would be: the examples' imports merged at the top, then the prelude (what the examples
 * use but do not define), then each example in order — each page's (see `docsPages`), then the
 * README's — so that later ones use what earlier ones define (the agent, its tools). An example
 * that defines a name again (its own `model`) is put in a block of its own; a config file's
 * `export default …` becomes a constant of its own (a module has one default export). Each example
 * follows a `// README.md line N` or `// docs/PAGE.md line N` marker. Imports name the packages as
 * a user's would: 'wardrik', '@wardrik/core', 'wardrik/testing', '@wardrik/worker', 'ai',
 * '@ai-sdk/openai', '@modelcontextprotocol/sdk/…', 'zod'.
 *
 * @example
 * ```ts
 * writeFileSync('app/readme.ts', readmeProgram())   // then compile it with tsc --strict
 * ```
 */
export function readmeProgram(
  readme: string = readmeText(),
  pages: { path: string; text: string }[] = docsPages().map((path) => ({ path, text: pageText(path) })),
): string {
  const imports = new ImportList();
  const declared = new Set<string>();
  const body: string[] = [];
  const parts = [
    { label: 'prelude', code: prelude },
    ...pages.flatMap(({ path, text }) =>
      exampleBlocks(text).map(({ line, code }) => ({ label: `${path} line ${line}`, code })),
    ),
    ...readmeBlocks(readme).map(({ line, code }) => ({ label: `README.md line ${line}`, code })),
  ];
  let defaults = 0;
  for (const { label, code } of parts) {
    const source = ts.createSourceFile('example.ts', code, ts.ScriptTarget.Latest, true);
    const statements: string[] = [];
    const names: string[] = [];
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement)) imports.add(statement);
      else if (ts.isExportAssignment(statement) && !statement.isExportEquals) {
        defaults += 1;
        const name = `defaultExport${defaults}`;
        statements.push(`\nconst ${name} = ${statement.expression.getText(source)};\nvoid ${name};`);
      } else {
        statements.push(statement.getFullText(source));
        names.push(...declaredNames(statement));
      }
    }
    const again = names.some((name) => declared.has(name));
    for (const name of names) declared.add(name);
    const text = (statements.join('') + source.endOfFileToken.getFullText(source)).trim();
    body.push(`// ${label}\n${again ? `{\n${text}\n}` : text}`);
  }
  return `${imports.text()}\n\n${body.join('\n\n')}\n`;
}

/** The names a top-level statement declares. */
function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((declaration) => bindingNames(declaration.name));
  }
  if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
    return [statement.name.text];
  }
  return [];
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** Import declarations merged by module: each imported name once (as a value if any example uses it so). */
class ImportList {
  /** Module → local name → its import specifier (`a`, `type A`, `a as b`). */
  readonly #named = new Map<string, Map<string, string>>();
  readonly #other = new Set<string>();

  add(statement: ts.ImportDeclaration): void {
    const module = (statement.moduleSpecifier as ts.StringLiteral).text;
    const clause = statement.importClause;
    const bindings = clause?.namedBindings;
    if (!clause || clause.name || clause.isTypeOnly || !bindings || !ts.isNamedImports(bindings)) {
      this.#other.add(statement.getText());
      return;
    }
    const names = this.#named.get(module) ?? new Map<string, string>();
    for (const element of bindings.elements) {
      if (!element.isTypeOnly || !names.has(element.name.text)) names.set(element.name.text, element.getText());
    }
    this.#named.set(module, names);
  }

  text(): string {
    const named = [...this.#named].map(
      ([module, names]) => `import { ${[...names.values()].join(', ')} } from '${module}';`,
    );
    return [...named, ...this.#other].join('\n');
  }
}
