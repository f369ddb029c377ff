import { describe, expect, inject, it } from "vitest";
import { ImapClient } from "../../src/lib/imap/client";
import { ImapError, ImapReader, type ReaderLimits } from "../../src/lib/imap/reader";

const enc = new TextEncoder();
const limits: ReaderLimits = {
  maxLineBytes: 64 * 1024,
  maxLiteralBytes: 1024 * 1024,
  idleMs: 2000,
};

/** A reader over fixed chunks; after them the stream ends, or stays silent when `hang`. */
function readerOf(
  chunks: (string | Uint8Array)[],
  opts: Partial<ReaderLimits> & { hang?: boolean } = {},
) {
  const queue = chunks.map((c) => (typeof c === "string" ? enc.encode(c) : c));
  let pulls = 0;
  const reader = new ImapReader(
    async () => {
      pulls++;
      if (pulls <= queue.length) return queue[pulls - 1];
      return opts.hang ? new Promise<never>(() => {}) : undefined;
    },
    { ...limits, ...opts },
  );
  return { reader, pulls: () => pulls };
}

const kindOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImapError);
  return (err as ImapError).kind;
};

describe("IMAP reader bounds", () => {
  it("reads lines and literals split anywhere, CRLF across chunks included", async () => {
    const { reader } = readerOf([
      "* OK hel",
      "lo\r",
      "\n* 1 FETCH (UID 7 BODY[] {5}\r\nab",
      "cde)\r\nA1 OK done\r\n",
    ]);
    expect(await reader.readResponse()).toEqual({ text: "* OK hello", literals: [] });
    const r = await reader.readResponse();
    expect(r.text).toBe("* 1 FETCH (UID 7 BODY[] {0})");
    expect(new TextDecoder().decode(r.literals[0])).toBe("abcde");
    expect((await reader.readResponse()).text).toBe("A1 OK done");
  });

  it("a line without CRLF is refused once it passes the line cap, without reading on", async () => {
    const chunks = Array.from({ length: 100 }, () => "x".repeat(1024));
    const { reader, pulls } = readerOf(chunks, { maxLineBytes: 8 * 1024 });
    expect(await kindOf(reader.readLine())).toBe("too_large");
    expect(pulls()).toBeLessThanOrEqual(10);
  });

  it("a literal over the cap is refused from its announced size, before its bytes are read", async () => {
    const { reader, pulls } = readerOf(["* 1 FETCH (BODY[] {2097152}\r\n", "y".repeat(1024)]);
    expect(await kindOf(reader.readResponse())).toBe("too_large");
    expect(pulls()).toBe(1);
    const many = readerOf([
      "* 1 FETCH (A {600000}\r\n",
      new Uint8Array(600000),
      " B {600000}\r\n",
      new Uint8Array(600000),
      ")\r\n",
    ]);
    expect(await kindOf(many.reader.readResponse())).toBe("too_large");
  });

  it("a server that goes silent mid-response times out", async () => {
    const { reader } = readerOf(["* OK par"], { hang: true, idleMs: 200 });
    const started = Date.now();
    expect(await kindOf(reader.readLine())).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reads a line and a literal that arrive one byte at a time", async () => {
    const n = 1024 * 1024;
    const one = enc.encode("z");
    const chunks: Uint8Array[] = [enc.encode(`* 1 FETCH (BODY[] {${n}}\r\n`)];
    for (let i = 0; i < n; i++) chunks.push(one);
    chunks.push(enc.encode(")\r\n"));
    const { reader } = readerOf(chunks, { maxLiteralBytes: 2 * n });
    const r = await reader.readResponse();
    expect(r.literals[0].length).toBe(n);
    expect(r.text).toBe("* 1 FETCH (BODY[] {0})");
  });
});

describe("IMAP client against misbehaving servers", () => {
  const ports = inject("misbehavingImap");
  const open = (port: number, timeoutMs = 5000) =>
    ImapClient.open({
      host: "127.0.0.1",
      port,
      tls: false,
      timeoutMs,
      maxLineBytes: 64 * 1024,
      maxLiteralBytes: 1024 * 1024,
    });

  it("a greeting that never ends with CRLF is refused at the line cap", async () => {
    expect(await kindOf(open(ports.noCrlf))).toBe("too_large");
  });

  it("a literal larger than the cap is refused", async () => {
    expect(await kindOf(open(ports.bigLiteral))).toBe("too_large");
  });

  it("a server that stops answering times out", async () => {
    const client = await open(ports.silent, 500);
    const started = Date.now();
    expect(await kindOf(client.command("NOOP"))).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    // Not closed here: workerd reports the cancelled pending read of a closed socket as an unhandled error.
  });

  it("untagged responses without end are cut off per command, by the default cap, without waiting for the tag", async () => {
    const client = await ImapClient.open({
      host: "127.0.0.1",
      port: ports.untaggedFlood,
      tls: false,
      timeoutMs: 5000,
    });
    const started = Date.now();
    let seen = 0;
    expect(await kindOf(client.command("NOOP", () => seen++))).toBe("too_large");
    expect(seen).toBe(10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("the byte bound of one command's untagged responses holds before the count bound", async () => {
    const client = await ImapClient.open({
      host: "127.0.0.1",
      port: ports.untaggedFlood,
      tls: false,
      timeoutMs: 5000,
      maxUntaggedBytesPerCommand: 1000,
    });
    let seen = 0;
    expect(await kindOf(client.command("NOOP", () => seen++))).toBe("too_large");
    expect(seen).toBeLessThan(110);
  });
});
