import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * A local stand-in for the Pwned Passwords range API (https://haveibeenpwned.com/API/v3#PwnedPasswords):
 * `GET /range/<5 hex>` answers text/plain lines `SUFFIX:COUNT` (the 35 upper-case hex characters of
 * the SHA-1 after the prefix, and how often it was seen), CRLF-separated. With `Add-Padding: true`
 * the answer is padded with rows of count 0, as the real service does, so its size says nothing
 * about the prefix. Every request is recorded, so tests can assert what left the worker.
 *
 * Control (tests only): POST /__control/hashes {passwords?: string[], sha1?: string[], count?}
 * lists hashes as breached; GET /__control/requests returns what was asked.
 */
type Seen = { path: string; padding: string | null; at: number };

const breached = new Map<string, number>();
const requests: Seen[] = [];

const sha1 = (s: string) => createHash("sha1").update(s, "utf8").digest("hex").toUpperCase();

/** A few rows every prefix has, as real ranges hold hundreds: derived, so repeatable. */
function fillerRows(prefix: string): string[] {
  return Array.from(
    { length: 12 },
    (_, i) => `${sha1(`filler:${prefix}:${i}`).slice(5)}:${((i * 37) % 500) + 1}`,
  );
}

function paddingRows(prefix: string, taken: Set<string>): string[] {
  // The real service pads every answer to between 800 and 1,000 rows.
  const want = 800 + (parseInt(sha1(`pad:${prefix}`).slice(0, 4), 16) % 200);
  const rows: string[] = [];
  for (let i = 0; rows.length + taken.size < want; i++) {
    const suffix = sha1(`padding:${prefix}:${i}`).slice(5);
    if (!taken.has(suffix)) rows.push(`${suffix}:0`);
  }
  return rows;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/__control/hashes" && req.method === "POST") {
    const body = await readJson(req);
    const count = typeof body.count === "number" ? body.count : 42;
    const hashes = [
      ...((body.passwords as string[] | undefined) ?? []).map(sha1),
      ...((body.sha1 as string[] | undefined) ?? []).map((h) => h.toUpperCase()),
    ];
    for (const h of hashes) breached.set(h, count);
    res.writeHead(201, { "content-type": "application/json" });
    return res.end(JSON.stringify({ hashes }));
  }
  if (url.pathname === "/__control/requests" && req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify({ requests }));
  }
  const m = /^\/range\/(.*)$/.exec(url.pathname);
  if (!m || req.method !== "GET") {
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end("Not found");
  }
  const padding = req.headers["add-padding"];
  requests.push({
    path: url.pathname + url.search,
    padding: typeof padding === "string" ? padding : null,
    at: Date.now(),
  });
  const prefix = m[1]!.toUpperCase();
  if (!/^[0-9A-F]{5}$/.test(prefix)) {
    res.writeHead(400, { "content-type": "text/plain" });
    return res.end("The hash prefix was not in a valid format");
  }
  const rows = fillerRows(prefix);
  for (const [hash, count] of breached)
    if (hash.startsWith(prefix)) rows.push(`${hash.slice(5)}:${count}`);
  if (padding === "true")
    rows.push(...paddingRows(prefix, new Set(rows.map((r) => r.slice(0, 35)))));
  rows.sort();
  res.writeHead(200, { "content-type": "text/plain" });
  res.end(rows.join("\r\n"));
}

export async function startPwnedRangeServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return { url: `http://127.0.0.1:${address.port}`, server };
}
