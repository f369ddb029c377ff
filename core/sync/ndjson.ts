/**
 * Reads a body of one JSON text per line (NDJSON) as it arrives: each complete line is parsed on
 * its own, so memory and the longest task follow the longest line, not the body. A last line
 * without its newline is left unparsed: the body was cut off there, and the caller sees that it
 * never received what ends the answer.
 */
export async function* jsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      // Only the new text can hold the next newline: the buffer before it had none.
      let from = buffered.length;
      buffered += decoder.decode(value, { stream: true });
      let start = 0;
      for (let nl = buffered.indexOf("\n", from); nl >= 0; nl = buffered.indexOf("\n", from)) {
        const line = buffered.slice(start, nl);
        start = from = nl + 1;
        if (line.trim()) yield JSON.parse(line);
      }
      buffered = buffered.slice(start);
    }
  } finally {
    // A caller that stops early (a bad line, a failed write) lets the rest of the body go.
    await reader.cancel().catch(() => undefined);
  }
}
