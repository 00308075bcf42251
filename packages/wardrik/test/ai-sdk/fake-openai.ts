/**
 * A local OpenAI-compatible server for the model tests: `POST /v1/chat/completions` speaking the
 * real chat-completions wire format, streamed as Server-Sent Events (`data: {chunk}` lines with
 * `delta.content` and `delta.tool_calls`, a last chunk with `usage`, then `data: [DONE]`), or an
 * error answer with OpenAI's error body. A reply can also go wrong the ways real streams do: a
 * malformed chunk, a stream that ends without its finish, a reset connection, a stall after the
 * headers. Each request is recorded; a handler decides the reply.
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

/** The parts of a chat-completions request the tests look at. */
export interface ChatBody {
  readonly model: string;
  readonly stream?: boolean;
  readonly messages: ReadonlyArray<{
    readonly role: 'system' | 'user' | 'assistant' | 'tool';
    readonly content?: string | null;
    readonly tool_call_id?: string;
    readonly tool_calls?: ReadonlyArray<{
      readonly id: string;
      readonly function: { name: string; arguments: string };
    }>;
  }>;
  readonly tools?: ReadonlyArray<{
    readonly type: 'function';
    readonly function: { readonly name: string; readonly description?: string; readonly parameters: unknown };
  }>;
}

export type ChatRequest = RecordedRequest<ChatBody>;

export interface StreamReply {
  /** Text pieces, each sent as its own chunk. */
  readonly text?: readonly string[];
  /** Awaited before each text piece is sent (a slow model). */
  readonly beforePiece?: () => Promise<void>;
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: unknown }>;
  readonly usage?: { readonly prompt: number; readonly completion: number; readonly cached?: number };
  /** Awaited after the text and tool call chunks are sent, before the finish chunk. */
  readonly beforeFinish?: () => Promise<void>;
  /** Default `tool_calls` when there are tool calls, else `stop`; `length` for a cut-off answer. */
  readonly finishReason?: 'stop' | 'tool_calls' | 'length';
  /**
   * Sent as is, as one `data:` line, after the text and tool call chunks (e.g. `{"choices": [` or a
   * chunk of the wrong shape); the stream then goes on as usual.
   */
  readonly malformed?: string;
  /** Where the finish chunk would be, the stream goes wrong this way instead (see {@link StreamCut}). */
  readonly cut?: StreamCut;
}

export type Reply =
  | { readonly stream: StreamReply }
  | { readonly status: number; readonly message: string; readonly headers?: Readonly<Record<string, string>> }
  /** Never answers (the connection stays open until the server closes). */
  | { readonly hold: true }
  /** Sends the headers of a streamed answer, then nothing (the connection stays open). */
  | { readonly stallAfterHeaders: true };

export type FakeOpenAI = RecordingServer<ChatBody>;

/** Starts the server on 127.0.0.1, on a free port. */
export function startFakeOpenAI(handler: (request: ChatRequest) => Reply | Promise<Reply>): Promise<FakeOpenAI> {
  return startRecordingServer<ChatBody>({
    path: '/v1/chat/completions',
    refuse: sendError,
    answer: async (request, response) => {
      const reply = await handler(request);
      if ('hold' in reply) return;
      if ('stallAfterHeaders' in reply) return stallAfterHeaders(response);
      if ('status' in reply) return sendError(response, reply.status, reply.message, reply.headers);
      await sendStream(response, request.body.model, reply.stream);
    },
  });
}

function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ error: { message, type, param: null, code: type } }));
}

async function sendStream(response: ServerResponse, model: string, reply: StreamReply): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const send = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
  const choice = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  send(choice({ role: 'assistant', content: '' }));
  for (const piece of reply.text ?? []) {
    await reply.beforePiece?.();
    if (response.destroyed) return; // the client went away
    send(choice({ content: piece }));
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const argumentsText = JSON.stringify(call.arguments);
    const half = Math.floor(argumentsText.length / 2);
    // The name first, then the arguments in two pieces, as OpenAI streams them.
    send(
      choice({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    send(choice({ tool_calls: [{ index, function: { arguments: argumentsText.slice(0, half) } }] }));
    send(choice({ tool_calls: [{ index, function: { arguments: argumentsText.slice(half) } }] }));
  }
  if (reply.malformed !== undefined) response.write(`data: ${reply.malformed}\n\n`);
  await reply.beforeFinish?.();
  if (reply.cut) return cutStream(response, reply.cut);
  send(choice({}, reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')));
  const usage = reply.usage ?? { prompt: 10, completion: 5 };
  send({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  });
  response.end('data: [DONE]\n\n');
}
