import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { docsPages, exampleBlocks, pageText, readmeBlocks, readmeProgram } from './readme-examples.js';

/** Where the program is compiled as if it were: inside this package, so the workspace's packages resolve. */
const programPath = fileURLToPath(new URL('./readme-examples.program.ts', import.meta.url));

/**
 * Compiles `program` as a user's strict project would (`skipLibCheck: false` included), against
 * this workspace's packages as a user's compiler sees them: their built declarations (`dist`,
 * which `npm test` builds first). Returns the errors, each with its line and the line's text.
 */
function compileErrors(program: string, { onlyTheProgram = false } = {}): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (path) => path === programPath || fileExists(path);
  host.readFile = (path) => (path === programPath ? program : readFile(path));
  host.getSourceFile = (path, language, ...rest) =>
    path === programPath ? ts.createSourceFile(path, program, language) : getSourceFile(path, language, ...rest);
  const compiled = ts.createProgram([programPath], options, host);
  const diagnostics = onlyTheProgram
    ? [...compiled.getSyntacticDiagnostics(), ...compiled.getSemanticDiagnostics(compiled.getSourceFile(programPath))]
    : ts.getPreEmitDiagnostics(compiled);
  const lines = program.split('\n');
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    if (!diagnostic.file || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const where = diagnostic.file.fileName === programPath ? `program line ${line + 1}` : diagnostic.file.fileName;
    const text = diagnostic.file.fileName === programPath ? `\n  > ${lines[line]?.trim()}` : '';
    return `${where}: TS${diagnostic.code}: ${message}${text}`;
  });
}

describe("the README's and the docs pages' TypeScript examples", () => {
  it('are all in the program, each after its "// README.md line N" or "// docs/PAGE.md line N" marker', () => {
    const program = readmeProgram();
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    for (const { line } of blocks) expect(program).toContain(`// README.md line ${line}\n`);
    const pages = docsPages();
    expect(pages).toEqual(expect.arrayContaining(['docs/guide/tools.md', 'docs/migrating/openai-agents.md']));
    let count = 0;
    for (const page of pages) {
      for (const { line } of exampleBlocks(pageText(page))) {
        expect(program).toContain(`// ${page} line ${line}\n`);
        count += 1;
      }
    }
    expect(count).toBeGreaterThanOrEqual(30);
  });

  it("hold the Wardrik side of each migration page, and not the other framework's", () => {
    const program = readmeProgram();
    for (const [page, theirs] of [
      ['docs/migrating/openai-agents.md', 'OpenAI Agents JS'],
      ['docs/migrating/adk.md', 'ADK for TypeScript'],
    ] as const) {
      const text = pageText(page);
      const ours = exampleBlocks(text);
      expect(ours.length, page).toBeGreaterThanOrEqual(3);
      expect(
        ours.every(({ label }) => label === 'Wardrik'),
        page,
      ).toBe(true);
      const other = [...text.matchAll(new RegExp(`^\`\`\`ts \\[${theirs}\\]\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))];
      expect(other.length, page).toBe(ours.length);
      for (const [, code = ''] of other) expect(program).not.toContain(code.trim());
    }
    // Their blocks import their packages: had one been compiled, its import would be in the program.
    expect(program).not.toMatch(/from '(@openai\/agents|@google\/adk)'/);
  });

  it('compile as a strict user program (noUncheckedIndexedAccess, skipLibCheck: false), with no casts of their arguments', () => {
    const errors = compileErrors(readmeProgram());
    expect(errors, `the README's or the docs' examples do not compile:\n${errors.join('\n')}\n`).toEqual([]);
  }, 120_000);

  it('fail to compile when an example is wrong (the check can fail)', () => {
    const right = readmeProgram();
    const wrong = right.replace(
      'payments.refund(order_id, amount, { idempotencyKey: context.idempotencyKey })',
      'payments.refund(amount, order_id, { idempotencyKey: context.idempotencyKey })',
    );
    expect(wrong).not.toBe(right);
    expect(compileErrors(wrong, { onlyTheProgram: true })).toEqual([
      expect.stringMatching(/TS2345: Argument of type 'number' is not assignable to parameter of type 'string'/),
    ]);
  }, 120_000);
});
