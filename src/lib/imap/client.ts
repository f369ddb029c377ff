import { connect } from "cloudflare:sockets";
import {
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_LITERAL_BYTES,
  DEFAULT_MAX_UNTAGGED,
  ImapError,
  ImapReader,
  type ImapResponse,
} from "./reader";

export { ImapError, type ImapResponse } from "./reader";

/**
 * A minimal IMAP4rev1 client (RFC 3501) over cloudflare:sockets: LOGIN, EXAMINE, UID SEARCH and
 * UID FETCH of BODY.PEEK[HEADER.FIELDS (...)] only. Responses are handled one at a time as they
 * arrive, so memory is bounded by the largest single response, not by the mailbox, and a single
 * response by the reader's limits (reader.ts).
 */

export type ImapOptions = {
  host: string;
  port: number;
  tls: boolean;
  /** Bound on connecting and on each wait for data (default 30 s). */
  timeoutMs?: number;
  maxLineBytes?: number;
  /** Bound on the literals of one response together (default 25 MiB). */
  maxLiteralBytes?: number;
  /** Bound on the untagged responses to one command, by count (default 10,000). */
  maxUntaggedPerCommand?: number;
  /** Bound on the bytes of the untagged responses to one command together (default: maxLiteralBytes). */
  maxUntaggedBytesPerCommand?: number;
  /** Sees every command line sent, with LOGIN arguments redacted. */
  trace?: (line: string) => void;
};

const CRLF = new Uint8Array([13, 10]);
const latin1 = new TextDecoder("latin1");
const utf8 = new TextEncoder();

/** RFC 3501 quoted string; CR, LF and NUL cannot be quoted and are refused by the caller's schema. */
export function quote(s: string): string {
  if (/[\r\n\0]/.test(s)) throw new ImapError("value cannot be sent to IMAP", "protocol");
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export class ImapClient {
  private reader: ImapReader;
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private tagNo = 0;
  private closed = false;

  private constructor(
    private socket: Socket,
    private opts: ImapOptions,
  ) {
    const stream = socket.readable.getReader();
    // A failed read (the socket reset or closed by us) is the end of the stream to the reader.
    const pull = () =>
      stream.read().then(
        (r) => r.value,
        () => undefined,
      );
    this.reader = new ImapReader(pull, {
      maxLineBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      maxLiteralBytes: opts.maxLiteralBytes ?? DEFAULT_MAX_LITERAL_BYTES,
      idleMs: opts.timeoutMs ?? DEFAULT_IDLE_MS,
    });
    this.writer = socket.writable.getWriter();
  }

  static async open(opts: ImapOptions): Promise<ImapClient> {
    let socket: Socket;
    try {
      socket = connect(
        { hostname: opts.host, port: opts.port },
        { secureTransport: opts.tls ? "on" : "off", allowHalfOpen: false },
      );
    } catch (err) {
      throw new ImapError(`cannot connect: ${String(err)}`, "connect");
    }
    const client = new ImapClient(socket, opts);
    try {
      await client.withTimeout(socket.opened);
      const greeting = await client.reader.readResponse();
      if (!/^\* (OK|PREAUTH)\b/i.test(greeting.text))
        throw new ImapError("server refused the connection", "connect");
    } catch (err) {
      await client.close();
      if (err instanceof ImapError) throw err;
      throw new ImapError("cannot connect to the IMAP server", "connect");
    }
    return client;
  }

  private async withTimeout<T>(p: Promise<T>): Promise<T> {
    const ms = this.opts.timeoutMs ?? DEFAULT_IDLE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ImapError("IMAP server timed out", "timeout")), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends a command and passes each untagged response to `onUntagged` as it arrives. A server may
   * send untagged data at any time (RFC 3501 section 7), so one that never sends the tagged
   * completion would keep a reset or scan reading for ever: the responses to one command are
   * bounded by count and by bytes together.
   */
  async command(cmd: string, onUntagged?: (r: ImapResponse) => void): Promise<string> {
    const tag = `A${++this.tagNo}`;
    const maxCount = this.opts.maxUntaggedPerCommand ?? DEFAULT_MAX_UNTAGGED;
    const maxBytes =
      this.opts.maxUntaggedBytesPerCommand ??
      this.opts.maxLiteralBytes ??
      DEFAULT_MAX_LITERAL_BYTES;
    let count = 0;
    let bytes = 0;
    this.opts.trace?.(/^LOGIN /i.test(cmd) ? "LOGIN <redacted>" : cmd);
    await this.writer.write(utf8.encode(`${tag} ${cmd}`));
    await this.writer.write(CRLF);
    for (;;) {
      const r = await this.reader.readResponse();
      if (r.text.startsWith(`${tag} `)) {
        const status = r.text.slice(tag.length + 1);
        if (/^OK\b/i.test(status)) return status;
        throw new ImapError(
          `command failed: ${status.slice(0, 200)}`,
          /^LOGIN /i.test(cmd) ? "auth" : "protocol",
        );
      }
      if (r.text.startsWith("+"))
        throw new ImapError("unexpected continuation request", "protocol");
      bytes += r.text.length + r.literals.reduce((n, l) => n + l.length, 0);
      if (++count > maxCount || bytes > maxBytes)
        throw new ImapError("IMAP server sent too many responses to one command", "too_large");
      onUntagged?.(r);
    }
  }

  async login(username: string, password: string): Promise<void> {
    await this.command(`LOGIN ${quote(username)} ${quote(password)}`);
  }

  /** EXAMINE: the read-only SELECT (RFC 3501 section 6.3.2), so no flag can change. */
  async examine(mailbox: string): Promise<number> {
    let exists = 0;
    await this.command(`EXAMINE ${quote(mailbox)}`, (r) => {
      const m = /^\* (\d+) EXISTS/i.exec(r.text);
      if (m) exists = Number(m[1]);
    });
    return exists;
  }

  async uidSearch(criteria: string): Promise<number[]> {
    const uids: number[] = [];
    await this.command(`UID SEARCH ${criteria}`, (r) => {
      if (/^\* SEARCH\b/i.test(r.text))
        for (const n of r.text.slice(8).trim().split(/\s+/)) if (n) uids.push(Number(n));
    });
    return uids;
  }

  /**
   * Fetches the named header fields only, with BODY.PEEK so \Seen is never set (RFC 3501 section
   * 6.4.5). Each message is handed to `onMessage` and dropped.
   */
  async fetchHeaderFields(
    uids: number[],
    fields: string[],
    onMessage: (uid: number, headers: string) => void,
    chunk = 500,
  ): Promise<void> {
    const sorted = [...uids].sort((a, b) => a - b);
    for (let i = 0; i < sorted.length; i += chunk) {
      const set = sequenceSet(sorted.slice(i, i + chunk));
      await this.command(
        `UID FETCH ${set} (UID BODY.PEEK[HEADER.FIELDS (${fields.join(" ")})])`,
        (r) => {
          if (!/^\* \d+ FETCH/i.test(r.text)) return;
          const uid = /\bUID (\d+)/i.exec(r.text);
          if (uid && r.literals[0]) onMessage(Number(uid[1]), latin1.decode(r.literals[0]));
        },
      );
    }
  }

  async logout(): Promise<void> {
    try {
      await this.command("LOGOUT");
    } catch {
      // The server may close before the tagged OK (RFC 3501 section 6.1.3); the session ends either way.
    }
    await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.socket.close();
    } catch {
      // Already closed by the peer.
    }
  }
}

/** Compresses sorted UIDs into an RFC 3501 sequence set: 1:3,7,9:12. */
export function sequenceSet(sorted: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}:${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** Unfolds header lines (RFC 5322 section 2.2.3) and returns the named field's value. */
export function headerValue(headers: string, name: string): string | null {
  const unfolded = headers.replace(/\r?\n[ \t]+/g, " ");
  const re = new RegExp(`^${name}:[ \\t]*(.*)$`, "im");
  const m = re.exec(unfolded);
  return m ? m[1].trim() : null;
}
