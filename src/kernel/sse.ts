/**
 * Server-sent events (WHATWG HTML §9.2): one framing and one parser for the worker's streams, the
 * web client and the tests, and the task statuses after which a progress stream closes.
 */
export const TERMINAL_TASK_STATUSES: ReadonlySet<string> = new Set([
  "completed",
  "failed",
  "cancelled",
]);

/** One event: an optional `event:` line and one `data:` line (line breaks in `data` are flattened). */
export function sseFrame(event: string | null, data: string): string {
  const line = data.replace(/[\r\n]+/g, " ");
  return event ? `event: ${event}\ndata: ${line}\n\n` : `data: ${line}\n\n`;
}

/** An event whose data is JSON. */
export const sseJsonFrame = (event: string, data: unknown) => sseFrame(event, JSON.stringify(data));

export type SseEvent = { event: string; data: string };

/** Splits complete events off a buffer; `rest` is the unfinished tail to prepend to the next chunk. */
export function parseSse(buffer: string): { events: SseEvent[]; rest: string } {
  const chunks = buffer.replace(/\r\n/g, "\n").split("\n\n");
  const rest = chunks.pop() ?? "";
  const events: SseEvent[] = [];
  for (const chunk of chunks) {
    if (!chunk.trim()) continue;
    let event = "message";
    const data: string[] = [];
    for (const line of chunk.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    events.push({ event, data: data.join("\n") });
  }
  return { events, rest };
}

/** The events of a stream as they arrive; the stream is cancelled when the reader stops early. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const { events, rest } = parseSse(buf + dec.decode(value, { stream: true }));
      buf = rest;
      yield* events;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * A server-sent events response (text/event-stream). `x-accel-buffering: no` keeps buffering
 * proxies from holding events back; `no-store` because every stream is one user's live state.
 */
export function sseResponse(body: ReadableStream<Uint8Array> | null): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}
