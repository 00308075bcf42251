/*
 * The examples a user reads and runs (examples/README.md lists them). Each must:
 * - type-check under strict, as a user's NodeNext project would, against the built packages (tsx
 *   runs them without checking types, so only this would see them drift from the API);
 * - run as `npm run demo` runs demo.ts — a child process, `node --conditions=@wardrik/source
 *   --import tsx examples/X.ts` from the repository's root — exit 0 (each checks its own outcome)
 *   and print the lines that show it did its job.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, repoRoot } from './cli-process.js';

const examplesDir = join(repoRoot, 'examples');

/** Each runnable example and lines (or patterns) its output must hold. */
const runs: Record<string, readonly (string | RegExp)[]> = {
  'demo.ts': [
    /\]\s+⏸ parked \(approval\): refund is not read-only/,
    /\]\s+→ refund\(\{"order_id":"A1","amount":250\}\)/,
    /\] run completed/,
    /^Final answer: Done: \{"refunded":250/m,
  ],
  'mcp-agent.ts': [
    'model step 1, labels [outside]',
    'find_customer ran on its own; its answer is labelled outside',
    /^send_email held: approval park, rule mcp-not-read-only/m,
    'emails sent before the answer: 0',
    /^emails sent after ana approved: 1 \(\{"to":"ada@example.com"/m,
    'run completed: Done: "sent \\"Your parcel\\" to ada@example.com"',
    'final answer labelled [outside]',
  ],
  'remote-worker.ts': [
    '[worker] connected to Wardrik, offering stock_level and reserve_stock',
    'worker warehouse-worker offers stock_level, reserve_stock',
    /^stock_level ran on the worker on its own: .*inStock.*12/m,
    'reserve_stock held: approval park, rule worker-not-read-only',
    '[worker] reserved 3 × tea-earl-grey for agent stock, principal shop',
    'run completed: Reserved: {"reserved":3,"sku":"tea-earl-grey","left":9}',
    'worker stopped',
  ],
  'agents-together.ts': [
    '  [triage] Hello! Passing you to billing.',
    '  ⇒ transferred from triage to billing',
    '    → refund({"order_id":"A1","amount":40})',
    'transfer completed: Refunded: {"refunded":40,"order_id":"A1"}',
    /↳ child run of drafter: run_/,
    /↳ child run of editor: run_/,
    'session state: {"draft":"Version 2.1 is out!!! It adds tasks, and also it adds tags.","final":"Version 2.1 is out. It adds tasks and tags."}',
    'workflow completed: Version 2.1 is out. It adds tasks and tags.',
  ],
  'chat-memory.ts': [
    'concierge> Done: {"cart":["sencha","a teapot"]}',
    'concierge> (3 earlier messages) Help Ada. Cart: ["sencha","a teapot"]',
    /^added to memory: \{"added":\d+\}/m,
    'concierge> (0 earlier messages) Help Ada. Cart: ',
    /^concierge> From our earlier talk: .*My parcel A1 came two weeks late/m,
    'memory found the first conversation from the second',
  ],
  'embed-http.ts': [
    'not signed in: GET /v1/runs → 401 missing bearer token',
    /^ada \(customer → user\) starts a run: 201, run_\S+ is parked/m,
    'ada answers it herself: 403 role user may not answer parks',
    'ana (manager → operator) approves it: 200',
    'ada reads her run: completed: Refunded: {"refunded":250,"order_id":"A1"}',
    'Wardrik principals: ada@shop.example (user), ana@shop.example (operator)',
    'ada signed out: her cookie gets 401; her old token gets 401 token revoked',
  ],
};

/** Files that are not programs of their own: a config `npm start` serves, servers the examples start. */
const notRun = ['wardrik.config.ts', 'mcp-server.ts', 'worker.ts'];

/** How `npm run demo` runs the demo: TypeScript through tsx, the packages from their sources. */
const nodeFlags = ['--conditions=@wardrik/source', '--import', 'tsx'];

function runExample(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeFlags, join('examples', file)],
      { cwd: repoRoot, env: cleanEnv(), encoding: 'utf8', timeout: 90_000 },
      (thrown, stdout, stderr) => {
        const code = thrown ? (typeof thrown.code === 'number' ? thrown.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('examples/', () => {
  it('every example is type-checked, run here, and listed in examples/README.md', () => {
    const files = readdirSync(examplesDir).filter((name) => name.endsWith('.ts'));
    const checked = (JSON.parse(readFileSync(join(examplesDir, 'tsconfig.json'), 'utf8')) as { files: string[] }).files;
    expect([...checked].sort()).toEqual([...files].sort());
    expect([...Object.keys(runs), ...notRun].sort()).toEqual([...files].sort());
    // They are run as `npm run demo` runs the demo.
    const scripts = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.demo).toContain(`node ${nodeFlags.join(' ')} examples/demo.ts`);
    const readme = readFileSync(join(examplesDir, 'README.md'), 'utf8');
    for (const file of files) expect(readme, `examples/README.md names ${file}`).toContain(`examples/${file}`);
  });

  it('type-check as a strict project against the built packages', () => {
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

  it.each(Object.entries(runs))(
    '%s runs, exits 0 and prints what shows it worked',
    async (file, expected) => {
      const { code, stdout, stderr } = await runExample(file);
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
      for (const line of expected) {
        if (typeof line === 'string') expect(stdout).toContain(line);
        else expect(stdout).toMatch(line);
      }
    },
    120_000,
  );
});
