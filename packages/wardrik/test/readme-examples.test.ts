import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readmeBlocks, readmeProgram } from './readme-examples.js';

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

describe("the README's TypeScript examples", () => {
  it('are all in the program, each after its "// README.md line N" marker', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const program = readmeProgram();
    for (const { line } of blocks) expect(program).toContain(`// README.md line ${line}\n`);
  });

  it('compile as a strict user program (noUncheckedIndexedAccess, skipLibCheck: false), with no casts of their arguments', () => {
    const errors = compileErrors(readmeProgram());
    expect(errors, `the README's examples do not compile:\n${errors.join('\n')}\n`).toEqual([]);
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
