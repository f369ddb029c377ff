/**
 * A server-sent events response (text/event-stream). `x-accel-buffering: no` keeps buffering
 * proxies from holding events back; `no-store` because every stream is one user's live state.
 */
export function sseResponse(body: ReadableStream<Uint8Array> | null): Response {
  return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" } });
}
