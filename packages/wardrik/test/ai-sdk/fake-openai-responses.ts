/**
 * A local OpenAI Responses API server for the model tests: `POST /v1/responses` speaking the real
 * wire format, streamed as Server-Sent Events (`response.created`, `response.output_item.added` for
 * a message, one `response.output_text.delta` per text piece, `response.output_item.done`, then
 * `response.completed` with the usage), or an error answer with OpenAI's error body. A reply can
 * also go wrong the ways real streams do: a malformed event, a stream that ends without
 * `response.completed`, a reset connection, a stall after the headers. Each request is recorded; a
 * handler decides the reply.
 */
import type { ServerResponse } from 'node:http';
import {
  cutStream,
  type RecordedRequest,
  type RecordingServer,
  type StreamCut,
  stallAfterHeaders,
  startRecordingServer,
} from './recording-server.js';

/** The parts of a Responses API request the tests look at. */
export interface ResponsesBody {
  readonly model: string;
  readonly stream?: boolean;
  readonly input: readonly unknown[];
}

export type ResponsesRequest = RecordedRequest<ResponsesBody>;

export interface StreamReply {
  /** Text pieces of one message, each sent as its own `response.output_text.delta`. */
  readonly text?: readonly string[];
  readonly usage?: { readonly input: number; readonly output: number };
  /** Awaited after the text deltas (and any malformed line) are sent, before the message ends. */
  readonly beforeFinish?: () => Promise<void>;
  /** Sent as is, as one `data:` line, after the text deltas; the stream then goes on. */
  readonly malformed?: string;
  /** After the text deltas, the stream goes wrong this way instead of finishing (see {@link StreamCut}). */
  readonly cut?: StreamCut;
}

export type Reply =
  | { readonly stream: StreamReply }
  | { readonly status: number; readonly message: string }
  /** Sends the headers of a streamed answer, then nothing (the connection stays open). */
  | { readonly stallAfterHeaders: true };

export type FakeOpenAIResponses = RecordingServer<ResponsesBody>;

/** Starts the server on 127.0.0.1, on a free port. */
export function startFakeOpenAIResponses(
  handler: (request: ResponsesRequest) => Reply | Promise<Reply>,
): Promise<FakeOpenAIResponses> {
  return startRecordingServer<ResponsesBody>({
    path: '/v1/responses',
    refuse: sendError,
    answer: async (request, response) => {
      const reply = await handler(request);
      if ('stallAfterHeaders' in reply) return stallAfterHeaders(response);
      if ('status' in reply) return sendError(response, reply.status, reply.message);
      await sendStream(response, request, reply.stream);
    },
  });
}

function sendError(response: ServerResponse, status: number, message: string) {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message, type, param: null, code: type } }));
}

async function sendStream(response: ServerResponse, request: ResponsesRequest, reply: StreamReply): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  const id = `resp_test_${request.index}`;
  const messageId = `msg_test_${request.index}`;
  const text = reply.text ?? [];
  send('response.created', {
    response: { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: request.body.model },
  });
  send('response.output_item.added', {
    output_index: 0,
    item: { type: 'message', id: messageId, status: 'in_progress', role: 'assistant', content: [] },
  });
  for (const delta of text) {
    send('response.output_text.delta', { item_id: messageId, output_index: 0, content_index: 0, delta });
  }
  if (reply.malformed !== undefined) response.write(`data: ${reply.malformed}\n\n`);
  await reply.beforeFinish?.();
  if (reply.cut) return cutStream(response, reply.cut);
  send('response.output_item.done', {
    output_index: 0,
    item: {
      type: 'message',
      id: messageId,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: text.join(''), annotations: [] }],
    },
  });
  const usage = reply.usage ?? { input: 10, output: 5 };
  send('response.completed', {
    response: {
      id,
      object: 'response',
      status: 'completed',
      model: request.body.model,
      incomplete_details: null,
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  });
  response.end();
}
