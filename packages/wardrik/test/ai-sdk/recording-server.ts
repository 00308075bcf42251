/**
 * The part the fake provider servers share: a local HTTP server on 127.0.0.1 (a free port) that
 * takes `POST` JSON requests on one path, records each, and lets the fake answer it. Other routes,
 * and a fake that throws, get the fake's own error body (404, 500).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server got, with its parsed JSON body. */
export interface RecordedRequest<Body> {
  /** 1 for the first request the server got. */
  readonly index: number;
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Body;
  /**
   * Settles when the connection of this request closes: `complete` once the whole answer was
   * sent, `unfinished` if it closed before (the client aborted, or the fake cut it).
   */
  readonly ended: Promise<'complete' | 'unfinished'>;
}

export interface RecordingServer<Body> {
  /** The base URL to give a provider, ending in `/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest<Body>[];
  close(): Promise<void>;
}

/** How a fake answers: `answer` writes the reply to a recorded request, `refuse` an error body. */
export interface FakeProvider<Body> {
  /** The one route, e.g. `/v1/messages`. */
  readonly path: string;
  answer(request: RecordedRequest<Body>, response: ServerResponse): Promise<void>;
  refuse(response: ServerResponse, status: number, message: string): void;
}

export async function startRecordingServer<Body>(fake: FakeProvider<Body>): Promise<RecordingServer<Body>> {
  const requests: RecordedRequest<Body>[] = [];
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    if (incoming.method !== 'POST' || incoming.url !== fake.path) {
      return fake.refuse(response, 404, `no route ${incoming.method} ${incoming.url}`);
    }
    const request: RecordedRequest<Body> = {
      index: requests.length + 1,
      at: Date.now(),
      headers: incoming.headers,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body,
      ended: new Promise((resolve) =>
        response.once('close', () => resolve(response.writableFinished ? 'complete' : 'unfinished')),
      ),
    };
    requests.push(request);
    try {
      await fake.answer(request, response);
    } catch (thrown) {
      fake.refuse(response, 500, `fake server: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * How a fake stream can go wrong instead of finishing:
 * - `end`: the response ends cleanly, without the provider's finish (no finish reason, no
 *   `[DONE]`, no `message_stop`);
 * - `reset`: the socket is reset (TCP RST), as a proxy or a crashed server does: the client reads
 *   `ECONNRESET` mid-answer;
 * - `stall`: nothing more is written, and the connection stays open until the server closes.
 */
export type StreamCut = 'end' | 'reset' | 'stall';

/** Ends (or doesn't end) a streamed response the way `cut` says. */
export function cutStream(response: ServerResponse, cut: StreamCut): void {
  if (cut === 'end') response.end();
  else if (cut === 'reset') response.socket?.resetAndDestroy();
}

/** Sends the headers of an SSE answer, then nothing more: a provider that stalls after its headers. */
export function stallAfterHeaders(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
}
