/**
 * Server-sent events read over fetch (ApiClient.stream): EventSource cannot POST, send the CSRF
 * header, or tell a stream the server ended on purpose from a dropped one. Frames follow the SSE
 * format: `event:` and `data:` lines, a blank line between frames.
 */
export type SseFrame = { event: string; data: string };

/** The frames of a stream as they arrive; ends when the server closes it. */
export async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const chunk = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: ?(.*)$/m.exec(chunk)?.[1] ?? "message";
        const data = [...chunk.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join("\n");
        yield { event, data };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
