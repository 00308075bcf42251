import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseBridgeArguments, UsageError } from '../src/bridge-arguments.js';
import { eventually, pidOf, WardrikDouble, withTimeout } from './wardrik-double.js';

const CLI = fileURLToPath(new URL('../src/bridge-cli.ts', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type Ran = { process: ChildProcess; code: Promise<number | null>; stderr: () => string; stdout: () => string };

function run(args: string[], env: NodeJS.ProcessEnv = {}): Ran {
  const { WARDRIK_URL: _url, WARDRIK_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
  });
  const code = new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  return {
    process: child,
    code: withTimeout(code, 20_000, 'the CLI to exit'),
    stderr: () => stderr,
    stdout: () => stdout,
  };
}

describe('parseBridgeArguments', () => {
  it('reads options, the command after --, and the environment', () => {
    expect(
      parseBridgeArguments(['--url', 'http://h:1', '--token=t', '--', 'node', 'server.js', '--port', '3'], {}),
    ).toEqual({ type: 'run', url: 'http://h:1', token: 't', command: 'node', args: ['server.js', '--port', '3'] });
    expect(parseBridgeArguments(['--', 'srv'], { WARDRIK_URL: 'https://w', WARDRIK_TOKEN: 'e' })).toMatchObject({
      url: 'https://w',
      token: 'e',
      command: 'srv',
      args: [],
    });
    expect(
      parseBridgeArguments(['--max-payload-bytes', '65536', '--', 'srv'], {
        WARDRIK_URL: 'http://h',
        WARDRIK_TOKEN: 't',
      }),
    ).toMatchObject({
      maxPayloadBytes: 65536,
    });
    expect(parseBridgeArguments(['--help'], {})).toEqual({ type: 'help' });
  });

  it.each([
    [['--token', 't', '--', 'srv'], /missing --url/],
    [['--url', 'http://h', '--', 'srv'], /missing --token/],
    [['--url', 'http://h', '--token', 't'], /missing the command/],
    [['--url', 'http://h', '--token', 't', '--'], /missing the command/],
    [['--url', 'ftp://h', '--token', 't', '--', 'srv'], /must start with http/],
    [['--url', 'not a url', '--token', 't', '--', 'srv'], /not a valid URL/],
    [['--url', 'http://h', '--token', 't', 'srv'], /put the command to run after --/],
    [['--url', 'http://h', '--token', 't', '--verbose', '--', 'srv'], /Unknown option '--verbose'/],
    [['--url', 'http://h', '--token', 't', '--max-payload-bytes', 'lots', '--', 'srv'], /--max-payload-bytes/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseBridgeArguments(argv, {})).toThrow(UsageError);
    expect(() => parseBridgeArguments(argv, {})).toThrow(message);
  });
});

describe('wardrik-worker', () => {
  let wardrik: WardrikDouble;
  beforeEach(async () => {
    wardrik = await WardrikDouble.start('cli-token');
  });
  afterEach(async () => {
    await wardrik.close();
  });

  it('exits 2 with a clear message and the usage on bad usage', async () => {
    const ran = run(['--url', wardrik.url, '--token', 'x']);
    expect(await ran.code).toBe(2);
    expect(ran.stderr()).toContain('wardrik-worker: missing the command to run after --');
    expect(ran.stderr()).toContain('Usage: wardrik-worker');
    expect(wardrik.upgrades).toBe(0);
  });

  it('prints the usage on --help and exits 0', async () => {
    const ran = run(['--help']);
    expect(await ran.code).toBe(0);
    expect(ran.stdout()).toContain('Usage: wardrik-worker');
  });

  it('exits 1 with the reason when the token is refused', async () => {
    const ran = run(['--url', wardrik.url, '--', process.execPath, FIXTURE], { WARDRIK_TOKEN: 'wrong' });
    expect(await ran.code).toBe(1);
    expect(ran.stderr()).toContain('the bearer token is not known');
    expect(ran.stderr()).not.toContain('fixture-stdio started');
  });

  it('serves the stdio server and exits with its code when it exits', async () => {
    const ran = run(['--url', wardrik.url, '--', process.execPath, FIXTURE], { WARDRIK_TOKEN: 'cli-token' });
    const session = await wardrik.nextSession(20_000);
    await session.initialize();
    const response = await session.callTool('add', { a: 20, b: 22 });
    expect(response.result?.['content']).toEqual([{ type: 'text', text: '42' }]);
    await session.callTool('exit', { code: 3 });
    expect(await ran.code).toBe(3);
    expect(ran.stderr()).toContain('fixture-stdio started'); // the child's stderr is ours
    expect(ran.stderr()).toContain(`wardrik-worker: connected to ${wardrik.url.replace('http', 'ws')}/v1/workers`);
  });

  it('stops the child on SIGTERM', async () => {
    const ran = run(['--url', wardrik.url, '--token', 'cli-token', '--', process.execPath, FIXTURE]);
    const session = await wardrik.nextSession(20_000);
    await session.initialize();
    const response = await session.callTool('add', { a: 1, b: 2 });
    const pid = pidOf(response);
    ran.process.kill('SIGTERM');
    expect(await ran.code).toBe(143);
    await eventually(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      5_000,
      'the child to be gone',
    );
    expect((await session.closed).code).toBe(1000);
  });
});
