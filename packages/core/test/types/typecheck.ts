import ts from 'typescript';

/**
 * Compiles `files` as a strict project (`noUncheckedIndexedAccess` too) and returns its errors,
 * formatted with their file, line and message; an unused `@ts-expect-error` is one. `sources` adds
 * files that exist only in memory (path → text). The workspace's packages resolve to their
 * sources (the `@wardrik/source` condition), as in the tests.
 */
export function typeErrors(files: readonly string[], sources: Readonly<Record<string, string>> = {}): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@wardrik/source'],
    types: ['node'],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (path) => path in sources || fileExists(path);
  host.readFile = (path) => sources[path] ?? readFile(path);
  host.getSourceFile = (path, language, ...rest) => {
    const text = sources[path];
    return text === undefined ? getSourceFile(path, language, ...rest) : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram([...files, ...Object.keys(sources)], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.formatDiagnostic(diagnostic, host).trim());
}
