#!/usr/bin/env node
// The `wardrik` command. It runs the built CLI (dist/cli/main.js, from src/cli/main.ts). This file
// is committed, so that `npm ci` links the command even before the first build.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('wardrik: the CLI is not built yet; run `npm run build` (in the Wardrik repository) first\n');
  process.exit(1);
}
await import(main.href);
