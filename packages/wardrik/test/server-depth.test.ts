/*
 * JSON bodies nested deeper than MAX_JSON_DEPTH get a 400 naming the limit and the field, over
 * real HTTP, and the server keeps serving. Before the limit, ~4,200 levels in a park's answer or
 * edit went through to the store, whose JSON.stringify overflowed the stack: a 500.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_JSON_DEPTH, ok, park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';

const refund = tool({
  name: 'refund',
  description: 'Refund; a person says how it went.',
  schema: { amount: { type: 'number', required: true } },
  run: ({ amount }, context) => (context.approval ? ok({ refunded: amount }) : park('needs a person')),
});
const wipe = tool({
  name: 'wipe',
  description: 'Wipe a disk (destructive: always gated).',
  schema: { disk: { type: 'string', required: true } },
  annotations: { destructive: true },
  run: (args) => ok({ wiped: args }),
});
const agent = defineAgent({
  name: 'ops',
  instructions: '',
  tools: [refund, wipe],
  model: new ScriptedModel((request) => {
    const input = request.messages[0]?.role === 'user' ? request.messages[0].content : '';
    if (request.step > 1) return { text: 'done' };
    return { toolCalls: [{ name: input, arguments: input === 'wipe' ? { disk: 'a' } : { amount: 5 } }] };
  }),
});

let wardrik: Wardrik;
let server: RunningServer;
let token: string;

beforeAll(async () => {
  wardrik = await createWardrik({
    store: sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-depth-')), 'wardrik.db')),
    agents: [agent],
  });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0 });
  token = (await auth.ensureAdmin())?.token ?? '';
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

/** An open park of a new run of the tool `name`. */
async function openPark(name: 'refund' | 'wipe') {
  const { runId } = await wardrik.start('ops', name);
  await wardrik.wait(runId);
  const [open] = await wardrik.listParks({ runId, status: 'open' });
  if (!open) throw new Error(`run ${runId} did not park`);
  return open;
}

/** Posts raw JSON text. */
async function post(path: string, text: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', json: await response.json() };
}

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('JSON depth limit', () => {
  it("refuses a park's answer value nested 4,200 levels (8 KB) with a 400 naming the limit and the field", async () => {
    const held = await openPark('refund');
    const text = `{"decision":{"type":"answer","value":${nested(4200)}},"callHash":"${held.callHash}"}`;
    expect(text.length).toBeLessThan(9 * 1024);
    const refused = await post(`/v1/parks/${held.id}/answer`, text);
    expect(refused.status).toBe(400);
    expect(refused.type).toContain('application/problem+json');
    expect(refused.json.detail).toBe(
      `body.decision.value: nests deeper than ${MAX_JSON_DEPTH} levels, the most a JSON body may (the body itself is level 1)`,
    );
    expect(refused.json.errors).toEqual([{ path: 'body.decision.value', message: expect.stringContaining('64') }]);

    // Nothing was taken: the park still answers, and the run ends.
    const answered = await post(
      `/v1/parks/${held.id}/answer`,
      JSON.stringify({ decision: { type: 'answer', value: { refunded: 5 } }, callHash: held.callHash }),
    );
    expect(answered.status).toBe(200);
    expect((await wardrik.wait(held.runId)).status).toBe('completed');
  });

  it('refuses edited arguments nested too deep, naming the argument', async () => {
    const held = await openPark('wipe');
    const deep = `{"disk":{"inner":${nested(4200)}}}`;
    const refused = await post(
      `/v1/parks/${held.id}/answer`,
      `{"decision":{"type":"edit","arguments":${deep}},"callHash":"${held.callHash}"}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].path).toBe('body.decision.arguments.disk.inner');
    const approved = await post(
      `/v1/parks/${held.id}/answer`,
      JSON.stringify({ decision: { type: 'edit', arguments: { disk: 'b' } }, callHash: held.callHash }),
    );
    expect(approved.status).toBe(200);
    expect((await wardrik.wait(held.runId)).status).toBe('completed');
  });

  it('takes a body exactly at the limit, refuses one level more, and names a long path shortened', async () => {
    const held = await openPark('refund');
    // The body is level 1, decision 2, value 3: a value of 62 array levels brings the body to 64.
    const atLimit = `{"decision":{"type":"answer","value":${nested(MAX_JSON_DEPTH - 2)}},"callHash":"${held.callHash}"}`;
    const overLimit = `{"decision":{"type":"answer","value":${nested(MAX_JSON_DEPTH - 1)}},"callHash":"${held.callHash}"}`;
    expect((await post(`/v1/parks/${held.id}/answer`, overLimit)).status).toBe(400);
    expect((await post(`/v1/parks/${held.id}/answer`, atLimit)).status).toBe(200);

    const keys = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    const long = await post('/v1/runs', `{"agent":"ops","input":"refund","budget":${keys}}`);
    expect(long.status).toBe(400);
    expect(long.json.errors[0].path).toBe('body.budget.a.a.a.a.a.a.a.…');

    const started = await post('/v1/runs', JSON.stringify({ agent: 'ops', input: 'refund' }));
    expect(started.status).toBe(201);
  });
});
