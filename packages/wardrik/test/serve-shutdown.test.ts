/*
 * SIGTERM to a real `wardrik serve` on SQLite mid-load (issue 29 item 1). Before: /v1/ready did
 * not exist, the stop cut every call short where it was (a send_email under way lost its answer
 * and came back in doubt, a lookup under way ran again), and the tracer provider was never
 * flushed (a run that ended just before the stop exported 0 spans). Now: ready turns 503 before
 * the port closes and new runs get 503, the calls under way finish and are journaled, the process
 * exits 0, and the restarted node finishes every run with each call run once; every span of the
 * ended run reaches a real OTLP receiver; a second signal exits at once and loses nothing.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callApi, configDirectory, pollReady, type ServeProcess, startServeProcess, until } from './serve-process.js';

const RUNS = 12;
const started: ServeProcess[] = [];
const directories: string[] = [];
afterAll(() => {
  for (const serve of started)
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function setup() {
  const directory = configDirectory('shutdown-config.mjs');
  directories.push(directory);
  const env = { SHUTDOWN_EXEC_LOG: join(directory, 'exec.log'), SHUTDOWN_GATE: join(directory, 'gate') };
  const executions = () =>
    existsSync(env.SHUTDOWN_EXEC_LOG)
      ? readFileSync(env.SHUTDOWN_EXEC_LOG, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { tool: string; key: string; runId: string; pid: number })
      : [];
  return { directory, env, executions, open: () => writeFileSync(env.SHUTDOWN_GATE, '') };
}

async function serve(directory: string, env: Record<string, string>, args: readonly string[] = []) {
  const process = await startServeProcess(directory, { env, args });
  started.push(process);
  return process;
}

describe('wardrik serve on SIGTERM (SQLite)', () => {
  it('is not ready before its port closes, lets the calls under way finish, exits 0; the restart finishes every run, each call once', async () => {
    const { directory, env, executions, open } = setup();
    const first = await serve(directory, env);
    expect((await fetch(`${first.url}/v1/ready`)).status).toBe(200);
    const runIds: string[] = [];
    for (let index = 0; index < RUNS; index++) {
      const { status, json } = await callApi(first, '/v1/runs', { agent: 'mailer', input: `mail ${index}` });
      expect(status).toBe(201);
      runIds.push(json.runId);
    }
    // Mid-load: every run's lookup has run, and its send_email is under way (held at the gate).
    const journals = async () =>
      Promise.all(runIds.map(async (runId) => (await callApi(first, `/v1/runs/${runId}`)).json.journal));
    await until(async () =>
      (await journals()).every((journal: { record: { type: string; name?: string } }[]) =>
        journal.some((stored) => stored.record.type === 'call-started' && stored.record.name === 'send_email'),
      ),
    );
    const ready = pollReady(first.url);
    first.child.kill('SIGTERM');
    await until(() => ready.samples.some((sample) => 'status' in sample && sample.status === 503));
    // The port is still open (the calls under way hold the drain): new work is refused, saying why.
    const refused = await callApi(first, '/v1/runs', { agent: 'mailer', input: 'one more' });
    expect(refused.status).toBe(503);
    expect(refused.json.detail).toMatch(/this node is stopping/);
    expect(refused.headers.get('retry-after')).toBe('5');
    open();
    expect(await first.exited).toEqual({ code: 0, signal: null });
    await ready.stop();

    // Ready was 200, then 503 ("stopping") while the port was still open, then the port closed.
    const kinds = ready.samples.map((sample) => ('error' in sample ? sample.error : String(sample.status)));
    const firstRefused = kinds.indexOf('ECONNREFUSED');
    expect(kinds.indexOf('503')).toBeGreaterThan(-1);
    expect(kinds.indexOf('503')).toBeLessThan(firstRefused === -1 ? kinds.length : firstRefused);
    expect(ready.samples.find((sample) => 'status' in sample && sample.status === 503)).toMatchObject({
      detail: expect.stringMatching(/^stopping/),
    });
    expect(first.logs().some((line) => line.msg === 'runs handed over')).toBe(true);
    // Every send_email under way finished and its answer is on disk: nothing was cut short.
    const handedOver = first.logs().find((line) => line.msg === 'runs handed over');
    expect(handedOver).toMatchObject({ settled: RUNS, cutShort: 0 });

    const second = await serve(directory, env);
    await until(async () => {
      const { json } = await callApi(second, '/v1/runs?limit=1000');
      return json.runs.filter((run: { status: string }) => run.status === 'completed').length === RUNS;
    });
    const { json: parks } = await callApi(second, '/v1/parks');
    expect(parks.parks).toEqual([]); // nothing in doubt
    // 0 lost: every acknowledged run completed. 0 double executions: each call ran exactly once.
    const done = executions();
    expect(done).toHaveLength(RUNS * 4);
    expect(new Set(done.map((each) => each.key)).size).toBe(RUNS * 4);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);

  it('exports every span of a run that ended just before the stop to a real OTLP receiver', async () => {
    const received: { name: string; attributes: Record<string, unknown> }[] = [];
    const receiver: Server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        const data = JSON.parse(body) as {
          resourceSpans: {
            scopeSpans: { spans: { name: string; attributes: { key: string; value: Record<string, unknown> }[] }[] }[];
          }[];
        };
        for (const resource of data.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              received.push({
                name: span.name,
                attributes: Object.fromEntries(
                  span.attributes.map((attribute) => [attribute.key, Object.values(attribute.value)[0]]),
                ),
              });
            }
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { directory, env, open } = setup();
      open();
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
      const node = await serve(directory, { ...env, OTLP_TRACES_URL: url });
      const { json } = await callApi(node, '/v1/runs', { agent: 'mailer', input: 'mail', wait: true });
      expect(json.status).toBe('completed');
      node.child.kill('SIGTERM');
      expect((await node.exited).code).toBe(0);
      const ofRun = received.filter(
        (span) =>
          Object.values(span.attributes).includes(json.runId) ||
          span.name.startsWith('execute_tool') ||
          span.name.startsWith('chat'),
      );
      expect(
        ofRun.some((span) => span.name === 'invoke_agent mailer' && span.attributes['wardrik.run.id'] === json.runId),
      ).toBe(true);
      // Its four model steps and four calls, each a span of its own.
      expect(received.filter((span) => span.name.startsWith('chat'))).toHaveLength(4);
      expect(received.filter((span) => span.name.startsWith('execute_tool'))).toHaveLength(4);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);

  it('exits at once on a second signal; the journal decides how the run goes on', async () => {
    const { directory, env, executions, open } = setup();
    const node = await serve(directory, env);
    const { json } = await callApi(node, '/v1/runs', { agent: 'mailer', input: 'mail' });
    await until(async () =>
      (await callApi(node, `/v1/runs/${json.runId}`)).json.journal.some(
        (stored: { record: { type: string; name?: string } }) =>
          stored.record.type === 'call-started' && stored.record.name === 'send_email',
      ),
    );
    const ready = pollReady(node.url);
    node.child.kill('SIGTERM');
    await until(() => ready.samples.some((sample) => 'status' in sample && sample.status === 503));
    await ready.stop();
    // The drain waits for the send_email held at the gate; a second signal does not.
    node.child.kill('SIGTERM');
    expect(await node.exited).toEqual({ code: 143, signal: null });

    open();
    const restarted = await serve(directory, env);
    await until(async () => (await callApi(restarted, `/v1/runs/${json.runId}`)).json.status === 'parked');
    // Its intent was on disk and its answer was not: in doubt, for a person — never run again on its own.
    const { json: parks } = await callApi(restarted, `/v1/parks?runId=${json.runId}`);
    expect(parks.parks.map((park: { kind: string }) => park.kind)).toEqual(['in_doubt']);
    expect(executions().filter((each) => each.tool === 'send_email')).toEqual([]);
    restarted.child.kill('SIGTERM');
    expect((await restarted.exited).code).toBe(0);
  }, 120_000);
});
