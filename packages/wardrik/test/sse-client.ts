/** A Server-Sent Event as received. */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * Reads SSE events from a fetch response until `stop` returns true for one (inclusive) or the
 * stream ends. Parses the wire format by hand, as any client would.
 */
export async function readEvents(response: Response, stop: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        let id: string | undefined;
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length === 0) continue;
        const parsed: SseEvent = { ...(id === undefined ? {} : { id }), event, data: data.join('\n') };
        events.push(parsed);
        if (stop(parsed)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
