import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { TestProject } from "vitest/node";
import { startDovecot, startRecordingProxy, type MailSpec } from "./dovecot-lib.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    discoveryImap: { port: number; directPort: number; control: string };
  }
}

const POOL = 200;

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
  });

/**
 * vitest globalSetup: a second private Dovecot for discovery, reached through a proxy that records
 * the commands it receives. Each test makes its own mailbox over the control API:
 * POST /mailboxes {messages} → {user, password}; PUT /mailboxes/<user> {messages} replaces them;
 * GET /mailboxes/<user>/commands → {commands} (the lines the service sent in that user's sessions).
 */
export default async function setup(project: TestProject) {
  // Dovecot re-reads its passwd-file at most once a second, so a user added mid-run may not log in
  // yet: every mailbox user exists from the start and a test takes the next free one.
  const pool = Array.from({ length: POOL }, () => ({
    user: `box-${randomBytes(6).toString("hex")}@example.test`,
    password: randomBytes(12).toString("base64url"),
  }));
  const dovecot = await startDovecot({ prefix: "discovery-imap-", users: pool });
  const proxy = await startRecordingProxy(dovecot.port);
  const users = new Set<string>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    try {
      const body = await read(req);
      const m = /^\/mailboxes\/([^/]+)(\/commands)?$/.exec(url.pathname);
      if (req.method === "POST" && url.pathname === "/mailboxes") {
        const { messages = [] } = JSON.parse(body || "{}") as { messages?: MailSpec[] };
        const next = pool.shift();
        if (!next) return json(503, { error: `all ${POOL} test mailboxes are taken` });
        const { user, password } = next;
        dovecot.replaceMessages(user, messages);
        users.add(user);
        return json(201, { user, password });
      }
      if (m && users.has(decodeURIComponent(m[1]))) {
        const user = decodeURIComponent(m[1]);
        if (req.method === "PUT" && !m[2]) {
          dovecot.replaceMessages(user, (JSON.parse(body) as { messages: MailSpec[] }).messages);
          return json(200, { ok: true });
        }
        if (req.method === "GET" && m[2]) return json(200, { commands: proxy.commandsFor(user) });
        // The mail transport's delivery: adds messages, keeping those there.
        if (req.method === "POST" && !m[2]) {
          dovecot.appendMessages(user, (JSON.parse(body) as { messages: MailSpec[] }).messages);
          return json(201, { ok: true });
        }
      }
      json(404, { error: "not found" });
    } catch (err) {
      json(500, { error: String(err) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  project.provide("discoveryImap", {
    port: proxy.port,
    directPort: dovecot.port,
    control: `http://127.0.0.1:${port}`,
  });
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await proxy.close();
    await dovecot.stop();
  };
}
