/*
 * The CLI's commands for one run — show, follow, cancel — and agents, --version, JSON errors,
 * hints that name the server, answers a park kind does not take, model retries and streamed steps,
 * as spawned processes of the built bin against a real `wardrik serve` of
 * test/fixtures/cli-config.mjs (scripted models, so every run is the same).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../src/cli/hint.js';
import type { StoredRecord } from '../src/journal/records.js';
import type { ParkRow } from '../src/store/store.js';
import {
  buildCli,
  cleanEnv,
  cli,
  cliPath,
  closedPort,
  repoRoot,
  type Spawned,
  spawnCli,
  startServe,
  stopServe,
  tmpRoot,
} from './cli-process.js';

let directory: string;
let server: Spawned | undefined;
let url = '';
/** The server's URL; the admin token is found in ./.wardrik/admin-token. */
let env: Record<string, string> = {};

beforeAll(async () => {
  await buildCli();
  directory = mkdtempSync(join(tmpRoot, 'cli-commands-'));
  copyFileSync(new URL('./fixtures/cli-config.mjs', import.meta.url), join(directory, 'wardrik.config.mjs'));
  ({ server, url } = await startServe(directory));
  env = { WARDRIK_URL: url };
}, 120_000);

afterAll(async () => {
  await stopServe(server);
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const run = (args: readonly string[], extra: Record<string, string> = {}) =>
  cli(args, { cwd: directory, env: { ...env, ...extra } });

/** The first seq of a record of `type` (and step) in a run's journal, from `show --json`. */
async function seqOf(runId: string, type: string, step?: number): Promise<number> {
  const shown = await run(['show', runId, '--json']);
  const { journal } = JSON.parse(shown.stdout) as { journal: StoredRecord[] };
  const found = journal.find(
    ({ record }) =>
      record.type === type && (step === undefined || (record.type === 'model-step' && record.step === step)),
  );
  if (!found) throw new Error(`no ${type} in the journal of ${runId}`);
  return found.seq;
}

/** Each index of `parts` in `text`, checking that they appear in that order. */
function expectInOrder(text: string, parts: readonly string[]): void {
  let from = 0;
  for (const part of parts) {
    const index = text.indexOf(part, from);
    expect(index, `${JSON.stringify(part)} (in order) in:\n${text}`).toBeGreaterThanOrEqual(0);
    from = index + part.length;
  }
}

describe('wardrik --version', () => {
  it("prints the wardrik package's version, with no config and no server", async () => {
    const empty = mkdtempSync(join(tmpRoot, 'cli-version-'));
    try {
      const { version } = JSON.parse(readFileSync(join(repoRoot, 'packages/wardrik/package.json'), 'utf8')) as {
        version: string;
      };
      for (const flag of ['--version', '-v']) {
        const result = await cli([flag], {
          cwd: empty,
          env: { WARDRIK_URL: `http://127.0.0.1:${await closedPort()}` },
        });
        expect(result, flag).toMatchObject({ code: 0, stdout: `wardrik ${version}\n`, stderr: '' });
      }
      const json = await cli(['--version', '--json'], { cwd: empty });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ name: 'wardrik', version });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('wardrik serve', () => {
  it('names --url in the line to try when it is not on the default address; .wardrik/ is 0700', () => {
    expect(server?.output.stdout).toContain(`wardrik run shop "Please refund order A1" --url ${url}`);
    expect(statSync(join(directory, '.wardrik')).mode & 0o777).toBe(0o700);
  });
});

describe('wardrik agents', () => {
  it('lists the agents with their tools; --json gives them as data', async () => {
    const table = await run(['agents']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+TOOLS/);
    expect(table.stdout).toMatch(/shop\s+lookup, wipe, refund/);
    expect(table.stdout).toContain('budgeted');
    const json = await run(['agents', '--json']);
    expect(json.code).toBe(0);
    const agents = JSON.parse(json.stdout) as Array<{ name: string; tools: string[] }>;
    expect(agents.map((agent) => agent.name)).toEqual(['shop', 'budgeted', 'flaky']);
    expect(agents[0]?.tools).toEqual(['lookup', 'wipe', 'refund']);
  });
});

describe('a run that parks, answered, shown and followed', () => {
  let runId = '';

  it('run shows a refused call by its tool name; the hints to answer name --url', async () => {
    const result = await run(['run', 'shop', 'Refund order A1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('wipe failed: Refused by policy (no-wipes): orders are never wiped');
    expect(result.stdout).toMatch(new RegExp(`answer with: wardrik answer park_\\S+ approve .*--url ${url}`));
    runId = /Run (run_\S+) of shop/.exec(result.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');

    const parks = await run(['parks']);
    expect(parks.stdout).toContain(
      `Answer one with: wardrik answer PARK approve|deny|edit|ran|retry|fail|raise-budget|stop --url ${url}`,
    );
  });

  it('answer deny: the call the person denied is named by its tool, not its call id', async () => {
    const parks = JSON.parse((await run(['parks', '--run', runId, '--json'])).stdout) as ParkRow[];
    const result = await run(['answer', parks[0]?.id ?? '', 'deny', '--reason', 'not today']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('refund failed: ');
    expect(result.stdout).not.toMatch(/c\d+\.\d+ failed/);
    expect(result.stdout).toContain('Final answer: All done.');
  });

  it('answer edit takes the arguments as JSON after the decision (as chat does); the tool runs with them', async () => {
    const started = await run(['run', 'shop', 'refund A1 again', '--json']);
    expect(started.code).toBe(3);
    const park = (JSON.parse(started.stdout) as { parks: ParkRow[] }).parks[0] as ParkRow;
    const result = await run(['answer', park.id, 'edit', '{"order":"A1","amount":3}']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const shown = JSON.parse((await run(['show', park.runId, '--json'])).stdout) as {
      journal: Array<{ record: { type: string; answer?: { value?: unknown } } }>;
    };
    const answered = shown.journal.filter((each) => each.record.type === 'call-answered').at(-1);
    expect(JSON.stringify(answered?.record.answer?.value)).toContain('"refunded":3');
  });

  it('show RUN prints the timeline: steps, calls with their rules and labels, the park and its answer, totals', async () => {
    const result = await run(['show', runId]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectInOrder(result.stdout, [
      `Run ${runId} of shop: completed`,
      'Input: "Refund order A1"',
      'Step 1 (scripted-shop): 0.001 usd, 15 tokens (10 in, 5 out)',
      'model: Checking the order.',
      '-> lookup({"order":"A1"})',
      '<- lookup: {"order":"A1","status":"delivered"}  [labels: outside]',
      'Step 2 (scripted-shop)',
      'model: Wiping and refunding.',
      '<- wipe failed: Refused by policy (no-wipes): orders are never wiped  [rule no-wipes]',
      '|| approval (rule outside-not-read-only)',
      'park park_',
      'holds refund({"order":"A1","amount":5})',
      '>> admin answered park_',
      'deny: not today',
      '<- refund failed: ',
      'Step 3 (scripted-shop)',
      'model: All done.',
      'Completed: All done.',
      'Total: 3 model steps, 3 calls (2 failed), 1 park; 0.003 usd, 45 tokens (30 in, 15 out)',
      'Labels: outside',
    ]);
    expect(result.stdout).not.toContain('\x1b[');

    const json = await run(['show', runId, '--json']);
    expect(json.code).toBe(0);
    const details = JSON.parse(json.stdout) as { id: string; status: string; journal: StoredRecord[] };
    expect(details).toMatchObject({ id: runId, status: 'completed' });
    expect(details.journal[0]?.record.type).toBe('run-started');
    expect(details.journal.at(-1)?.record.type).toBe('run-ended');
  });

  it('follow RUN replays an ended run as run shows it, and exits as run does', async () => {
    const result = await run(['follow', runId]);
    expect(result.code).toBe(0);
    expectInOrder(result.stdout, [
      `Run ${runId} of shop`,
      '-> lookup(',
      'wipe failed',
      'refund failed',
      'Final answer: All done.',
    ]);
    const json = await run(['follow', runId, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ runId, status: 'completed', output: 'All done.' });
  });
});

describe('follow --after and cancel', () => {
  let runId = '';

  it('follow RUN --after SEQ shows what came after SEQ, names calls from before it, and exits 3 at the park', async () => {
    const started = await run(['run', 'shop', 'Refund order A2', '--no-wait', '--json']);
    expect(started.code).toBe(0);
    runId = (JSON.parse(started.stdout) as { runId: string }).runId;
    // Following from the start waits until it parks.
    const whole = await run(['follow', runId]);
    expect(whole.code).toBe(3);
    expect(whole.stdout).toContain('model: Checking the order.');

    const after = await seqOf(runId, 'model-step', 2);
    const result = await run(['follow', runId, '--after', String(after)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
    expect(result.stdout).not.toContain('Checking the order.');
    expect(result.stdout).toContain('wipe failed: Refused by policy (no-wipes)');
    expect(result.stdout).toMatch(new RegExp(`answer with: wardrik answer park_\\S+ approve .*--url ${url}`));
    expect(result.stdout).toContain(`Run ${runId} is parked`);

    const beyond = await run(['follow', runId, '--after', '999']);
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toMatch(/--after 999 is past the end of run \S+'s journal \(\d+ records\)/);
  });

  it('cancel RUN cancels it (exit 0); again, the server refuses (exit 1, JSON with --json)', async () => {
    const result = await run(['cancel', runId, '--reason', 'the customer called']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Cancelled run ${runId}: the customer called`);

    const followed = await run(['follow', runId]);
    expect(followed.code).toBe(1);
    expect(followed.stdout).toContain('cancelled: the customer called');

    const again = await run(['cancel', runId, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({
      status: 409,
      exitCode: 1,
      detail: expect.stringContaining('has ended'),
    });
  });
});

describe('answer checks the decision against the park kind', () => {
  it('approve on a budget park says which decisions it takes (exit 2, nothing sent); raise-budget goes on', async () => {
    const started = await run(['run', 'budgeted', 'hi', '--json']);
    expect(started.code).toBe(3);
    const park = (JSON.parse(started.stdout) as { parks: ParkRow[] }).parks[0] as ParkRow;
    expect(park.kind).toBe('budget');

    const refused = await run(['answer', park.id, 'approve']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`park ${park.id} is a budget park: it takes raise-budget or stop, not approve`);
    const json = await run(['answer', park.id, 'deny', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      exitCode: 2,
      detail: expect.stringContaining('raise-budget or stop'),
    });

    const raised = await run(['answer', park.id, 'raise-budget', '--steps', '5']);
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain('Final answer: Within budget now.');
  });
});

describe('model retries and streamed steps', () => {
  /** Waits for a retry line, then lets the flaky model answer. */
  async function retried(spawned: Spawned, marker: string): Promise<string> {
    await spawned.waitFor('retrying in');
    writeFileSync(join(directory, marker), '');
    const result = await spawned.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ retrying in \d+ m?s: HTTP 429 \(rate limited\) from https:\/\/api\.example\n/);
    // Streamed text, then its step's cost on the same line.
    expect(result.stdout).toMatch(/ {2}model: Answered after retrying\. {2}\(step \d: 0\.001 usd, 15 tokens\)\n/);
    return result.stdout;
  }

  it('run shows each retry, and a streamed step keeps its cost on its line', async () => {
    await retried(spawnCli(['run', 'flaky', 'go:m-run'], { cwd: directory, env }), 'm-run');
  });

  it('follow shows them too', async () => {
    const started = await run(['run', 'flaky', 'go:m-follow', '--no-wait', '--json']);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    await retried(spawnCli(['follow', runId], { cwd: directory, env }), 'm-follow');
  });

  it('answer shows them too', async () => {
    const started = await run(['run', 'flaky', 'go:m-answer-park', '--json']);
    expect(started.code).toBe(3);
    const park = (JSON.parse(started.stdout) as { parks: ParkRow[] }).parks[0] as ParkRow;
    await retried(spawnCli(['answer', park.id, 'approve'], { cwd: directory, env }), 'm-answer-park');
  });
});

describe('permissions and tokens', () => {
  it('release refused for a user says it is about releasing labels; an admin releases them', async () => {
    const created = await run(['tokens', 'create', '--role', 'user', '--name', 'ursula', '--agents', 'shop', '--json']);
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };
    const started = await run(['run', 'shop', 'Refund order A3', '--json'], { WARDRIK_TOKEN: token });
    expect(started.code).toBe(3);
    const { runId } = JSON.parse(started.stdout) as { runId: string };

    const refused = await run(['release', runId, 'outside', '--reason', 'our own data'], { WARDRIK_TOKEN: token });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('role user may not release labels');

    const released = await run(['release', runId, 'outside', '--reason', 'our own data']);
    expect(released.code).toBe(0);
    const shown = await run(['show', runId]);
    expect(shown.stdout).toContain('admin released outside: our own data');
  });

  it('tokens create --agents refuses agents the config does not define, naming them and the defined ones', async () => {
    const refused = await run(['tokens', 'create', '--role', 'user', '--name', 'vera', '--agents', 'shop,nope,nada']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--agents names agents the config does not define: nope, nada (it defines shop, budgeted, flaky;',
    );
    const all = await run(['tokens', 'create', '--role', 'user', '--name', 'vera', '--agents', '*', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ principal: { agents: ['*'] } });
  });
});

/** Whether util-linux `script` is here to run a command in a pseudo-terminal. */
function hasScript(): boolean {
  try {
    return execFileSync('script', ['--version'], { encoding: 'utf8' }).includes('util-linux');
  } catch {
    return false;
  }
}

describe('on a terminal', () => {
  /** `wardrik ...args` in a pseudo-terminal (util-linux script): what it printed (any exit code). */
  function inTerminal(args: readonly string[], extra: Record<string, string> = {}): string {
    const command = [process.execPath, cliPath, ...args].map(shellWord).join(' ');
    const result = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: directory,
      env: cleanEnv({ ...env, ...extra }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (result.error) throw result.error;
    return result.stdout;
  }

  it.skipIf(!hasScript())(
    'symbols and colour; NO_COLOR keeps the symbols and drops the colour; piped, neither',
    async () => {
      const started = await run(['run', 'shop', 'Refund order A4', '--json']);
      const { runId } = JSON.parse(started.stdout) as { runId: string };

      const colour = inTerminal(['show', runId]);
      expect(colour).toContain('\x1b[36m→ \x1b[39mlookup({"order":"A1"})');
      expect(colour).toContain('\x1b[33m⏸ approval');
      const emptyNoColor = inTerminal(['show', runId], { NO_COLOR: '' });
      expect(emptyNoColor).toContain('\x1b[');
      const noColor = inTerminal(['follow', runId], { NO_COLOR: '1' });
      expect(noColor).not.toContain('\x1b[');
      expect(noColor).toContain('→ lookup({"order":"A1"})');
      expect(noColor).toContain('⏸ approval');

      const piped = await run(['follow', runId]);
      expect(piped.stdout).not.toContain('\x1b[');
      expect(piped.stdout).not.toMatch(/[→←⏸▶↻✓✗]/);
      expect(piped.stdout).toContain('-> lookup({"order":"A1"})');
      expect(piped.stdout).toContain('|| approval');
    },
  );
});

describe('--json errors', () => {
  it('are one JSON problem on stdout, with the exit code of the error, for every kind of error', async () => {
    const unreachable = `http://127.0.0.1:${await closedPort()}`;
    const cases: Array<[readonly string[], number, Record<string, unknown>]> = [
      [['run', 'shop', '--json'], 2, { title: 'Usage error', detail: expect.stringContaining('missing MESSAGE') }],
      [['frobnicate', '--json'], 2, { detail: expect.stringContaining('unknown command "frobnicate"') }],
      [['runs', '--frob', '--json'], 2, { detail: expect.stringContaining('unknown option --frob') }],
      [['answer', 'park_x', 'maybe', '--json'], 2, { detail: expect.stringContaining('unknown decision "maybe"') }],
      [
        ['answer', 'park_x', 'approve', '{"a":1}', '--json'],
        2,
        { detail: expect.stringContaining('only edit and ran take JSON after the decision') },
      ],
      [
        ['answer', 'park_x', 'edit', '{"a":1}', '--args', '{"a":2}', '--json'],
        2,
        { detail: expect.stringContaining('edit got its JSON twice') },
      ],
      [['follow', 'run_x', '--after', 'soon', '--json'], 2, { detail: expect.stringContaining('--after expects') }],
      [['show', 'run_nope', '--json'], 1, { status: 404, detail: expect.stringContaining('run_nope') }],
      [
        ['agents', '--json', '--url', unreachable],
        4,
        { detail: expect.stringContaining(`cannot reach the Wardrik server at ${unreachable}`) },
      ],
      [['tokens', 'list', '--config', 'missing.mjs', '--json'], 1, { detail: expect.stringContaining('missing.mjs') }],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    cases.forEach(([args, code, problem], index) => {
      const result = results[index];
      expect(result?.code, args.join(' ')).toBe(code);
      expect(JSON.parse(result?.stdout ?? ''), args.join(' ')).toMatchObject({
        type: expect.stringMatching(/^https:\/\/wardrik\.dev\/problems\//),
        exitCode: code,
        ...problem,
      });
    });
  });
});
