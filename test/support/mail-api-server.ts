import { createServer, type IncomingMessage } from "node:http";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    mailApiUrl: string;
  }
}

const KEY = "test-mail-api-key";

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
  });
}

/**
 * A local mail API speaking the shape of Resend's `POST /emails` (Bearer key, JSON
 * `{from, to[], subject, text}`, 200 `{id}`), so the production transport is tested over real HTTP.
 * `GET /messages` lists what it accepted; a subject containing "[fail]" gets a 500 every time,
 * "[flaky]" a 500 the first time that subject is posted, "[429]" a 429 with `Retry-After: 120` the
 * first time (the queued retries of D19 are tested against these); "[hang]" is never answered (the
 * transport's timeout is tested against it).
 */
export default async function setup(project: TestProject) {
  const messages: unknown[] = [];
  const seen = new Set<string>();
  const server = createServer(async (req, res) => {
    const body = await read(req);
    if (req.method === "GET" && req.url === "/messages") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(messages));
      return;
    }
    if (req.method !== "POST" || req.url !== "/emails") return void res.writeHead(404).end();
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return void res.writeHead(401).end('{"message":"invalid key"}');
    let msg: { from?: string; to?: string[]; subject?: string; text?: string };
    try {
      msg = JSON.parse(body);
    } catch {
      return void res.writeHead(422).end('{"message":"invalid json"}');
    }
    if (!msg.from || !Array.isArray(msg.to) || !msg.subject || !msg.text)
      return void res.writeHead(422).end('{"message":"missing field"}');
    if (msg.subject.includes("[hang]")) return;
    if (msg.subject.includes("[fail]"))
      return void res.writeHead(500).end('{"message":"upstream failure"}');
    const first = !seen.has(msg.subject);
    seen.add(msg.subject);
    if (first && msg.subject.includes("[flaky]"))
      return void res.writeHead(500).end('{"message":"upstream failure"}');
    if (first && msg.subject.includes("[429]"))
      return void res.writeHead(429, { "retry-after": "120" }).end('{"message":"slow down"}');
    messages.push(msg);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ id: crypto.randomUUID() }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  project.provide("mailApiUrl", `http://127.0.0.1:${port}`);
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}
