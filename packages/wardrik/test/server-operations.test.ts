/*
 * What an operator needs of the API (issue 29): the probes (/v1/live, /v1/ready through a node's
 * phases), new work refused while the node stops, event streams ended with a last node-stopping
 * event, purging runs (admins only) and exporting a run's journal as JSON lines that rebuild it.
 * Real server, real SQLite file.
 */
import { park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import type { StoredRecord } from '../src/journal/records.js';
import { rebuildState } from '../src/journal/state.js';
import { checkJournal } from '../src/journal/versions.js';
import { createWardrik } from '../src/runtime/wardrik.js';
import { NodeLifecycle } from '../src/server/node-lifecycle.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath, until } from './helpers.js';
import { SseReader } from './sse-client.js';

const hold = tool({
  name: 'hold',
  description: 'Waits for a person.',
  schema: {},
  run: (_args, context) => (context.approval ? { held: false } : park('a person must say go')),
});
const agent = defineAgent({
  name: 'support',
  instructions: 'Help.',
  model: new ScriptedModel(() => ({ text: 'done' })),
});
const holder = defineAgent({
  name: 'holder',
  instructions: 'Wait for a person.',
  tools: [hold],
  model: new ScriptedModel((request) =>
    request.step === 1 ? { toolCalls: [{ name: 'hold', arguments: {} }] } : { text: 'done' },
  ),
});

let wardrik: Wardrik;
let server: RunningServer;
let lifecycle: NodeLifecycle;
const tokens: Record<string, string> = {};

async function api(path: string, options: { token?: string; method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json:
      text && response.headers.get('content-type')?.includes('json') && !text.includes('\n{')
        ? JSON.parse(text)
        : undefined,
  };
}

beforeAll(async () => {
  wardrik = await createWardrik({ store: sqliteStore(tempDbPath()), agents: [agent, holder], recover: false });
  const auth = new AuthService(wardrik.store);
  lifecycle = new NodeLifecycle('starting');
  server = await startServer({ wardrik, auth, port: 0, lifecycle, heartbeatMs: 60_000 });
  tokens.admin = (await auth.ensureAdmin())?.token ?? '';
  for (const [name, role] of [
    ['operator', 'operator'],
    ['alice', 'user'],
    ['bob', 'user'],
  ] as const) {
    const principal = await auth.createPrincipal({ name, role, kind: 'user', agents: ['*'] });
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
});
afterAll(async () => {
  await server.close();
  await wardrik.close();
});

describe('probes', () => {
  it('live answers at once; ready only once the node has recovered, and not once it stops', async () => {
    expect((await api('/v1/live')).status).toBe(200);
    const starting = await api('/v1/ready');
    expect(starting.status).toBe(503);
    expect(starting.json).toMatchObject({ title: 'Not ready', detail: expect.stringMatching(/^starting/) });
    await wardrik.recover();
    lifecycle.ready();
    expect(await api('/v1/ready')).toMatchObject({ status: 200, json: { status: 'ready' } });
  });
});

describe('runs purge and export', () => {
  it('exports a run as JSON lines: its row and parks first, then each record, enough to rebuild it', async () => {
    const started = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'holder', input: 'please hold', wait: true },
    });
    expect(started.json).toMatchObject({ status: 'parked' });
    const runId = started.json.runId as string;
    const exported = await api(`/v1/runs/${runId}/export`, { token: tokens.alice });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const [header, ...lines] = exported.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({ format: 'wardrik-run-export', version: 1, run: { id: runId, status: 'parked' } });
    expect(header.parks).toEqual([expect.objectContaining({ runId, status: 'open', kind: 'tool' })]);
    const journal: StoredRecord[] = lines.map((line) => ({ runId, seq: line.seq, record: line.record }));
    expect(journal.map((stored) => stored.seq)).toEqual(journal.map((_, index) => index + 1));
    const rebuilt = rebuildState(runId, checkJournal(runId, journal));
    expect({ status: rebuilt.status, labels: rebuilt.labels, steps: rebuilt.steps }).toEqual({
      status: 'parked',
      labels: header.run.labels,
      steps: 1,
    });
    // Another user may not read it, nor export it.
    expect((await api(`/v1/runs/${runId}/export`, { token: tokens.bob })).status).toBe(403);
    expect((await api('/v1/runs/run_nope/export', { token: tokens.admin })).status).toBe(404);
  });

  it('purges ended runs before a time for admins only; never a parked run unless asked, nor one that is running', async () => {
    const ended = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'support', input: 'hello', wait: true },
    });
    expect(ended.json).toMatchObject({ status: 'completed' });
    const later = new Date(Date.now() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));

    const refused = await api('/v1/runs/purge', {
      token: tokens.operator,
      body: { before: later, statuses: ['completed'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toMatch(/purging runs is for admins only; operator has role operator/);
    const bad = await api('/v1/runs/purge', {
      token: tokens.admin,
      body: { before: 'yesterday', statuses: ['running'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/body\.before/);
    expect(bad.json.detail).toMatch(/body\.statuses\.0/);

    const purged = await api('/v1/runs/purge', {
      token: tokens.admin,
      body: { before: later, statuses: ['completed'] },
    });
    expect(purged.json).toMatchObject({ statuses: ['completed'], purged: { runs: 1, journalRecords: 3 } });
    expect((await api(`/v1/runs/${ended.json.runId}`, { token: tokens.admin })).status).toBe(404);
    const left = await api('/v1/runs', { token: tokens.admin });
    expect(left.json.runs.map((run: { status: string }) => run.status)).toEqual(['parked']);
    const future = await api('/v1/runs/purge', {
      token: tokens.admin,
      body: { before: Date.now() + 60_000, statuses: ['parked'] },
    });
    expect(future.status).toBe(400);
    expect(future.json.detail).toMatch(/is in the future/);
  });
});

describe('stopping', () => {
  it('ends event streams with a last node-stopping event, refuses new runs (503, Retry-After), and is not ready', async () => {
    const started = await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'holder', input: 'hold on', wait: true },
    });
    const response = await fetch(`${server.url}/v1/runs/${started.json.runId}/events`, {
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    const events = new SseReader(response);
    await events.until((event) => event.event === 'run-parked');

    lifecycle.stopping();
    expect((await api('/v1/ready')).json).toMatchObject({ detail: expect.stringMatching(/^stopping/) });
    await wardrik.drain({ graceMs: 1_000 });
    const refused = await api('/v1/runs', { token: tokens.alice, body: { agent: 'support', input: 'more' } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.json).toMatchObject({
      title: 'Node stopping',
      detail: expect.stringMatching(/this node is stopping/),
    });

    expect(await lifecycle.closeStreams()).toBe(1);
    const last = await events.until(() => false);
    expect(events.ended).toBe(true);
    expect(last.map((event) => event.event)).toEqual(['node-stopping']);
    expect(JSON.parse(last[0]?.data ?? '{}')).toMatchObject({ type: 'node-stopping' });
    await until(() => lifecycle.openStreams === 0);
  });
});
