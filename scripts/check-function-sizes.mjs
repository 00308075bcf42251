#!/usr/bin/env node
// No function over 60 lines in the runtime's runtime/ and tool-sources/ folders (issue 30, item 1: "no function over
// ~60"): the other half of the size check beside check-file-sizes.mjs, read with the TypeScript
// compiler's own parser.
//   node scripts/check-function-sizes.mjs
// Exits 1 naming each function, method, accessor or constructor over the limit (a function nested
// in another counts on its own, and inside its parent's lines too).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MAX_LINES = 60;
const root = resolve(import.meta.dirname, '..');
const FOLDERS = ['packages/wardrik/src/runtime', 'packages/wardrik/src/tool-sources'];

/** Every .ts file under `folder`, as paths from the repository's root. */
function sources(folder) {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** A name for a function-like node: its own, its variable's or property's, or where it starts. */
function nameOf(node, source) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name && ts.isPrivateIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    return parent.name.getText(source);
  }
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  return `(function at line ${line + 1})`;
}

const over = [];
for (const path of FOLDERS.flatMap(sources)) {
  const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_LINES) over.push(`${path}:${start + 1}: ${nameOf(node, source)} is ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (over.length > 0) {
  console.error(
    `Functions over ${MAX_LINES} lines in ${FOLDERS.join(', ')} (split them into named steps):\n  ${over.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(`Function sizes: none over ${MAX_LINES} lines in ${FOLDERS.join(', ')}.`);
