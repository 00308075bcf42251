#!/usr/bin/env node
// No file over 400 lines in the runtime's runtime/, tool-sources/ and store/ folders (issue 30,
// "Done when"): the half of `npm run check:imports` that dependency-cruiser cannot do (it does not
// count lines); scripts/check-function-sizes.mjs does the same for functions.
//   node scripts/check-file-sizes.mjs
// Exits 1 naming each file over the limit.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const MAX_LINES = 400;
const root = resolve(import.meta.dirname, '..');
const FOLDERS = ['packages/wardrik/src/runtime', 'packages/wardrik/src/tool-sources', 'packages/wardrik/src/store'];

/** Every .ts file under `folder`, as paths from the repository's root. */
function sources(folder) {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** Lines of a file as an editor counts them (a last line without its newline counts too). */
function lines(path) {
  const text = readFileSync(join(root, path), 'utf8');
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const over = FOLDERS.flatMap(sources)
  .map((path) => ({ path, count: lines(path) }))
  .filter(({ count }) => count > MAX_LINES)
  .map(({ path, count }) => `${path}: ${count} lines`);
if (over.length > 0) {
  console.error(
    `Over ${MAX_LINES} lines in ${FOLDERS.join(', ')} (split the file; see DESIGN.md §2):\n  ${over.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(`File sizes: no file over ${MAX_LINES} lines in ${FOLDERS.join(', ')}.`);
