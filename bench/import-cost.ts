// What importing Wardrik costs an in-process SQLite app: `import('wardrik')` and `import('wardrik/sqlite')`,
// and nothing run, in fresh processes — the time the imports take and the memory (RSS) they add above a
// bare `node` — for this tree against an older commit, measured in alternated pairs (this machine is
// shared and noisy: only figures taken in the same minutes compare), medians, printed as ratios.
// Run: npm run bench -- import-cost [COMMIT]
//   or: node --import tsx bench/import-cost.ts [COMMIT]   (default: ff7bef8, before the package was split)
// Environment: ROUNDS (default 15 pairs). The older tree is checked out with `git worktree` in a
// temporary directory (removed at the end), its node_modules linked to this one's (its own packages to
// itself), and built; this tree is built too, each as `npm run build` does (tsc -b, then the JavaScript
// again without comments where the tree has packages/*/tsconfig.emit.json).
// A side whose `wardrik` has no `./sqlite` entry (the older tree: its root holds the SQLite store) imports `wardrik` alone.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from './stats.ts';

const DEFAULT_BASE = 'ff7bef8';
const here = resolve(import.meta.dirname, '..');
const tsc = join(here, 'node_modules', 'typescript', 'bin', 'tsc');

const IMPORTS = `
const start = performance.now();
await import('wardrik');
try {
  await import('wardrik/sqlite');
} catch (thrown) {
  if (thrown?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw thrown;
}
const ms = performance.now() - start;
process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss }));
`;
const BARE = `process.stdout.write(JSON.stringify({ ms: 0, rss: process.memoryUsage().rss }));`;

interface Sample {
  /** Time the imports took, in the process (ms). */
  readonly ms: number;
  /** The process's resident memory after them (bytes). */
  readonly rss: number;
  /** The process's whole life, spawn to exit, as the parent saw it (ms). */
  readonly wall: number;
}

/** One fresh `node` running `script` as an ES module from `cwd` (where `wardrik` resolves to that tree's). */
function sample(cwd: string, script: string): Sample {
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, encoding: 'utf8' });
  const wall = performance.now() - start;
  if (child.status !== 0) throw new Error(`node in ${cwd} exited ${child.status}: ${child.stderr}`);
  const { ms, rss } = JSON.parse(child.stdout) as { ms: number; rss: number };
  return { ms, rss, wall };
}

/** The older tree at `commit`, checked out beside this one and built; `remove` takes it away. */
function checkOut(commit: string): { readonly dir: string; readonly remove: () => void } {
  const dir = join(mkdtempSync(join(tmpdir(), 'wardrik-import-cost-')), 'old');
  execFileSync('git', ['-C', here, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  const remove = () => {
    try {
      execFileSync('git', ['-C', here, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
    } catch {}
  };
  try {
    mkdirSync(join(dir, 'node_modules', '@wardrik'), { recursive: true });
    for (const name of readdirSync(join(here, 'node_modules'))) {
      if (name === 'wardrik' || name === '@wardrik') continue;
      symlinkSync(join(here, 'node_modules', name), join(dir, 'node_modules', name));
    }
    symlinkSync(join(dir, 'packages', 'wardrik'), join(dir, 'node_modules', 'wardrik'));
    for (const name of ['core', 'worker']) {
      symlinkSync(join(dir, 'packages', name), join(dir, 'node_modules', '@wardrik', name));
    }
    build(dir);
  } catch (thrown) {
    remove();
    throw thrown;
  }
  return { dir, remove };
}

/** Builds a tree as `npm run build` does: `tsc -b`, then the shipped JavaScript again without comments where the tree does that. */
function build(dir: string): void {
  execFileSync(process.execPath, [tsc, '-b', 'packages/core', 'packages/wardrik'], { cwd: dir, stdio: 'inherit' });
  for (const pkg of ['core', 'wardrik']) {
    const emit = join(dir, 'packages', pkg, 'tsconfig.emit.json');
    if (existsSync(emit)) execFileSync(process.execPath, [tsc, '-p', emit], { cwd: dir, stdio: 'inherit' });
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  // Through bench/run.ts the first argument is the filter (import-cost); run alone, the commit comes first.
  const commit = (process.argv[1]?.endsWith('run.ts') ? args[1] : args[0]) ?? DEFAULT_BASE;
  const rounds = Number(process.env.ROUNDS ?? 15);
  const resolved = execFileSync('git', ['-C', here, 'rev-parse', '--short', commit], { encoding: 'utf8' }).trim();
  console.log(
    `\n### Import cost: wardrik + wardrik/sqlite, this tree against ${resolved} (${rounds} alternated rounds)`,
  );
  build(here);
  const old = checkOut(commit);
  try {
    const bare: Sample[] = [];
    const before: Sample[] = [];
    const after: Sample[] = [];
    // A first round warms the file cache; it is not counted.
    sample(old.dir, IMPORTS);
    sample(here, IMPORTS);
    for (let round = 0; round < rounds; round++) {
      bare.push(sample(here, BARE));
      if (round % 2 === 0) {
        before.push(sample(old.dir, IMPORTS));
        after.push(sample(here, IMPORTS));
      } else {
        after.push(sample(here, IMPORTS));
        before.push(sample(old.dir, IMPORTS));
      }
    }
    const bareRss = median(bare.map((each) => each.rss));
    const bareWall = median(bare.map((each) => each.wall));
    const figures = (samples: Sample[]) => ({
      ms: median(samples.map((each) => each.ms)),
      rss: median(samples.map((each) => each.rss)) - bareRss,
      wall: median(samples.map((each) => each.wall)) - bareWall,
    });
    const then = figures(before);
    const now = figures(after);
    console.table([
      {
        tree: resolved,
        'import time': `${then.ms.toFixed(0)} ms`,
        'RSS above bare node': mb(then.rss),
        'process above bare node': `${then.wall.toFixed(0)} ms`,
      },
      {
        tree: 'this tree',
        'import time': `${now.ms.toFixed(0)} ms`,
        'RSS above bare node': mb(now.rss),
        'process above bare node': `${now.wall.toFixed(0)} ms`,
      },
      {
        tree: 'ratio (this / old)',
        'import time': `${(now.ms / then.ms).toFixed(2)}×`,
        'RSS above bare node': `${(now.rss / then.rss).toFixed(2)}×`,
        'process above bare node': `${(now.wall / then.wall).toFixed(2)}×`,
      },
    ]);
    console.log(
      `bare node: ${mb(bareRss)} RSS, ${bareWall.toFixed(0)} ms spawn to exit. Target (issue 30): ≤ 0.40× the time, ≤ 0.40× the memory above bare node.`,
    );
  } finally {
    old.remove();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
