/*
 * The `wardrik` CLI driven as a user would: spawned processes of the built bin
 * (packages/wardrik/dist/cli/main.js), a config written by `wardrik init` in a directory inside
 * the repo (so it resolves 'wardrik' and '@wardrik/core' from its node_modules), a real server
 * started with `wardrik serve --port 0` on its default SQLite file, and every command against it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../src/cli/example-config.js';
import type { ParkRow, RunRow } from '../src/store/store.js';
import { buildCli, cleanEnv, cli, cliPath, closedPort, repoRoot, tmpRoot } from './cli-process.js';

let directory: string;
let server: ChildProcess | undefined;
let serverOutput = '';
let url = '';

beforeAll(async () => {
  // The CLI under test is the built bin; `npm test` builds first, this makes sure it is current.
  await buildCli();
  mkdirSync(tmpRoot, { recursive: true });
  directory = mkdtempSync(join(tmpRoot, 'cli-'));
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGKILL');
    await new Promise((resolve) => server?.once('exit', resolve));
  }
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe('wardrik CLI', () => {
  it('init writes the example config, gitignores .wardrik/ and refuses to overwrite without --force', async () => {
    const first = await cli(['init'], { cwd: directory });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('wardrik.config.ts');
    expect(first.stdout).toContain('.wardrik/');
    expect(readFileSync(join(directory, 'wardrik.config.ts'), 'utf8')).toBe(EXAMPLE_CONFIG);
    expect(readFileSync(join(directory, '.gitignore'), 'utf8')).toBe('.wardrik/\n');

    const again = await cli(['init'], { cwd: directory });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('exists already; pass --force');
    const forced = await cli(['init', '--force', '--json'], { cwd: directory });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ gitignore: { changed: false } });
  });

  it('examples/wardrik.config.ts is what init writes (they cannot drift apart)', () => {
    expect(readFileSync(join(repoRoot, 'examples/wardrik.config.ts'), 'utf8')).toBe(EXAMPLE_CONFIG);
  });

  it('serve --port 0 listens on a free port, names the demo model and saves the admin token (0600)', async () => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0'], {
      cwd: directory,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = child;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      serverOutput += chunk;
    });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" line:\n${serverOutput}`)), 30_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        serverOutput += chunk;
        const match = /Wardrik listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(serverOutput);
        // Wait for the whole banner: it ends with the line to try.
        if (match?.[1] && serverOutput.includes('Please refund order A1')) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${serverOutput}`)));
    });
    expect(url).not.toMatch(/:0$/);
    expect(serverOutput).toContain('support — model scripted-demo: the scripted offline demo model');
    const tokenFile = join(directory, '.wardrik', 'admin-token');
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^wdk_/);
    expect(serverOutput).toContain(token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  });

  it('a command run in the served folder finds the server where it listens (no --url: the saved .wardrik/server-url)', async () => {
    expect(readFileSync(join(directory, '.wardrik', 'server-url'), 'utf8').trim()).toBe(url);
    const agents = await cli(['agents', '--json'], { cwd: directory, env: cleanEnv() });
    expect(agents.stderr).toBe('');
    expect(agents.code).toBe(0);
    expect(JSON.parse(agents.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'support' })]));
  });

  let parkId = '';
  let runId = '';

  it('run prints each step live and exits 3 when the run parks', async () => {
    const result = await cli(['run', 'support', 'Please refund order Z9'], {
      cwd: directory,
      env: { WARDRIK_URL: url },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
    const out = result.stdout;
    const order = [
      'model: Let me look the order up.',
      // Piped, not a terminal: plain ASCII markers, no colour.
      '-> order_status({"order_id":"Z9"})',
      '<- order_status: {"order_id":"Z9","status":"delivered","total":250}',
      '-> refund({"order_id":"Z9","amount":250})',
      '|| tool: refund of 250 for order Z9 needs a manager',
      'answer with: wardrik answer park_',
      'is parked: it waits for a person (1 open park)',
      'Cost so far: 0.004 usd, 30 tokens (20 in, 10 out)',
    ].map((line) => out.indexOf(line));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    runId = /Run (run_\S+) of support/.exec(out)?.[1] ?? '';
    expect(runId).not.toBe('');
  });

  it('parks --json lists the open park; the table shows it for people', async () => {
    const result = await cli(['parks', '--json'], { cwd: directory, env: { WARDRIK_URL: url } });
    expect(result.code).toBe(0);
    const parks = JSON.parse(result.stdout) as ParkRow[];
    expect(parks).toHaveLength(1);
    expect(parks[0]).toMatchObject({ runId, kind: 'tool', status: 'open', call: { name: 'refund' } });
    parkId = parks[0]?.id ?? '';

    const table = await cli(['parks'], { cwd: directory, env: { WARDRIK_URL: url } });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+RUN\s+KIND/);
    expect(table.stdout).toContain(parkId);
  });

  it('answer PARK approve shows the call, resumes the run and follows it to its final answer', async () => {
    const result = await cli(['answer', parkId, 'approve'], { cwd: directory, env: { WARDRIK_URL: url } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('holds refund({"order_id":"Z9","amount":250})');
    expect(result.stdout).toContain('<- refund: {"refunded":250');
    expect(result.stdout).toContain('Final answer: Refunded: {"refunded":250');
    expect(result.stdout).toContain('Cost: 0.006 usd, 45 tokens (30 in, 15 out)');

    const runs = await cli(['runs', '--json'], { cwd: directory, env: { WARDRIK_URL: url } });
    expect(runs.code).toBe(0);
    const rows = JSON.parse(runs.stdout) as RunRow[];
    expect(rows.find((row) => row.id === runId)).toMatchObject({ status: 'completed' });

    const twice = await cli(['answer', parkId, 'deny'], { cwd: directory, env: { WARDRIK_URL: url } });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('is answered already');
  });

  it('run --json prints one JSON document and nothing else; deny makes the model hear the reason', async () => {
    const started = await cli(['run', 'support', 'Refund order Q1 please', '--json'], {
      cwd: directory,
      env: { WARDRIK_URL: url },
    });
    expect(started.code).toBe(3);
    const outcome = JSON.parse(started.stdout) as { status: string; parks: ParkRow[] };
    expect(outcome.status).toBe('parked');
    const park = outcome.parks[0] as ParkRow;
    const denied = await cli(['answer', park.id, 'deny', '--reason', 'over the limit', '--json'], {
      cwd: directory,
      env: { WARDRIK_URL: url },
    });
    expect(denied.code).toBe(0);
    const answered = JSON.parse(denied.stdout) as { run: { status: string; output: string } };
    expect(answered.run.status).toBe('completed');
    expect(answered.run.output).toContain('over the limit');
  });

  it('tokens create --role user makes a token (locally, on the store) that works against the server', async () => {
    const created = await cli(['tokens', 'create', '--role', 'user', '--name', 'bob'], { cwd: directory });
    expect(created.code).toBe(0);
    const token = /(wdk_[A-Za-z0-9_-]{43})/.exec(created.stdout)?.[1] ?? '';
    expect(token).not.toBe('');
    const env = { WARDRIK_URL: url, WARDRIK_TOKEN: token };

    const own = await cli(['runs', '--json'], { cwd: directory, env });
    expect(own.code).toBe(0);
    expect(JSON.parse(own.stdout)).toEqual([]); // a user sees only its own runs

    const run = await cli(['run', 'support', 'Refund order B2', '--json'], { cwd: directory, env });
    expect(run.code).toBe(3);
    const park = (JSON.parse(run.stdout) as { parks: ParkRow[] }).parks[0] as ParkRow;
    const refused = await cli(['answer', park.id, 'approve'], { cwd: directory, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('role user may not answer parks');

    const list = await cli(['tokens', 'list', '--json'], { cwd: directory });
    const listed = JSON.parse(list.stdout) as Array<{ id: string; principal: { name: string } }>;
    const bobs = listed.find((each) => each.principal.name === 'bob');
    expect(bobs).toBeDefined();
    const revoked = await cli(['tokens', 'revoke', bobs?.id ?? ''], { cwd: directory });
    expect(revoked.code).toBe(0);
    const after = await cli(['runs'], { cwd: directory, env });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('token revoked');
    expect(after.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('tokens create --expires-in gives a token that stops working on its own, listed with when', async () => {
    const create = async (name: string, expiresIn: string) => {
      const created = await cli(
        ['tokens', 'create', '--role', 'user', '--name', name, '--expires-in', expiresIn, '--json'],
        {
          cwd: directory,
        },
      );
      expect(created.code).toBe(0);
      return JSON.parse(created.stdout) as { token: string; tokenId: string; expiresAt: number };
    };
    const lasting = await create('lasting', '1d');
    expect(lasting.expiresAt).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(
      (await cli(['runs', '--json'], { cwd: directory, env: { WARDRIK_URL: url, WARDRIK_TOKEN: lasting.token } })).code,
    ).toBe(0);

    const brief = await create('brief', '1s');
    while (Date.now() <= brief.expiresAt) await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await cli(['runs'], { cwd: directory, env: { WARDRIK_URL: url, WARDRIK_TOKEN: brief.token } });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('token expired');

    const listed = (await cli(['tokens', 'list'], { cwd: directory })).stdout.split('\n');
    expect(listed[0]).toMatch(/EXPIRES/);
    const line = (id: string) => listed.find((each) => each.includes(id)) ?? '';
    expect(line(lasting.tokenId)).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(line(lasting.tokenId)).not.toMatch(/expired/);
    expect(line(brief.tokenId)).toMatch(/\(expired\)/);
  });

  it('bad usage exits 2 and says what is wrong', async () => {
    const cases: Array<[string[], string]> = [
      [['frobnicate'], 'unknown command "frobnicate"'],
      [['runs', '--frob'], 'unknown option --frob'],
      [['run', 'support'], 'missing MESSAGE'],
      [['parks', '--status', 'sleeping'], '--status expects one of open, answered, closed'],
      [['answer', 'park_x', 'maybe'], 'unknown decision "maybe"'],
      [['answer', 'park_x', 'ran'], 'ran needs --value JSON'],
      [['serve', '--port', 'eighty'], '--port expects a port number'],
      [['tokens', 'create', '--name', 'carol'], 'give it a --role'],
      [
        ['tokens', 'create', '--name', 'carol', '--role', 'user', '--expires-in', '90 days'],
        '--expires-in expects a duration such as 90d',
      ],
      [['tokens', 'list', '--expires-in', '1d'], '--expires-in goes with create only'],
      [['release', 'run_x'], 'give the run and at least one label'],
      [['release', 'run_x', 'outside'], '--reason is required'],
      [['answer', 'park_x', 'edit'], 'edit needs --args JSON'],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args, { cwd: directory, env: { WARDRIK_URL: url } });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('Usage: wardrik');
    }
  });

  it('release refuses a label the run does not carry, naming it (exit 1)', async () => {
    const started = await cli(['run', 'support', 'Where is order B7?', '--json'], {
      cwd: directory,
      env: { WARDRIK_URL: url },
    });
    const runId = (JSON.parse(started.stdout) as { runId: string }).runId;
    const result = await cli(['release', runId, 'outside', '--reason', 'our own page'], {
      cwd: directory,
      env: { WARDRIK_URL: url },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the run does not carry outside');
  });

  it('a server that cannot be reached exits 4 and names the URL', async () => {
    const unreachable = `http://127.0.0.1:${await closedPort()}`;
    for (const args of [['runs'], ['run', 'support', 'hello'], ['parks', '--url', unreachable]]) {
      const result = await cli(args, { cwd: directory, env: { WARDRIK_URL: unreachable } });
      expect(result.code, args.join(' ')).toBe(4);
      expect(result.stderr).toContain(`cannot reach the Wardrik server at ${unreachable}`);
    }
  });

  it('a broken config is named with what is wrong with it', async () => {
    const cases: Array<[string, string, string]> = [
      ['empty.mjs', 'export const agents = [];\n', 'has no default export'],
      ['no-agents.mjs', 'export default {};\n', 'config.agents: missing'],
      [
        'not-agents.mjs',
        'export default { agents: [{ name: "x" }] };\n',
        'config.agents[0]: not an agent; make it with defineAgent()',
      ],
    ];
    for (const [name, text, message] of cases) {
      writeFileSync(join(directory, name), text);
      const result = await cli(['tokens', 'list', '--config', name], { cwd: directory });
      expect(result.code, name).toBe(1);
      expect(result.stderr).toContain(join(directory, name));
      expect(result.stderr).toContain(message);
    }
    const missing = await cli(['tokens', 'list'], { cwd: tmpRoot });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/looked for wardrik\.config\.ts, wardrik\.config\.mts, .*wardrik\.config\.mjs/);
  });

  it("a TypeScript config gets 'wardrik' and '@wardrik/core' from the built dist, the copy the CLI runs", async () => {
    const probe = [
      "console.log(JSON.stringify({ wardrik: import.meta.resolve('wardrik'), core: import.meta.resolve('@wardrik/core') }));",
      "export { default } from './wardrik.config.ts';",
    ].join('\n');
    writeFileSync(join(directory, 'probe.config.ts'), `${probe}\n`);
    const result = await cli(['tokens', 'list', '--config', 'probe.config.ts'], { cwd: directory });
    expect(result.code).toBe(0);
    const resolved = JSON.parse(result.stdout.split('\n')[0] ?? '') as { wardrik: string; core: string };
    // No tsx namespace query: one module instance, shared with the CLI's own.
    expect(resolved.wardrik).toBe(`file://${join(repoRoot, 'packages/wardrik/dist/index.js')}`);
    expect(resolved.core).toBe(`file://${join(repoRoot, 'packages/core/dist/index.js')}`);
  });

  it('serve stops cleanly on SIGTERM', async () => {
    const child = server as ChildProcess;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(serverOutput).toContain('Stopping');
    expect(existsSync(join(directory, '.wardrik', 'wardrik.db'))).toBe(true);
  });
});
