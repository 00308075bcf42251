/*
 * Issue 11, item 12: a listing's limit counts only what the principal may see (an operator scoped to
 * some agents got [] for `?limit=1` while such runs existed). Item 11: a run's event stream ends once
 * the run has ended and everything after the cursor was sent, whatever the cursor.
 */
import { park, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, type RunEvent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath } from './helpers.js';

const held = tool({
  name: 'held',
  description: 'Waits for a person.',
  schema: {},
  run: () => park('a person decides'),
});
const parking = (name: string) =>
  defineAgent({
    name,
    instructions: '',
    tools: [held],
    model: new ScriptedModel(() => ({ toolCalls: [{ name: 'held', arguments: {} }] })),
  });
const talker = defineAgent({
  name: 'talker',
  instructions: '',
  model: new ScriptedModel(() => ({ text: 'hello', delayMs: 5 })),
});

let wardrik: Wardrik;
let server: RunningServer;
let scopedToken = '';

beforeAll(async () => {
  wardrik = await createWardrik({
    store: sqliteStore(tempDbPath()),
    agents: [parking('seen'), parking('unseen'), talker],
  });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0 });
  const operator = await auth.createPrincipal({ name: 'scoped', kind: 'user', role: 'operator', agents: ['seen'] });
  scopedToken = (await auth.issueToken(operator.id)).token;
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

async function get<T>(path: string): Promise<T> {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${scopedToken}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

describe('listings scoped to some agents (item 12)', () => {
  it('limit counts only the runs and parks of agents in scope, however many others are newer', async () => {
    const seen = await wardrik.run('seen', 'first');
    for (let index = 0; index < 5; index++) await wardrik.run('unseen', `later ${index}`);

    const { runs } = await get<{ runs: Array<{ id: string; agent: string }> }>('/v1/runs?limit=1');
    expect(runs.map((run) => run.id)).toEqual([seen.runId]);
    const { parks } = await get<{ parks: Array<{ runId: string }> }>('/v1/parks?limit=1&status=open');
    expect(parks.map((each) => each.runId)).toEqual([seen.runId]);

    expect(await wardrik.listRuns({ agents: ['seen'], limit: 1 })).toHaveLength(1);
    expect(await wardrik.listParks({ agents: ['seen'], limit: 1 })).toHaveLength(1);
    expect(await wardrik.listRuns({ agents: [] })).toEqual([]);
  });
});

describe('event streams end (item 11)', () => {
  async function collect(runId: string, afterSeq: number): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    for await (const event of wardrik.follow(runId, { afterSeq })) events.push(event);
    return events;
  }

  it('a cursor at the last seq of an ended run: nothing is left to send, so the stream ends at once', async () => {
    const { runId } = await wardrik.run('talker', 'hi');
    const journal = (await wardrik.getRun(runId)).journal;
    expect(await collect(runId, journal.length)).toEqual([]);
    expect((await collect(runId, journal.length - 1)).map((event) => event.type)).toEqual(['run-ended']);

    const response = await fetch(`${server.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${await adminToken()}`, 'last-event-id': String(journal.length) },
    });
    expect(await response.text()).toBe('');
  });

  it('a cursor beyond the seq of a live run: the stream ends when the run ends', async () => {
    const { runId } = await wardrik.start('talker', 'hi');
    const events = await collect(runId, 1_000);
    expect(events.filter((event) => event.type !== 'text-delta')).toEqual([]);
    expect((await wardrik.getRunSummary(runId)).status).toBe('completed');
  });
});

let admin: string | undefined;
async function adminToken(): Promise<string> {
  if (admin) return admin;
  const auth = new AuthService(wardrik.store);
  const principal = await auth.createPrincipal({ name: 'root', kind: 'user', role: 'admin', agents: ['*'] });
  admin = (await auth.issueToken(principal.id)).token;
  return admin;
}
