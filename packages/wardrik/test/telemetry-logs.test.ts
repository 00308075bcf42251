/*
 * Telemetry (issue 17): structured logs. A real `wardrik serve` (the built bin, its output piped:
 * JSON lines) with --log-level debug, traces through an SDK its config registers and metrics for a
 * metrics token: a run with a failing call whose error names credentials, a park answered over the
 * API, a token made, a worker connected, /metrics scraped. Every line parses as JSON, a run's lines
 * carry its id, agent and trace id, and no secret — the admin token, a token made through the API,
 * the worker's, the metrics token, credentials in an error — ever appears.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ok, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, defineAgent, logRuntime, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { buildCli, type Spawned, startServe, stopServe, tmpRoot } from './cli-process.js';
import { openWardrik, tempDbPath } from './helpers.js';
import { FIXTURES, SLOW, until, WorkerProcess } from './workers-env.js';

const METRICS_TOKEN = 'metrics-secret-0123456789';

describe('logs of wardrik serve', () => {
  let server: Spawned | undefined;
  let url = '';
  let directory = '';
  let worker: WorkerProcess | undefined;
  beforeAll(async () => {
    await buildCli();
    directory = mkdtempSync(join(tmpRoot, 'telemetry-logs-'));
    copyFileSync(new URL('./fixtures/telemetry-config.mjs', import.meta.url), join(directory, 'wardrik.config.mjs'));
    ({ server, url } = await startServe(directory, ['--log-level', 'debug']));
  });
  afterAll(async () => {
    await worker?.kill('SIGKILL');
    await stopServe(server);
  });

  it('are JSON lines with run id, agent and trace id, at the level asked; no token or credential ever appears', async () => {
    const adminToken = /\n\s+(wdk_\S+)\n/.exec(server!.output.stdout)?.[1];
    expect(adminToken).toMatch(/^wdk_/);
    const api = (path: string, init: RequestInit = {}, token = adminToken) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      });

    const made = await api('/v1/tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'ops-worker', role: 'worker', kind: 'worker', agents: ['*'] }),
    });
    expect(made.status).toBe(201);
    const workerToken = ((await made.json()) as { token: string }).token;
    worker = new WorkerProcess('w', [
      join(FIXTURES, 'mcp-worker.ts'),
      url,
      workerToken,
      join(directory, 'calls.jsonl'),
      'w',
    ]);
    await worker.ready;
    await until(() => server!.output.stderr.includes('"msg":"worker connected"'), SLOW);

    const started = await api('/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ agent: 'logged', input: 'go', wait: true }),
    });
    const parked = (await started.json()) as {
      runId: string;
      status: string;
      parks: Array<{ id: string; callHash: string }>;
    };
    expect(parked.status).toBe('parked');
    const [held] = parked.parks;
    const answered = await api(`/v1/parks/${held?.id}/answer`, {
      method: 'POST',
      body: JSON.stringify({ decision: { type: 'retry' }, callHash: held?.callHash }),
    });
    expect(answered.status).toBe(200);
    await until(
      async () => ((await (await api(`/v1/runs/${parked.runId}`)).json()) as { status: string }).status === 'completed',
      SLOW,
    );
    // A bad token, and a scrape with the metrics token.
    expect((await api('/v1/runs', {}, 'wdk_not-a-real-token-at-all')).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    await until(() => server!.output.stderr.includes('"msg":"run ended"'), SLOW);
    await worker.kill('SIGKILL');
    await until(() => server!.output.stderr.includes('"msg":"worker disconnected"'), SLOW);
    expect(await stopServe(server)).toBe(0);

    const stderr = server!.output.stderr;
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of parsed) {
      expect(typeof line['time']).toBe('string');
      expect(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).toContain(line['level']);
      expect(typeof line['msg']).toBe('string');
    }
    const messages = parsed.map((line) => line['msg']);
    for (const message of [
      'listening',
      'worker connected',
      'run started',
      'model call',
      'call attempt failed',
      'park opened',
      'run parked',
      'park answered',
      'run resumed',
      'call attempt',
      'run ended',
      'worker disconnected',
      'Stopping: closing the server and the runtime',
    ]) {
      expect(messages).toContain(message);
    }
    const ofRun = parsed.filter((line) => line['runId'] === parked.runId);
    expect(ofRun.length).toBeGreaterThan(8);
    const traceIds = new Set(ofRun.map((line) => line['traceId']));
    expect([...traceIds]).toHaveLength(1);
    expect([...traceIds][0]).toMatch(/^[0-9a-f]{32}$/);
    expect(ofRun.every((line) => line['agent'] === 'logged')).toBe(true);
    const failed = parsed.find((line) => line['msg'] === 'call attempt failed');
    expect(failed).toMatchObject({ level: 'warn', tool: 'flaky', outcome: 'error', runId: parked.runId });
    expect(String(failed?.['error'])).toContain('Bearer [redacted]');

    // No secret, anywhere.
    for (const secret of [
      adminToken!,
      workerToken,
      METRICS_TOKEN,
      'sk-live-1234567890',
      'wdk_leakedtoken123',
      'wdk_not-a-real',
    ]) {
      expect(stderr).not.toContain(secret);
    }
    expect(stderr).not.toMatch(/Bearer (?!\[redacted\])/);
  });
});

describe('createLogger', () => {
  it('redacts secret fields, tokens and bearer credentials in messages and fields, and the secrets it is given', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination, secrets: ['my-metrics-token-123'] });
    logger.info(
      { token: 'wdk_abc', headers: { authorization: 'Bearer xyz', host: 'h' }, request: { authorization: 'Basic q' } },
      'connected with wdk_secret_1 and Bearer abc.def',
    );
    logger.warn({ note: 'scraped with my-metrics-token-123' }, 'scrape');
    logger.error({ err: new Error('refused wdk_inside_error') }, 'failed');
    logger.debug('not at info');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed).toHaveLength(3);
    expect(parsed[0]).toMatchObject({
      level: 'info',
      token: '[redacted]',
      headers: { authorization: '[redacted]', host: 'h' },
      request: { authorization: '[redacted]' },
      msg: 'connected with [redacted] and Bearer [redacted]',
    });
    expect(parsed[1]).toMatchObject({ level: 'warn', note: 'scraped with [redacted]' });
    expect(parsed[2]).toMatchObject({ level: 'error', err: { message: 'refused [redacted]' } });
    const all = lines.join('\n');
    for (const secret of [
      'wdk_abc',
      'xyz',
      'Basic q',
      'wdk_secret_1',
      'abc.def',
      'my-metrics-token-123',
      'wdk_inside',
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('logRuntime', () => {
  let wardrik: Wardrik | undefined;
  afterAll(async () => {
    await wardrik?.close();
  });

  it('writes a line for each call at debug only, following the logger’s level as it changes; stops when told', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const lookup = tool({
      name: 'lookup',
      description: 'Looks up.',
      schema: {},
      annotations: { readOnly: true },
      run: () => ok('found'),
    });
    const agent = defineAgent({
      name: 'leveled',
      instructions: '',
      tools: [lookup],
      model: new ScriptedModel((request) =>
        request.step === 1 ? { toolCalls: [{ name: 'lookup', arguments: {} }] } : { text: 'done' },
      ),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const logger = createLogger({ level: 'info', destination });
    const stop = logRuntime(wardrik, logger);
    const messagesOf = (runId: string) => lines.filter((line) => line['runId'] === runId).map((line) => line['msg']);

    const quiet = await wardrik.run('leveled', 'go');
    expect(messagesOf(quiet.runId)).toEqual(['run started', 'run ended']);
    logger.level = 'debug';
    const told = await wardrik.run('leveled', 'go');
    expect(messagesOf(told.runId)).toEqual([
      'run started',
      'model call',
      'call attempt',
      'call settled',
      'model call',
      'run ended',
    ]);
    logger.level = 'info';
    const again = await wardrik.run('leveled', 'go');
    expect(messagesOf(again.runId)).toEqual(['run started', 'run ended']);
    stop();
    const after = await wardrik.run('leveled', 'go');
    expect(messagesOf(after.runId)).toEqual([]);
  });
});
