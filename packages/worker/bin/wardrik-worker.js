#!/usr/bin/env node
// The `wardrik-worker` command (the stdio bridge). It runs the built CLI (dist/bridge-cli.js, from
// src/bridge-cli.ts). This file is committed, so that `npm ci` links the command even before the
// first build.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/bridge-cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'wardrik-worker: the bridge is not built yet; run `npm run build` (in the Wardrik repository) first\n',
  );
  process.exit(1);
}
await import(cli.href);
