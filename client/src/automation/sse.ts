/**
 * Server-sent events read over fetch (ApiClient.stream): EventSource cannot POST, send the CSRF
 * header, or tell a stream the server ended on purpose from a dropped one. Frames follow the SSE
 * format: `event:` and `data:` lines, a blank line between frames.
 */
import { sseEvents, type SseEvent } from "../../../src/kernel/sse";

export type SseFrame = SseEvent;

/** The frames of a stream as they arrive (the kernel's one SSE reader); ends when the server closes it. */
export const frames: (body: ReadableStream<Uint8Array>) => AsyncGenerator<SseFrame> = sseEvents;
