/*
 * `wardrik chat`, spawned as a user runs it (the built bin) against a real `wardrik serve` of
 * test/fixtures/cli-chat-config.mjs (an `echo` agent on a scripted model): piped conversations,
 * sessions continued with --session, parks that stop a piped chat, parks answered in place with
 * --interactive (answers written to stdin as a person would type them), Ctrl-C, and errors.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDetails } from '../src/runtime/sessions.js';
import type { RunRow } from '../src/store/store.js';
import {
  buildCli,
  cleanEnv,
  cli,
  cliPath,
  closedPort,
  type Result,
  type Spawned,
  startServe,
  stopServe,
  tmpRoot,
} from './cli-process.js';

let directory: string;
let server: Spawned | undefined;
let url = '';

beforeAll(async () => {
  await buildCli();
  directory = mkdtempSync(join(tmpRoot, 'cli-chat-'));
  copyFileSync(new URL('./fixtures/cli-chat-config.mjs', import.meta.url), join(directory, 'wardrik.config.mjs'));
  ({ server, url } = await startServe(directory));
}, 120_000);

afterAll(async () => {
  await stopServe(server);
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** A `wardrik chat` process whose stdin the test writes, like a person typing (or a pipe). */
interface ChatProcess {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly done: Promise<Result>;
  /** Resolves once stdout holds `text` `times` times in all; rejects if the process ends first. */
  readonly waitFor: (text: string, times?: number) => Promise<void>;
  readonly type: (line: string) => void;
}

function startChat(args: readonly string[], input?: string): ChatProcess {
  const child = spawn(process.execPath, [cliPath, 'chat', ...args], {
    cwd: directory,
    env: cleanEnv({ WARDRIK_URL: url }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<Result>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      for (const listener of listeners) listener();
      resolve({ code, ...output });
    });
  });
  const waitFor = (text: string, times = 1) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (output.stdout.split(text).length - 1 >= times) {
          listeners.delete(check);
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          listeners.delete(check);
          reject(new Error(`chat ended before printing ${text} (x${times}):\n${output.stdout}\n${output.stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  if (input !== undefined) child.stdin?.end(input);
  return { child, output, done, waitFor, type: (line) => child.stdin?.write(`${line}\n`) };
}

/** `wardrik chat ARGS` with `input` piped in; resolves once it exits. */
const pipeChat = (args: readonly string[], input: string) => startChat(args, input).done;

const wardrik = (args: readonly string[]) => cli(args, { cwd: directory, env: { WARDRIK_URL: url } });

function sessionIdIn(stdout: string): string {
  const id = /session (ses_\S+) with echo/i.exec(stdout)?.[1];
  if (!id) throw new Error(`no session id in:\n${stdout}`);
  return id;
}

/** Each of `parts` in `text`, in this order. */
function expectInOrder(text: string, parts: readonly string[]): void {
  let from = 0;
  for (const part of parts) {
    const index = text.indexOf(part, from);
    expect(index, `${JSON.stringify(part)} (in order) in:\n${text}`).toBeGreaterThanOrEqual(0);
    from = index + part.length;
  }
}

/** The session the first piped chat starts (the error cases use it too). */
let sessionId = '';

describe('wardrik chat, piped', () => {
  it('starts a session and takes each line as a turn; the second turn sees the first', async () => {
    const result = await pipeChat(['echo'], 'hello\n\nagain\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    sessionId = sessionIdIn(result.stdout);
    expectInOrder(result.stdout, [
      `Started session ${sessionId} with echo.`,
      `Continue it later with: wardrik chat echo --session ${sessionId} --url ${url}`,
      'you: hello',
      '  model: You said "hello"; I see 1 messages.',
      'echo: You said "hello"; I see 1 messages.',
      'you: again',
      // user, assistant, user: the first turn is in the second's history.
      'echo: You said "again"; I see 3 messages.',
    ]);
    // Piped: no prompts, no colour.
    expect(result.stdout).not.toContain('you>');
    expect(result.stdout).not.toContain('\x1b[');
  });

  it('--session continues the session, showing its last messages first', async () => {
    const result = await pipeChat(['echo', '--session', sessionId], 'third\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectInOrder(result.stdout, [
      `Session ${sessionId} with echo (2 runs).`,
      '  you: hello',
      '  echo: You said "hello"; I see 1 messages.',
      '  you: again',
      '  echo: You said "again"; I see 3 messages.',
      'you: third',
      'echo: You said "third"; I see 5 messages.',
    ]);
    const details = await fetchSession(sessionId);
    expect(details.runList.map((run) => run.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('stops at a park with exit 3 and the commands that answer it; the lines after it are not run', async () => {
    const result = await pipeChat(['echo'], 'refund 5\nafter the park\n');
    expect(result.code).toBe(3);
    const id = sessionIdIn(result.stdout);
    expectInOrder(result.stdout, [
      '  model: Refunding.',
      '  || approval (rule destructive): refund is destructive',
      'holds refund({"amount":5})',
      'answer with: wardrik answer park_',
      ' approve --url ',
      'waits for a person. Answer it as above, then go on with: wardrik chat echo --session ',
    ]);
    expect(result.stdout).not.toContain('after the park');
    const parkId = /answer with: wardrik answer (park_\S+) approve/.exec(result.stdout)?.[1] ?? '';

    // Coming back while it still waits: the park again, and exit 3 again.
    const again = await pipeChat(['echo', '--session', id], 'next\n');
    expect(again.code).toBe(3);
    expect(again.stdout).toContain('waits for a person.');
    expect(again.stdout).toContain(`park ${parkId} holds refund({"amount":5})`);

    // Answered as the hint says, the chat goes on.
    const answered = await wardrik(['answer', parkId, 'approve']);
    expect(answered.code).toBe(0);
    const next = await pipeChat(['echo', '--session', id], 'next\n');
    expect(next.code).toBe(0);
    expectInOrder(next.stdout, [
      '  echo: Done with refund: {"refunded":5}',
      // user, assistant (the call), tool (its answer), assistant, user.
      'echo: You said "next"; I see 5 messages.',
    ]);
  });

  it('--json prints one JSON object per line: the session, then each run', async () => {
    const result = await pipeChat(['echo', '--json'], 'one\nrefund 2\n');
    expect(result.code).toBe(3);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ type: 'session', created: true, session: { agent: 'echo' } });
    expect(lines[1]).toMatchObject({ type: 'turn', input: 'one', status: 'completed' });
    expect(lines[2]).toMatchObject({
      type: 'turn',
      input: 'refund 2',
      status: 'parked',
      parks: [{ kind: 'approval', call: { name: 'refund' } }],
    });
  });
});

describe.concurrent('wardrik chat --interactive (answers typed in place)', () => {
  it('approves and denies parks in place and goes on following the run', async () => {
    const chat = startChat(['echo', '--interactive']);
    await chat.waitFor('you> ');
    chat.type('refund 5');
    await chat.waitFor('answer> ');
    expect(chat.output.stdout).toContain('|| approval (rule destructive): refund is destructive');
    expect(chat.output.stdout).toContain('answer: approve [--remember run|agent]');
    // Answers in place: no `wardrik answer` commands.
    expect(chat.output.stdout).not.toContain('answer with:');
    chat.type('approve');
    await chat.waitFor('echo: Done with refund: {"refunded":5}');
    await chat.waitFor('you> ', 2);

    chat.type('refund 9');
    await chat.waitFor('answer> ', 2);
    chat.type('deny too much');
    await chat.waitFor('echo: Done with refund: refund failed:');
    await chat.waitFor('you> ', 3);
    chat.type('/exit');
    const result = await chat.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectInOrder(result.stdout, [
      'you> refund 5',
      'answer> approve',
      'answered park_',
      ': approve (run the call as shown)',
      '<- refund: {"refunded":5}',
      'echo: Done with refund: {"refunded":5}',
      'you> refund 9',
      'answer> deny too much',
      ': deny: too much',
      'echo: Done with refund: refund failed:',
      'too much',
      'you> /exit',
      'Continue this chat with: wardrik chat echo --session ',
    ]);
  });

  it('asks again for an answer the park does not take; a park answered elsewhere is said and the chat goes on', async () => {
    const chat = startChat(['echo', '--interactive']);
    await chat.waitFor('you> ');
    chat.type('hold');
    await chat.waitFor('answer> ');
    expect(chat.output.stdout).toContain('|| tool: a person must say go');
    chat.type('stop');
    await chat.waitFor('answer> ', 2);
    expect(chat.output.stdout).toContain('"stop" is not an answer here; say one of: approve (run it again, approved)');
    chat.type('edit {"x":1}');
    await chat.waitFor('answer> ', 3);

    // Someone else answers it while the question is open.
    const parkId = /park (park_\S+)/.exec(chat.output.stdout)?.[1] ?? '';
    const elsewhere = await wardrik(['answer', parkId, 'approve', '--no-wait']);
    expect(elsewhere.code).toBe(0);
    chat.type('deny');
    await chat.waitFor(`park ${parkId} was answered elsewhere:`);
    await chat.waitFor('echo: Done with hold: {"held":false}');
    await chat.waitFor('you> ', 2);
    chat.child.stdin?.end();
    const result = await chat.done;
    expect(result.code).toBe(0);
  });

  it('the end of the input at a question leaves the run waiting (exit 3), naming the commands that answer it', async () => {
    const result = await startChat(['echo', '--interactive'], 'refund 3\n').done;
    expect(result.code).toBe(3);
    // The park is shown once, asked in place; then only the commands that answer it.
    expectInOrder(result.stdout, [
      '|| approval (rule destructive): refund is destructive',
      'answer: approve',
      'answer with: wardrik answer park_',
      'waits for a person.',
    ]);
    expect(result.stdout.split('refund is destructive')).toHaveLength(2);
  });
});

describe.concurrent('wardrik chat: Ctrl-C and errors', () => {
  it('Ctrl-C during a run cancels it and ends the chat (exit 130)', async () => {
    const chat = startChat(['echo']);
    chat.type('wait');
    await chat.waitFor('-> wait({})');
    chat.child.kill('SIGINT');
    const result = await chat.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/Ctrl-C: cancelling run (run_\S+)…/);
    const runId = /cancelling run (run_\S+)…/.exec(result.stdout)?.[1] ?? '';
    expect(result.stdout).toContain(`Cancelled run ${runId}.`);
    const shown = await wardrik(['runs', '--json']);
    const runs = JSON.parse(shown.stdout) as RunRow[];
    expect(runs.find((run) => run.id === runId)?.status).toBe('cancelled');
  });

  it('--session while its run is still going follows that run first; Ctrl-C there cancels it', async () => {
    const first = startChat(['echo']);
    first.type('wait');
    await first.waitFor('-> wait({})');
    const id = sessionIdIn(first.output.stdout);
    const second = startChat(['echo', '--session', id]);
    await second.waitFor('is still going; following it.');
    second.child.kill('SIGINT');
    const [firstResult, secondResult] = await Promise.all([first.done, second.done]);
    expect(secondResult.code).toBe(130);
    expect(secondResult.stdout).toMatch(/Cancelled run run_\S+\./);
    // The chat that started it sees it cancelled; piped, that ends it (exit 1).
    expect(firstResult.code).toBe(1);
    expect(firstResult.stdout).toMatch(/Run run_\S+ cancelled: cancelled by /);
  });

  it('an unknown agent, an unknown session, another agent’s session, a bad token and a server that is down are one clear line each', async () => {
    const [unknown, noSession, other, badToken, down] = await Promise.all([
      pipeChat(['nobody'], 'hi\n'),
      pipeChat(['echo', '--session', 'ses_nope'], 'hi\n'),
      pipeChat(['other', '--session', sessionId], 'hi\n'),
      pipeChat(['echo', '--token', 'wdk_wrong'], 'hi\n'),
      closedPort().then((port) => pipeChat(['echo', '--url', `http://127.0.0.1:${port}`], 'hi\n')),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^wardrik chat: .*nobody/);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(noSession.code).toBe(1);
    expect(noSession.stderr).toMatch(/^wardrik chat: .*ses_nope/);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`session ${sessionId} is a conversation with echo, not other`);
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/^wardrik chat: Unauthorized \(401\)/);
    expect(down.code).toBe(4);
    expect(down.stderr).toMatch(/^wardrik chat: cannot reach the Wardrik server at/);
  });
});

async function fetchSession(id: string): Promise<SessionDetails> {
  const { readFileSync } = await import('node:fs');
  const token = readFileSync(join(directory, '.wardrik', 'admin-token'), 'utf8').trim();
  const response = await fetch(`${url}/v1/sessions/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return (await response.json()) as SessionDetails;
}
