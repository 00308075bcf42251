import { readFileSync } from 'node:fs';
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

/** The README's text, from the root of this repository. */
export function readmeText(): string {
  return readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
}

/** The README's ```ts blocks, in order, each with the line its code starts on. */
export function readmeBlocks(readme: string = readmeText()): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const fence = /^```ts\n([\s\S]*?)^```$/gm;
  for (const match of readme.matchAll(fence)) {
    const line = readme.slice(0, match.index).split('\n').length + 1;
    blocks.push({ line, code: match[1] ?? '' });
  }
  return blocks;
}

/**
 * The README's TypeScript examples as one ES module, to compile as a user's program would be:
 * the examples' imports merged at the top, then the prelude (what the examples use but do not
 * define), then each example in order, so that later ones use what earlier ones define (the
 * agent, its tools). An example that defines a name again (its own `model`) is put in a block of
 * its own. Imports name the packages as a user's would: 'wardrik', '@wardrik/core',
 * 'wardrik/testing', '@wardrik/worker', 'ai', '@ai-sdk/openai', '@modelcontextprotocol/sdk/…', 'zod'.
 *
 * @example
 * ```ts
 * writeFileSync('app/readme.ts', readmeProgram())   // then compile it with tsc --strict
 * ```
 */
export function readmeProgram(readme: string = readmeText()): string {
  const imports = new ImportList();
  const declared = new Set<string>();
  const body: string[] = [];
  const parts = [
    { label: 'prelude', code: prelude },
    ...readmeBlocks(readme).map(({ line, code }) => ({ label: `README.md line ${line}`, code })),
  ];
  for (const { label, code } of parts) {
    const source = ts.createSourceFile('example.ts', code, ts.ScriptTarget.Latest, true);
    const statements: string[] = [];
    const names: string[] = [];
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement)) imports.add(statement);
      else {
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
