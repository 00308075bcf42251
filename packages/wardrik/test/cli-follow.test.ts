/*
 * How the CLI follows a run (src/cli/follow.ts, sse.ts), against a fake server that drops the
 * event stream: resumption with Last-Event-ID, and stopping only once a parked run has nothing
 * else running.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WardrikClient } from '../src/cli/client.js';
import { followRun } from '../src/cli/follow.js';
import { readSse } from '../src/cli/sse.js';
import type { JournalRecord } from '../src/journal/records.js';
import type { RunEvent } from '../src/runtime/events.js';

const RUN = 'run_1';
const at = 0;
const v = 1;

function frame(seq: number, record: JournalRecord): string {
  return `id: ${seq}\r\nevent: ${record.type}\r\ndata: ${JSON.stringify({ runId: RUN, seq, type: record.type, record })}\r\n\r\n`;
}

const started: JournalRecord = {
  v,
  at,
  type: 'run-started',
  agent: 'a',
  principal: 'p',
  input: 'hi',
  budget: {},
  maxSteps: 5,
};
const step = (callIds: string[]): JournalRecord => ({
  v,
  at,
  type: 'model-step',
  step: 1,
  model: 'scripted',
  text: 'working',
  toolCalls: callIds.map((callId) => ({ callId, name: 'tool', arguments: {} })),
  usage: { inputTokens: 1, outputTokens: 1 },
  measures: {},
});
const ended: JournalRecord = {
  v,
  at,
  type: 'run-ended',
  status: 'completed',
  output: 'done',
  labels: [],
  measures: {},
};
const park = {
  id: 'park_1',
  runId: RUN,
  kind: 'tool' as const,
  reason: 'needs a person',
  call: { callId: 'c1.0', name: 'tool', arguments: {}, idempotencyKey: 'k' },
  labels: [],
  callHash: 'h',
  createdAt: 0,
};

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<WardrikClient> {
  server = createServer(handle);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new WardrikClient({ url: `http://127.0.0.1:${port}`, token: 'wdk_test', tokenSource: '--token' });
}

function openStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(': hello\n\n');
}

describe('following a run from the CLI', () => {
  it('resumes a dropped event stream with Last-Event-ID, losing and repeating nothing', async () => {
    const lastEventIds: Array<string | undefined> = [];
    const client = await serve((request, response) => {
      lastEventIds.push(request.headers['last-event-id'] as string | undefined);
      openStream(response);
      if (lastEventIds.length === 1) {
        response.write(frame(1, started));
        // Half of the next frame, then the connection drops.
        response.write(frame(2, step([])).slice(0, 30), () => response.socket?.destroy());
        return;
      }
      // The server replays from after the id it was given; one record again, to be skipped.
      response.write(frame(1, started));
      response.write(frame(2, step([])));
      response.end(frame(3, ended));
    });
    const seen: RunEvent[] = [];
    const end = await followRun({ client, runId: RUN, onEvent: (event) => seen.push(event) });
    expect(end).toMatchObject({ type: 'ended', record: { status: 'completed', output: 'done' } });
    expect(lastEventIds).toEqual([undefined, '1']);
    expect(seen.map((event) => (event.type === 'text-delta' ? -1 : event.seq))).toEqual([1, 2, 3]);
  });

  it('stops at a park only once the other calls of the step have answered', async () => {
    let parkLookups = 0;
    const client = await serve((request, response) => {
      if (request.url?.startsWith('/v1/parks')) {
        parkLookups += 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ parks: [{ ...park, status: 'open' }] }));
        return;
      }
      openStream(response);
      response.write(frame(1, started));
      response.write(frame(2, step(['c1.0', 'c1.1'])));
      response.write(frame(3, { v, at, type: 'run-parked', park }));
      setTimeout(() => {
        const answer = { type: 'ok' as const, value: 1, labels: [], measures: {} };
        response.write(frame(4, { v, at, type: 'call-answered', callId: 'c1.1', answer, attempts: 1 }));
      }, 50);
    });
    const seen: string[] = [];
    const end = await followRun({ client, runId: RUN, onEvent: (event) => seen.push(event.type) });
    expect(end).toMatchObject({ type: 'parked', parks: [{ id: 'park_1' }] });
    expect(seen).toEqual(['run-started', 'model-step', 'run-parked', 'call-answered']);
    expect(parkLookups).toBe(1);
  });

  it('gives up on a server that stays away with exit code 4, naming the URL', async () => {
    const client = await serve((_request, response) => response.socket?.destroy());
    await expect(followRun({ client, runId: RUN, onEvent: () => {}, reconnectForMs: 300 })).rejects.toMatchObject({
      exitCode: 4,
      message: expect.stringContaining(`cannot reach the Wardrik server at ${client.url}`),
    });
  });

  it('reads SSE with any line ending, multi-line data, comments and chunks split anywhere', async () => {
    const text = ': comment\nid: 7\nevent: one\ndata: a\ndata: b\n\r\ndata: c\r\r\nevent: empty\n\n';
    const encoded = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < encoded.length; index += 3) controller.enqueue(encoded.slice(index, index + 3));
        controller.close();
      },
    });
    const messages = [];
    for await (const message of readSse(body)) messages.push(message);
    expect(messages).toEqual([
      { id: '7', event: 'one', data: 'a\nb' },
      { id: '7', event: 'message', data: 'c' },
    ]);
  });
});
