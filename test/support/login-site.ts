import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * A small website with a real login form for the session-share tests in Chromium. Accounts are
 * registered by the tests (POST /register); /stats tells what the site saw (logins, clicks).
 * The worker suite starts it as a global setup; the viewer-page browser test starts its own.
 */
export async function startLoginSite(): Promise<{ url: string; close(): Promise<void> }> {
  const accounts = new Map<string, string>();
  const sessions = new Map<string, string>();
  const stats = new Map<string, { logins: number; clicks: number; failed: number }>();
  const statOf = (u: string) => {
    let s = stats.get(u);
    if (!s) stats.set(u, (s = { logins: 0, clicks: 0, failed: 0 }));
    return s;
  };
  const body = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => resolve(data));
    });
  const userOf = (req: IncomingMessage) => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
    return sid ? sessions.get(sid) : undefined;
  };
  const loginPage = (
    error = "",
  ) => `<!doctype html><html><head><title>Test site login</title></head><body>
<h1>Sign in</h1>${error ? `<p id="error">${error}</p>` : ""}
<form method="post" action="/login">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input id="pw" name="password" type="password" autocomplete="current-password"></label>
<button type="button" id="show" onclick="document.getElementById('pw').type='text'">Show password</button>
<button type="submit">Sign in</button>
</form></body></html>`;

  // The same form, but its username field matches none of the default selectors (no type, no
  // autocomplete, a name and id without user/email/login): only a registry selector finds it.
  const handlePage = (
    error = "",
  ) => `<!doctype html><html><head><title>Handle login</title></head><body>
<h1>Sign in with your handle</h1>${error ? `<p id="error">${error}</p>` : ""}
<form method="post" action="/login-handle">
<label>Handle <input name="handle" id="handle" class="acct"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button>
</form></body></html>`;

  let handlePosts = 0;
  // A canary for the automation browsers' guard: every request (or WebSocket handshake) to
  // /canary/<id> is counted, and /canary-hits?id=<id> says how many reached the site.
  const canary = new Map<string, number>();
  const hit = (path: string) => {
    const id = /^\/canary\/([\w-]+)/.exec(path)?.[1];
    if (id) canary.set(id, (canary.get(id) ?? 0) + 1);
    return !!id;
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (hit(url.pathname)) {
      res
        .writeHead(200, { "content-type": "text/html", "access-control-allow-origin": "*" })
        .end("<p>reached</p>");
      return;
    }
    if (url.pathname === "/canary-hits") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ hits: canary.get(url.searchParams.get("id") ?? "") ?? 0 }));
      return;
    }
    const html = (s: string, status = 200, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers });
      res.end(s);
    };
    if (req.method === "POST" && url.pathname === "/register") {
      const { username, password } = JSON.parse(await body(req)) as {
        username: string;
        password: string;
      };
      accounts.set(username, password);
      res.writeHead(204).end();
    } else if (url.pathname === "/stats/handle-posts") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ posts: handlePosts }));
    } else if (url.pathname === "/stats") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          stats.get(url.searchParams.get("u") ?? "") ?? { logins: 0, clicks: 0, failed: 0 },
        ),
      );
    } else if (req.method === "GET" && url.pathname === "/login") {
      html(loginPage());
    } else if (req.method === "GET" && url.pathname === "/login-otp") {
      html(
        loginPage().replace(
          '<button type="submit">',
          '<label>Code <input name="otp" autocomplete="one-time-code" inputmode="numeric"></label>\n<button type="submit">',
        ),
      );
    } else if (req.method === "GET" && url.pathname === "/frame") {
      // A page that embeds another (the browser-extension tests: fills into same- and cross-origin frames).
      html(
        `<!doctype html><html><head><title>Framed</title></head><body><h1>Framed</h1><iframe id="inner" width="600" height="400" src="${(url.searchParams.get("src") ?? "/login").replace(/[<>"&]/g, "")}"></iframe></body></html>`,
      );
    } else if (req.method === "GET" && url.pathname === "/login-handle") {
      html(handlePage());
    } else if (
      req.method === "POST" &&
      (url.pathname === "/login" || url.pathname === "/login-handle")
    ) {
      if (url.pathname === "/login-handle") handlePosts++;
      const form = new URLSearchParams(await body(req));
      const u = form.get(url.pathname === "/login" ? "username" : "handle") ?? "";
      if (accounts.has(u) && accounts.get(u) === form.get("password")) {
        const sid = randomBytes(16).toString("hex");
        sessions.set(sid, u);
        statOf(u).logins++;
        html("", 302, { location: "/account", "set-cookie": `sid=${sid}; HttpOnly; Path=/` });
      } else {
        statOf(u).failed++;
        html(
          url.pathname === "/login"
            ? loginPage("Wrong username or password")
            : handlePage("Wrong handle or password"),
          401,
        );
      }
    } else if (url.pathname === "/account") {
      const u = userOf(req);
      if (!u) return html("", 302, { location: "/login" });
      html(`<!doctype html><html><head><title>Account</title></head><body style="margin:0">
<h1>Welcome, ${u}</h1>
<button id="big" style="position:absolute;left:100px;top:200px;width:300px;height:120px"
  onclick="fetch('/click',{method:'POST'}).then(()=>{document.getElementById('n').textContent=Date.now()})">Click me</button>
<p id="n"></p></body></html>`);
    } else if (req.method === "POST" && url.pathname === "/click") {
      const u = userOf(req);
      if (u) statOf(u).clicks++;
      res.writeHead(u ? 204 : 401).end();
    } else {
      res.writeHead(404).end();
    }
  });
  server.on("upgrade", (req, socket) => {
    hit(new URL(req.url ?? "/", "http://x").pathname);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export default async function loginSite(project: TestProject) {
  const site = await startLoginSite();
  project.provide("loginSiteUrl", site.url);
  return site.close;
}

declare module "vitest" {
  export interface ProvidedContext {
    loginSiteUrl: string;
  }
}
