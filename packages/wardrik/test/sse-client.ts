/** A Server-Sent Event as received. */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * Reads a fetch response's SSE events in as many steps as the test needs, parsing the wire format
 * by hand, as any client would. Counts comment blocks (the server's heartbeats) too.
 */
export class SseReader {
  /** Comment blocks received (`: keep-alive`). */
  comments = 0;
  /** Whether the server ended the stream. */
  ended = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(response: Response) {
    this.#reader = (response.body as ReadableStream<Uint8Array>).getReader();
  }

  /**
   * Events until `stop` returns true for one (inclusive), until `comments` comment blocks were
   * received in all if given, or until the stream ends (then `ended` is set).
   */
  async until(stop: (event: SseEvent) => boolean, options: { comments?: number } = {}): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (;;) {
      for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const parsed = this.#parse(block);
        if (parsed === undefined) {
          if (options.comments !== undefined && this.comments >= options.comments) return events;
          continue;
        }
        events.push(parsed);
        if (stop(parsed)) return events;
      }
      const { value, done } = await this.#reader.read();
      if (done) {
        this.ended = true;
        return events;
      }
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Stops reading (the connection closes). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #parse(block: string): SseEvent | undefined {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) {
      if (block.startsWith(':')) this.comments += 1;
      return undefined;
    }
    return { ...(id === undefined ? {} : { id }), event, data: data.join('\n') };
  }
}

/**
 * Reads SSE events from a fetch response until `stop` returns true for one (inclusive) or the
 * stream ends, then stops reading.
 */
export async function readEvents(response: Response, stop: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const reader = new SseReader(response);
  try {
    return await reader.until(stop);
  } finally {
    await reader.cancel();
  }
}
