/*
 * Revoking a token closes what was opened with it: event streams end at once when it is revoked
 * through the API (and within revocationCheckMs when revoked elsewhere), and a worker connected
 * with it is disconnected, then refused when it reconnects. Real HTTP, SSE and worker processes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { SseReader } from './sse-client.js';
import { FIXTURES, SLOW, until, WorkerProcess } from './workers-env.js';

const hold = tool({
  name: 'hold',
  description: 'Waits for a person.',
  run: (_args, context) => (context.approval ? ok('released') : park('waiting for a person')),
});
const agent = defineAgent({
  name: 'support',
  instructions: '',
  tools: [hold],
  workers: ['workers/*'],
  model: new ScriptedModel((request) =>
    request.step === 1 ? { toolCalls: [{ name: 'hold', arguments: {} }] } : { text: 'done' },
  ),
});

let directory: string;
let wardrik: Wardrik;
let auth: AuthService;
let server: RunningServer;
let admin: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'wardrik-revocation-'));
  wardrik = await createWardrik({ store: sqliteStore(join(directory, 'wardrik.db')), agents: [agent] });
  auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0, heartbeatMs: 50, revocationCheckMs: 100 });
  admin = (await auth.ensureAdmin())?.token ?? '';
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await server?.close();
  await wardrik?.close();
});

/** A principal of `role` with two tokens. */
async function principalWithTwoTokens(name: string, role: 'user' | 'worker') {
  const { principal, token, info } = await auth.createPrincipalWithToken({
    name,
    kind: role === 'worker' ? 'worker' : 'user',
    role,
    agents: ['*'],
  });
  const second = await auth.issueToken(principal.id);
  return { principal, first: { token, id: info.id }, second: { token: second.token, id: second.info.id } };
}

/** A run of `token`'s principal, parked and waiting. */
async function parkedRun(token: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'support', input: 'hold on', wait: true }),
  });
  const body = (await response.json()) as { runId: string; status: string };
  expect(body.status).toBe('parked');
  return body.runId;
}

/** Opens a run's event stream with `token` and reads up to its run-parked event. */
async function parkedStream(runId: string, token: string): Promise<SseReader> {
  const response = await fetch(`${server.url}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  const stream = new SseReader(response);
  expect((await stream.until((event) => event.event === 'run-parked')).at(-1)?.event).toBe('run-parked');
  return stream;
}

async function revokeThroughApi(tokenId: string): Promise<void> {
  const response = await fetch(`${server.url}/v1/tokens/${tokenId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(response.status).toBe(204);
}

async function answerPark(runId: string): Promise<void> {
  const [open] = await wardrik.listParks({ runId, status: 'open' });
  await wardrik.answerPark(open?.id ?? '', { type: 'retry' }, { callHash: open?.callHash ?? '', by: 'test' });
}

describe('revoking a token', () => {
  it("ends the event streams opened with it; the principal's other token keeps its stream", {
    timeout: SLOW,
  }, async () => {
    const alice = await principalWithTwoTokens('alice', 'user');
    const runId = await parkedRun(alice.first.token);
    const revoked = await parkedStream(runId, alice.first.token);
    const kept = await parkedStream(runId, alice.second.token);

    await revokeThroughApi(alice.first.id);
    // The stream ends (reading returns) although the run is still parked.
    expect(await revoked.until(() => false)).toEqual([]);
    expect(revoked.ended).toBe(true);
    expect((await wardrik.getRunSummary(runId)).status).toBe('parked');

    const again = await fetch(`${server.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${alice.first.token}` },
    });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { detail: string }).detail).toBe('token revoked');

    // The stream of the token that was not revoked still delivers the run to its end.
    await answerPark(runId);
    const rest = await kept.until((event) => event.event === 'run-ended');
    expect(rest.at(-1)?.event).toBe('run-ended');
    await kept.cancel();
  });

  it('revoked elsewhere (another process on the store, like `wardrik tokens revoke`), ends its streams at the next check', {
    timeout: SLOW,
  }, async () => {
    const bob = await principalWithTwoTokens('bob', 'user');
    const runId = await parkedRun(bob.first.token);
    const stream = await parkedStream(runId, bob.first.token);
    // A service of its own: this server's AuthService hears nothing of it.
    await new AuthService(wardrik.store).revokeToken(bob.first.id);
    expect(await stream.until(() => false)).toEqual([]);
    expect(stream.ended).toBe(true);
    await answerPark(runId);
  });

  it('disconnects the workers connected with it, which are then refused; other workers stay', {
    timeout: SLOW,
  }, async () => {
    const record = join(directory, 'calls.jsonl');
    writeFileSync(record, '');
    const crew = await principalWithTwoTokens('crew', 'worker');
    const start = (name: string, token: string) => {
      const worker = new WorkerProcess(name, [join(FIXTURES, 'mcp-worker.ts'), server.url, token, record, name]);
      workers.push(worker);
      return worker;
    };
    const revokedWorker = start('revoked', crew.first.token);
    const keptWorker = start('kept', crew.second.token);
    await Promise.all([revokedWorker.ready, keptWorker.ready]);
    await until(() => wardrik.workers.list().filter((worker) => worker.principal === 'crew').length === 2);

    await revokeThroughApi(crew.first.id);
    await until(
      () => wardrik.workers.list().filter((worker) => worker.principal === 'crew').length === 1,
      SLOW,
      () => `one worker of crew left; connected: ${JSON.stringify(wardrik.workers.list())}`,
    );
    // It was told why (close code 1008), reconnects, and is refused with the reason.
    await until(
      () => /lost \(code 1008: token revoked\)[\s\S]*closed: .*token revoked/.test(revokedWorker.stderr),
      SLOW,
      () => `the revoked worker to be refused; it said: ${revokedWorker.stderr}`,
    );
    expect(keptWorker.running).toBe(true);
    expect(wardrik.workers.list().filter((worker) => worker.principal === 'crew')).toHaveLength(1);
  });
});
