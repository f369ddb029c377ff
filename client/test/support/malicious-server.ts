/**
 * A hostile server for the tests of the clients against a malicious server: an HTTP proxy between real Chromium and the real worker
 * (wrangler dev) that forwards every request and lets a test rewrite what the API answers, as a
 * compromised server could. Pages, the service worker and the API all come through it, so the
 * browser sees one origin (the proxy's) and cannot tell.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * `credentials`: the request's cookie and authorization headers, so a test can count one device's
 * requests while other tests' pages (their live-sync reconnects, their periodic runs) still talk
 * through the same proxy.
 */
export type Seen = {
  method: string;
  path: string;
  search: string;
  body: string;
  credentials: string;
};

/**
 * A rewrite: `when` picks requests; `url` may change what is asked of the worker (drop a cursor,
 * ask for another page); `json` rewrites the JSON answer (return what the browser gets).
 */
export type Rewrite = {
  when: (r: Seen) => boolean;
  url?: (u: URL) => URL;
  json?: (body: any, r: Seen) => unknown;
};

export type MaliciousServer = {
  base: string;
  /** Every request the browser made, in order. */
  seen: Seen[];
  rewrite(r: Rewrite): void;
  honest(): void;
  stop(): Promise<void>;
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Hop-by-hop and length headers are the proxy's own business; fetch already decoded the body. Each
 * forwarded request takes its own connection to the worker (support/fresh-connections.ts says why).
 */
const DROP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "host",
]);

/**
 * A pull read page by page (one JSON text per line: its facts, its pages, its end) rewritten as
 * the one object a rule knows ({changes, serverTimestamp, fullSyncRequired}), and sent on as one
 * page carrying the last page's resume position.
 */
async function rewritePages(text: string, rewrite: (body: unknown) => unknown): Promise<string> {
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const [facts, ...rest] = lines;
  const complete = rest.at(-1)?.complete === true;
  const pages = (complete ? rest.slice(0, -1) : rest) as { changes: unknown[]; resume: string }[];
  const body = (await rewrite({
    changes: pages.flatMap((p) => p.changes),
    serverTimestamp: facts!.serverTimestamp,
    fullSyncRequired: facts!.fullSyncRequired,
  })) as Record<string, unknown>;
  const out = [
    {
      serverTimestamp: body.serverTimestamp,
      fullSyncRequired: body.fullSyncRequired,
      resumed: facts!.resumed,
    },
    { changes: body.changes, resume: pages.at(-1)?.resume ?? "" },
    ...(complete ? [{ complete: true }] : []),
  ];
  return out.map((l) => `${JSON.stringify(l)}\n`).join("");
}

export async function startMaliciousServer(upstream: string): Promise<MaliciousServer> {
  const rules: Rewrite[] = [];
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const incoming = new URL(req.url ?? "/", upstream);
      const r: Seen = {
        method: req.method ?? "GET",
        path: incoming.pathname,
        search: incoming.search,
        body: body.toString("utf8"),
        credentials: `${req.headers.cookie ?? ""} ${req.headers.authorization ?? ""}`,
      };
      seen.push(r);
      const rule = rules.find((x) => x.when(r));
      const target = rule?.url ? rule.url(new URL(incoming)) : incoming;
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (!DROP.has(k) && v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      headers.set("connection", "close");
      const up = await fetch(target, {
        method: r.method,
        headers,
        body: ["GET", "HEAD"].includes(r.method) ? undefined : new Uint8Array(body),
        redirect: "manual",
      });
      let out: Buffer = Buffer.from(await up.arrayBuffer());
      const type = up.headers.get("content-type") ?? "";
      if (rule?.json && type.includes("application/json")) {
        out = Buffer.from(JSON.stringify(await rule.json(JSON.parse(out.toString("utf8")), r)));
      } else if (rule?.json && type.includes("application/x-ndjson")) {
        out = Buffer.from(await rewritePages(out.toString("utf8"), (body) => rule.json!(body, r)));
      }
      const outHeaders: Record<string, string | string[]> = {};
      up.headers.forEach((v, k) => {
        if (!DROP.has(k) && k !== "set-cookie") outHeaders[k] = v;
      });
      const cookies = up.headers.getSetCookie();
      if (cookies.length) outHeaders["set-cookie"] = cookies;
      outHeaders["content-length"] = String(out.length);
      res.writeHead(up.status, outHeaders);
      res.end(out);
    })().catch((e: unknown) => {
      // Said aloud: a page that waits on this answer would otherwise fail with no trace of why.
      console.error(
        `malicious-server: ${req.method} ${req.url} -> 502: ${e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? "")}` : String(e)}`,
      );
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    rewrite: (r) => void rules.unshift(r),
    honest: () => void rules.splice(0),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Base64 wrap header edits (envelope.ts layout: magic 4, key version u32, KDF id u8, rounds u32). */
export function withRounds(wrappedItemKey: string, rounds: number): string {
  const b = Buffer.from(wrappedItemKey, "base64");
  b.writeUInt32BE(rounds, 4 + 5);
  return b.toString("base64");
}

export const isSyncPull = (r: Seen) => r.method === "GET" && r.path === "/api/passwords/sync";
export const isListing = (r: Seen) => r.method === "GET" && r.path === "/api/passwords";

/** A delta pull made into a full one: the hostile server answers with everything, as if the cursor were stale. */
export const fullPull = (u: URL) => {
  u.searchParams.delete("since");
  return u;
};
