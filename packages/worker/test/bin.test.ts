/*
 * The `wardrik-worker` command as npm links it: a committed, executable wrapper in bin/ that runs
 * the built CLI, so that `npm ci` in a fresh clone can link it before anything is built.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_USAGE } from '../src/bridge-arguments.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const LINKED = join(ROOT, 'node_modules', '.bin', 'wardrik-worker');

/** Runs a command, resolving with its exit code and output whether it succeeds or not. */
async function outcome(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: ROOT, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('the wardrik-worker bin', () => {
  beforeAll(async () => {
    // The bin runs the built CLI: build this package (as `npm run build` does) first.
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', PACKAGE], {
      cwd: ROOT,
      timeout: 120_000,
    });
  }, 150_000);

  it('is a committed, executable file that package.json names', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(manifest.bin['wardrik-worker']).toBe('./bin/wardrik-worker.js');
    expect(() => accessSync(join(PACKAGE, 'bin', 'wardrik-worker.js'), constants.X_OK)).not.toThrow();
  });

  it('runs through node_modules/.bin after a build', async () => {
    const result = await outcome(LINKED, ['--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${BRIDGE_USAGE}\n`);
  });

  it('says what to do when the CLI is not built', async () => {
    // The same wrapper in a package folder without dist/.
    const folder = mkdtempSync(join(tmpdir(), 'wardrik-worker-bin-'));
    mkdirSync(join(folder, 'bin'));
    copyFileSync(join(PACKAGE, 'bin', 'wardrik-worker.js'), join(folder, 'bin', 'wardrik-worker.js'));
    const result = await outcome(process.execPath, [join(folder, 'bin', 'wardrik-worker.js'), '--help']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not built yet; run `npm run build`/);
  });
});
