import { connect } from "cloudflare:sockets";
import { concatBytes } from "../kernel/bytes";

/**
 * A plain-HTTP GET sent to an address already checked by the outbound guard, with the URL's name
 * only in the Host header (RFC 9112 section 3.2). `fetch` would resolve the name again, and a name
 * whose second answer is private (DNS rebinding) would be reached; a socket to the pinned address
 * cannot be redirected. Only what sign-in discovery needs: one request, `Connection: close`, a
 * Content-Length, chunked or read-to-close body, all bounded in bytes and time.
 */

export type PinnedSocket = {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  close(): Promise<void>;
};
export type Dial = (address: string, port: number) => PinnedSocket;

const dialSocket: Dial = (address, port) =>
  connect({ hostname: address, port }, { secureTransport: "off", allowHalfOpen: false });

const MAX_HEAD_BYTES = 64 * 1024;
const CRLFCRLF = [13, 10, 13, 10];
const latin1 = new TextDecoder("latin1");

export class PinnedHttpError extends Error {}

export async function pinnedGet(
  url: URL,
  address: string,
  opts: { headers: Record<string, string>; timeoutMs: number; maxBodyBytes: number; dial?: Dial },
): Promise<Response> {
  if (url.protocol !== "http:") throw new PinnedHttpError("only http is sent over a pinned socket");
  const port = Number(url.port || 80);
  const socket = (opts.dial ?? dialSocket)(address, port);
  const deadline = Date.now() + opts.timeoutMs;
  const reader = socket.readable.getReader();
  try {
    const writer = socket.writable.getWriter();
    const lines = [
      `GET ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      ...Object.entries(opts.headers).map(([k, v]) => `${k}: ${v.replace(/[\r\n]/g, "")}`),
      "Accept-Encoding: identity",
      "Connection: close",
      "",
      "",
    ];
    await within(writer.write(new TextEncoder().encode(lines.join("\r\n"))), deadline);
    writer.releaseLock();
    return await readResponse(reader, deadline, opts.maxBodyBytes);
  } finally {
    reader.releaseLock();
    await socket.close().catch(() => undefined);
  }
}

async function within<T>(p: Promise<T>, deadline: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  p.catch(() => undefined);
  try {
    return await Promise.race([
      p,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new PinnedHttpError("timed out")),
            Math.max(0, deadline - Date.now()),
          )),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function readResponse(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  deadline: number,
  maxBody: number,
): Promise<Response> {
  let buf = new Uint8Array(0);
  let ended = false;
  const more = async () => {
    const { value, done } = await within(reader.read(), deadline);
    if (done || !value) return void (ended = true);
    const next = new Uint8Array(buf.length + value.length);
    next.set(buf);
    next.set(value, buf.length);
    buf = next;
  };
  let headEnd = -1;
  while ((headEnd = indexOf(buf, CRLFCRLF)) < 0) {
    if (buf.length > MAX_HEAD_BYTES || ended) throw new PinnedHttpError("malformed response head");
    await more();
  }
  const [statusLine, ...fields] = latin1.decode(buf.subarray(0, headEnd)).split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "");
  const status = m ? Number(m[1]) : 0;
  if (status < 200 || status > 599) throw new PinnedHttpError("unexpected status line");
  const headers = new Headers();
  for (const f of fields) {
    const at = f.indexOf(":");
    if (at <= 0) continue;
    try {
      headers.append(f.slice(0, at).trim(), f.slice(at + 1).trim());
    } catch {
      // A field name or value fetch would refuse is dropped.
    }
  }
  buf = buf.subarray(headEnd + 4);
  const chunked = /\bchunked\b/i.test(headers.get("transfer-encoding") ?? "");
  const length = headers.get("content-length");
  const want = chunked
    ? Infinity
    : length && /^\d+$/.test(length)
      ? Math.min(Number(length), maxBody)
      : maxBody;
  // Read until the body is whole, the cap is reached (chunk framing allowed for) or the server closes.
  const complete = () =>
    chunked ? chunkedDone(buf) || buf.length >= maxBody + MAX_HEAD_BYTES : buf.length >= want;
  while (!ended && !complete()) await more();
  let body = chunked ? dechunk(buf) : buf;
  if (body.length > maxBody) body = body.subarray(0, maxBody);
  headers.delete("transfer-encoding");
  headers.delete("content-length");
  const bodyless = status === 204 || status === 205 || status === 304;
  return new Response(bodyless ? null : body, { status, headers });
}

function indexOf(hay: Uint8Array, needle: number[], from = 0): number {
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** RFC 9112 section 7.1: size in hex, CRLF, data, CRLF, ... a zero size ends it (trailers ignored). */
function dechunk(buf: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (;;) {
    const eol = indexOf(buf, [13, 10], at);
    if (eol < 0) break;
    const size = parseInt(latin1.decode(buf.subarray(at, eol)).split(";")[0]!.trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(buf.subarray(eol + 2, Math.min(buf.length, eol + 2 + size)));
    at = eol + 2 + size + 2;
    if (at > buf.length) break;
  }
  return concatBytes(...parts);
}

function chunkedDone(buf: Uint8Array): boolean {
  let at = 0;
  for (;;) {
    const eol = indexOf(buf, [13, 10], at);
    if (eol < 0) return false;
    const size = parseInt(latin1.decode(buf.subarray(at, eol)).split(";")[0]!.trim(), 16);
    if (!Number.isFinite(size)) return true;
    if (size === 0) return true;
    at = eol + 2 + size + 2;
    if (at > buf.length) return false;
  }
}
