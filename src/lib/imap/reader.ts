/**
 * The receiving half of the IMAP client, kept apart so its bounds can be tested without a server.
 * Bytes are kept as the chunks they arrived in plus an offset, and the search for CRLF resumes
 * where the previous one stopped: each byte is copied once and scanned once, so a response costs
 * time linear in its size however it is split into packets. Every response is bounded: a line by
 * `maxLineBytes`, its literals together by `maxLiteralBytes`, and each wait for data by `idleMs`.
 */

export class ImapError extends Error {
  constructor(
    message: string,
    readonly kind: "connect" | "auth" | "protocol" | "timeout" | "too_large",
  ) {
    super(message);
  }
}

/** An untagged or tagged response: its text with literals cut out, and the literals in order. */
export type ImapResponse = { text: string; literals: Uint8Array[] };

export type ReaderLimits = { maxLineBytes: number; maxLiteralBytes: number; idleMs: number };

/** 64 KiB: far above any line a well-behaved server sends for our commands (RFC 7162 section 4 asks clients for at least 8 KB). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024;
/** 25 MiB: common providers' message size limit; we only ever fetch header fields. */
export const DEFAULT_MAX_LITERAL_BYTES = 25 * 1024 * 1024;
export const DEFAULT_IDLE_MS = 30_000;
/** Untagged responses to one command: a header fetch asks for 500 messages at a time, so 10,000 leaves room for any server's unsolicited updates. */
export const DEFAULT_MAX_UNTAGGED = 10_000;

const latin1 = new TextDecoder("latin1");

/** A FIFO of received chunks with a resumable CRLF scan. */
class ByteQueue {
  private chunks: Uint8Array[] = [];
  /** Index in `chunks` of the first chunk not wholly read (an index, not shift(): shift is linear). */
  private first = 0;
  /** Offset of the first unread byte in chunks[first]. */
  private head = 0;
  length = 0;
  /** Resumable scan: chunk index and offset of the next byte to look at, its logical index, and whether the byte before it was CR. */
  private scan = { ci: 0, off: 0, idx: 0, cr: false };

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** Logical index of the CR of the first CRLF, or -1 when the buffered bytes hold none yet. */
  findCrlf(): number {
    const s = this.scan;
    while (s.ci < this.chunks.length) {
      const c = this.chunks[s.ci];
      while (s.off < c.length) {
        const b = c[s.off++];
        s.idx++;
        if (b === 10 && s.cr) return s.idx - 2;
        s.cr = b === 13;
      }
      s.ci++;
      s.off = 0;
    }
    return -1;
  }

  /** Removes and returns the first n bytes (n <= length); the scan restarts at the new head. */
  take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[this.first];
      const k = Math.min(n - filled, c.length - this.head);
      out.set(c.subarray(this.head, this.head + k), filled);
      filled += k;
      this.head += k;
      if (this.head === c.length) {
        this.first++;
        this.head = 0;
      }
    }
    // Dropping the read chunks once they are half the array keeps this amortised linear.
    if (this.first > 64 && this.first * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
    this.length -= n;
    this.scan = { ci: this.first, off: this.head, idx: 0, cr: false };
    return out;
  }
}

export class ImapReader {
  private q = new ByteQueue();

  /** `pull` gives the next chunk, or undefined at the end of the stream. */
  constructor(
    private readonly pull: () => Promise<Uint8Array | undefined>,
    private readonly limits: ReaderLimits,
  ) {}

  /** Waits at most `idleMs` for data: a server that goes silent mid-response fails the read. */
  private async fill(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const pending = this.pull();
      // A read left behind by a timeout rejects when the socket is closed; nobody waits for it.
      pending.catch(() => {});
      const value = await Promise.race([
        pending,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new ImapError("IMAP server timed out", "timeout")),
            this.limits.idleMs,
          );
        }),
      ]);
      if (!value) throw new ImapError("connection closed by the server", "protocol");
      this.q.push(value);
    } finally {
      clearTimeout(timer);
    }
  }

  async readLine(): Promise<string> {
    for (;;) {
      const end = this.q.findCrlf();
      if (end > this.limits.maxLineBytes)
        throw new ImapError("IMAP response line too long", "too_large");
      if (end >= 0) {
        const line = latin1.decode(this.q.take(end));
        this.q.take(2);
        return line;
      }
      // No CRLF yet: refuse as soon as the partial line is longer than any line we accept.
      if (this.q.length > this.limits.maxLineBytes + 1)
        throw new ImapError("IMAP response line too long", "too_large");
      await this.fill();
    }
  }

  async readBytes(n: number): Promise<Uint8Array> {
    while (this.q.length < n) await this.fill();
    return this.q.take(n);
  }

  /**
   * Reads one complete response, following `{n}` literals (RFC 3501 section 4.3). A literal is
   * refused from its announced size, before any of it is read; the text between literals counts
   * against the line bound as one line.
   */
  async readResponse(): Promise<ImapResponse> {
    let text = "";
    let literalBytes = 0;
    const literals: Uint8Array[] = [];
    for (;;) {
      const line = await this.readLine();
      if (text.length + line.length > this.limits.maxLineBytes)
        throw new ImapError("IMAP response line too long", "too_large");
      const m = /\{(\d+)\+?\}$/.exec(line);
      if (!m) return { text: text + line, literals };
      literalBytes += Number(m[1]);
      if (!Number.isSafeInteger(literalBytes) || literalBytes > this.limits.maxLiteralBytes)
        throw new ImapError("IMAP literal too large", "too_large");
      text += line.slice(0, m.index) + `{${literals.length}}`;
      literals.push(await this.readBytes(Number(m[1])));
    }
  }
}
