/**
 * Server-sent events read over fetch (ApiClient.stream): EventSource cannot POST, send the CSRF
 * header, or tell a stream the server ended on purpose from a dropped one. Frames follow the SSE
 * format: `event:` and `data:` lines, a blank line between frames.
 */
import { parseSse, type SseEvent } from "../../../src/kernel/sse";

export type SseFrame = SseEvent;

/** The frames of a stream as they arrive (the kernel's one SSE parser); ends when the server closes it. */
export async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
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
