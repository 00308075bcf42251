/**
 * A local Anthropic server for the model tests: `POST /v1/messages` speaking the real Messages API
 * wire format, streamed as Server-Sent Events (`event: message_start` with the input usage, a
 * `ping`, then per content block `content_block_start` / `content_block_delta` (`text_delta`, or
 * `input_json_delta` pieces of a `tool_use` block's input) / `content_block_stop`, then
 * `message_delta` with the `stop_reason` and output tokens, and `message_stop`), or an error answer
 * with Anthropic's error body. A reply can also go wrong the ways real streams do: a malformed
 * event, a stream that ends without `message_delta` and `message_stop`, a reset connection, a stall
 * after the headers. Each request is recorded; a handler decides the reply.
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

/** A content block of a request message, as the provider writes them. */
export type RequestBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly type: 'tool_result'; readonly tool_use_id: string; readonly content: string; readonly is_error?: true };

/** The parts of a Messages API request the tests look at. */
export interface MessagesBody {
  readonly model: string;
  readonly max_tokens: number;
  readonly stream?: boolean;
  readonly system?: ReadonlyArray<{ readonly type: 'text'; readonly text: string }>;
  readonly messages: ReadonlyArray<{
    readonly role: 'user' | 'assistant';
    readonly content: string | readonly RequestBlock[];
  }>;
  readonly tools?: ReadonlyArray<{
    readonly name: string;
    readonly description?: string;
    readonly input_schema: unknown;
  }>;
}

export type MessagesRequest = RecordedRequest<MessagesBody>;

/** Token counts as Anthropic reports them: `input` excludes the cache reads and writes. */
export interface AnthropicUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

export interface StreamReply {
  /** Text pieces of one text block, each sent as its own `text_delta`. */
  readonly text?: readonly string[];
  readonly toolUses?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: unknown }>;
  readonly usage?: AnthropicUsage;
  /** Awaited after the text deltas are sent, before the text block (and the message) ends. */
  readonly beforeFinish?: () => Promise<void>;
  /** Ends the stream after `message_start` with an `error` event, as Anthropic does when overloaded. */
  readonly error?: { readonly type: string; readonly message: string };
  /** Default `tool_use` when there are tool uses, else `end_turn`; `max_tokens` for a cut-off answer. */
  readonly stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /** Sent as is, as the `data:` of one `content_block_delta` event, after the text deltas; the stream then goes on. */
  readonly malformed?: string;
  /** After the text deltas, the stream goes wrong this way instead of finishing (see {@link StreamCut}). */
  readonly cut?: StreamCut;
  /** Makes the `cut` come later: once `message_delta` (with the stop reason) is sent, so only `message_stop` is missing. */
  readonly cutAfterMessageDelta?: boolean;
}

export type Reply =
  | { readonly stream: StreamReply }
  | { readonly status: number; readonly message: string; readonly headers?: Readonly<Record<string, string>> }
  /** Sends the headers of a streamed answer, then nothing (the connection stays open). */
  | { readonly stallAfterHeaders: true };

export type FakeAnthropic = RecordingServer<MessagesBody>;

/** Starts the server on 127.0.0.1, on a free port. */
export function startFakeAnthropic(
  handler: (request: MessagesRequest) => Reply | Promise<Reply>,
): Promise<FakeAnthropic> {
  return startRecordingServer<MessagesBody>({
    path: '/v1/messages',
    refuse: sendError,
    answer: async (request, response) => {
      const reply = await handler(request);
      if ('stallAfterHeaders' in reply) return stallAfterHeaders(response);
      if ('status' in reply) return sendError(response, reply.status, reply.message, reply.headers);
      await sendStream(response, request, reply.stream);
    },
  });
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_test', ...headers });
  response.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

async function sendStream(response: ServerResponse, request: MessagesRequest, reply: StreamReply): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': 'req_test',
  });
  const send = (event: string, data: Record<string, unknown>) =>
    response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const usage = reply.usage ?? { input: 10, output: 5 };
  send('message_start', {
    message: {
      id: `msg_test_${request.index}`,
      type: 'message',
      role: 'assistant',
      content: [],
      model: request.body.model,
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite ?? 0,
        cache_read_input_tokens: usage.cacheRead ?? 0,
        output_tokens: 1,
      },
    },
  });
  send('ping', {});
  if (reply.error) {
    send('error', { error: reply.error });
    response.end();
    return;
  }
  let index = 0;
  if (reply.text) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const text of reply.text) send('content_block_delta', { index, delta: { type: 'text_delta', text } });
  }
  if (reply.malformed !== undefined) response.write(`event: content_block_delta\ndata: ${reply.malformed}\n\n`);
  await reply.beforeFinish?.();
  if (reply.cut && !reply.cutAfterMessageDelta) return cutStream(response, reply.cut);
  if (reply.text) send('content_block_stop', { index: index++ });
  for (const use of reply.toolUses ?? []) {
    // The block opens with an empty input, then the input's JSON arrives in pieces, as Anthropic streams it.
    send('content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
    const json = JSON.stringify(use.input);
    const half = Math.floor(json.length / 2);
    for (const partial_json of ['', json.slice(0, half), json.slice(half)]) {
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    send('content_block_stop', { index: index++ });
  }
  send('message_delta', {
    delta: { stop_reason: reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn'), stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  if (reply.cut) return cutStream(response, reply.cut);
  send('message_stop', {});
  response.end();
}
