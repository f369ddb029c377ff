import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomBytes, randomInt } from "node:crypto";

/**
 * A local alias provider speaking both real API shapes: SimpleLogin's under /a (key in the
 * `Authentication` header) and addy.io's under /b (Bearer token). Accounts are made through
 * /__control so each test gets its own key; an account in mode "down" answers 500 to everything.
 */
type Alias = {
  id: number;
  uuid: string;
  email: string;
  enabled: boolean;
  note: string | null;
  hostname: string | null;
};
type Account = {
  key: string;
  mode: "ok" | "down";
  aliases: Alias[];
  calls: { method: string; path: string }[];
};

const accounts = new Map<string, Account>();
let nextId = 1000;

function send(res: ServerResponse, status: number, body?: unknown) {
  res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  if (!raw) return {};
  return JSON.parse(raw) as Record<string, unknown>;
}

function slView(a: Alias) {
  return {
    id: a.id,
    email: a.email,
    enabled: a.enabled,
    note: a.note,
    creation_timestamp: Math.floor(Date.now() / 1000),
  };
}

function addyView(a: Alias) {
  return {
    id: a.uuid,
    email: a.email,
    active: a.enabled,
    description: a.note,
    domain: a.email.split("@")[1],
  };
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://localhost");
  const path = url.pathname;
  if (path === "/__control/accounts" && req.method === "POST") {
    const body = await readJson(req);
    const key = `key_${randomBytes(12).toString("hex")}`;
    accounts.set(key, { key, mode: body.mode === "down" ? "down" : "ok", aliases: [], calls: [] });
    return send(res, 201, { apiKey: key });
  }
  const control = /^\/__control\/accounts\/([^/]+)$/.exec(path);
  if (control) {
    const account = accounts.get(decodeURIComponent(control[1]));
    if (!account) return send(res, 404, { error: "no such account" });
    if (req.method === "PATCH")
      account.mode = (await readJson(req)).mode === "down" ? "down" : "ok";
    return send(res, 200, { aliases: account.aliases, calls: account.calls });
  }

  const isA = path.startsWith("/a/");
  const isB = path.startsWith("/b/");
  if (!isA && !isB) return send(res, 404, { error: "not found" });
  const key = isA
    ? req.headers["authentication"]
    : /^Bearer (.+)$/.exec(req.headers["authorization"] ?? "")?.[1];
  const account = typeof key === "string" ? accounts.get(key) : undefined;
  if (!account)
    return isA
      ? send(res, 401, { error: "Wrong api key" })
      : send(res, 401, { message: "Unauthenticated." });
  account.calls.push({ method: req.method ?? "", path: path + url.search });
  if (account.mode === "down") return send(res, 500, { error: "internal error" });

  if (isA) {
    if (path === "/a/api/alias/random/new" && req.method === "POST") {
      const body = await readJson(req);
      const alias: Alias = {
        id: nextId++,
        uuid: crypto.randomUUID(),
        email: `${randomBytes(5).toString("hex")}.${randomInt(100, 999)}@aleeas.test`,
        enabled: true,
        note: typeof body.note === "string" ? body.note : null,
        hostname: url.searchParams.get("hostname"),
      };
      account.aliases.push(alias);
      return send(res, 201, slView(alias));
    }
    const m = /^\/a\/api\/aliases\/(\d+)(\/toggle)?$/.exec(path);
    const alias = m && account.aliases.find((a) => a.id === Number(m[1]));
    if (!alias) return send(res, 404, { error: "Unknown error" });
    if (m?.[2] && req.method === "POST") {
      alias.enabled = !alias.enabled;
      return send(res, 200, { enabled: alias.enabled });
    }
    if (req.method === "GET") return send(res, 200, slView(alias));
    return send(res, 405, { error: "method not allowed" });
  }

  if (path === "/b/api/v1/aliases" && req.method === "POST") {
    const body = await readJson(req);
    if (typeof body.domain !== "string")
      return send(res, 422, { message: "The domain field is required." });
    const alias: Alias = {
      id: nextId++,
      uuid: crypto.randomUUID(),
      email: `${randomBytes(6).toString("hex")}@${body.domain}`,
      enabled: true,
      note: typeof body.description === "string" ? body.description : null,
      hostname: null,
    };
    account.aliases.push(alias);
    return send(res, 201, { data: addyView(alias) });
  }
  const m = /^\/b\/api\/v1\/active-aliases\/([\w-]+)$/.exec(path);
  const alias = m && account.aliases.find((a) => a.uuid === m[1]);
  if (!alias) return send(res, 404, { message: "Not found." });
  if (req.method === "DELETE") {
    alias.enabled = false;
    return send(res, 204);
  }
  return send(res, 405, { message: "method not allowed" });
}

export async function startAliasProviderServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { error: "server error" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return { url: `http://127.0.0.1:${address.port}`, server };
}
