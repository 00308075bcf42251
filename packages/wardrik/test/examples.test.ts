/*
 * The examples a user reads and runs (`npm start` serves examples/wardrik.config.ts, `npm run demo`
 * runs examples/demo.ts) type-check under strict, with no casts of their tools' arguments. tsx runs
 * them without checking types, so only this test would see them drift from the API.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from './cli-process.js';

it('examples/*.ts type-check as a strict project against the built packages', () => {
  let output = '';
  try {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'examples'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (thrown) {
    output = String((thrown as { stdout?: string }).stdout ?? thrown);
  }
  expect(output).toBe('');
}, 120_000);
