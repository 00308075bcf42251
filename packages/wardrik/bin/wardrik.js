#!/usr/bin/env node
// The `wardrik` command. It runs the built CLI (dist/cli/main.js, from src/cli/main.ts). This file
// is committed, so that `npm ci` links the command even before the first build.
import { existsSync } from 'node:fs';

// package.json's engines: CommonJS apps and configs require() Wardrik's ES modules, which Node
// does from 20.19 and 22.12 on. npm only warns about engines; say it plainly here.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19) || major === 21 || (major === 22 && minor < 12)) {
  process.stderr.write(`wardrik: needs Node.js 20.19+ or 22.12+; this is ${process.version}\n`);
  process.exit(1);
}

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('wardrik: the CLI is not built yet; run `npm run build` (in the Wardrik repository) first\n');
  process.exit(1);
}
await import(main.href);
