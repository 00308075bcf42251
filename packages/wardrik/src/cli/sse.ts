/** One Server-Sent Events message. */
export interface SseMessage {
  readonly id?: string;
  /** `message` when the server named none. */
  readonly event: string;
  readonly data: string;
}

/**
 * Reads Server-Sent Events from a fetch body, as the HTML standard says: `data` lines joined,
 * `event` and `id` fields, comments (`:` lines) skipped, any line ending.
 *
 * @example
 * ```ts
 * for await (const message of readSse(response.body)) console.log(message.event, JSON.parse(message.data))
 * ```
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (end === -1 || (end === buffer.length - 1 && buffer[end] === '\r')) break;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (data.length > 0)
          yield { ...(id === undefined ? {} : { id }), event: event || 'message', data: data.join('\n') };
        data = [];
        event = '';
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id' && !value.includes('\0')) id = value;
    }
  }
}
