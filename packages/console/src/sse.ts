import { type Api, ApiError, type Problem } from './api';

/** One Server-Sent Event. */
export interface StreamEvent {
  readonly event: string;
  readonly id?: string;
  readonly data: string;
}

/** How a stream is followed. */
export interface FollowOptions {
  /** Called for each event. */
  readonly onEvent: (event: StreamEvent) => void;
  /** Called when the stream (re)connects, and when it breaks (with the error). */
  readonly onStatus?: (status: 'live' | 'reconnecting' | 'ended', error?: unknown) => void;
  /** The Last-Event-ID to resume after (updated as events with ids arrive). */
  readonly lastEventId?: string;
  /** Reconnect when the stream ends or breaks (not after a 4xx). Default true. */
  readonly reconnect?: boolean;
}

/**
 * Follows an event stream with fetch, so that the token goes in the Authorization header (an
 * EventSource cannot set headers, and a token must never be put in a URL). Reconnects with
 * Last-Event-ID after a break, backing off up to 5 s. Returns the function that stops it.
 */
export function followStream(api: Api, path: string, options: FollowOptions): () => void {
  const controller = new AbortController();
  let lastEventId = options.lastEventId;
  let delay = 250;
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const headers = api.headers({ accept: 'text/event-stream' });
        if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
        const response = await fetch(path, {
          headers,
          signal: controller.signal,
          cache: 'no-store',
          credentials: 'omit',
        });
        if (!response.ok || response.body === null) {
          const problem = (await response.json().catch(() => ({}))) as Problem;
          if (response.status === 401) api.onUnauthorized();
          throw new ApiError(response.status, problem);
        }
        delay = 250;
        options.onStatus?.('live');
        await readEvents(response.body, controller.signal, (event) => {
          if (event.id !== undefined) lastEventId = event.id;
          options.onEvent(event);
        });
        if (options.reconnect === false) {
          options.onStatus?.('ended');
          return;
        }
      } catch (thrown) {
        if (controller.signal.aborted) return;
        if (thrown instanceof ApiError && thrown.status >= 400 && thrown.status < 500 && thrown.status !== 429) {
          options.onStatus?.('ended', thrown);
          return;
        }
        options.onStatus?.('reconnecting', thrown);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  };
  void run();
  return () => controller.abort();
}

/** Reads `text/event-stream` from a body, calling `onEvent` for each event, until it ends. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onEvent: (event: StreamEvent) => void,
): Promise<void> {
  // Read bytes and decode here: a TextDecoderStream in between would add a stream hop per chunk.
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop);
  let buffer = '';
  let event = 'message';
  let id: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.search(/\r\n|\r|\n/);
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) onEvent({ event, data: data.join('\n'), ...(id === undefined ? {} : { id }) });
          event = 'message';
          id = undefined;
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = text;
          else if (field === 'data') data.push(text);
          else if (field === 'id') id = text;
        }
        newline = buffer.search(/\r\n|\r|\n/);
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
