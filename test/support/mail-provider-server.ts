import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestProject } from "vitest/node";
import { rfc822 } from "./dovecot-lib.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    mailProviderUrl: string;
  }
}

export const PROVIDERS = ["mailx", "maily", "codehost", "idp"] as const;
type Provider = (typeof PROVIDERS)[number];
export const clientId = (p: Provider) => `${p}-client`;
export const clientSecret = (p: Provider) => `${p}-secret-${p.length}`;

type Msg = {
  id: string;
  from: string;
  subject: string;
  date: string;
  body?: string;
  unread: boolean;
};
type Account = {
  id: string;
  provider: Provider;
  email: string;
  messages: Msg[];
  /** What the token endpoint answers to a refresh grant. */
  refresh: "ok" | "invalid_grant" | "server_error";
  tokenDelayMs: number;
  /** Delay of each message read, so concurrent reads overlap and maxInFlight shows the bound. */
  readDelayMs: number;
  inFlight: number;
  maxInFlight: number;
  /** Graph paging links point at another origin (a token-leak probe). */
  foreignNextLink: boolean;
  /** The next `count` mail API calls answer `status` (with `retryAfter` as Retry-After when set). */
  failNext: { status: number; count: number; retryAfter?: string } | null;
  expiresIn: number;
  requests: string[];
  tokenRequests: string[];
  revoked: string[];
  /** Every token handed out, so tests can look for them where they must not be. */
  issued: string[];
};

const rand = (n = 24) => randomBytes(n).toString("base64url");
const s256 = (v: string) => createHash("sha256").update(v).digest("base64url");

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
  });

/** "Name <a@b>" → {name, address}, as Graph reports a sender. */
function addressOf(from: string) {
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  return m ? { name: m[1] || m[2], address: m[2] } : { name: from, address: from };
}

/** The subject:/from: terms of a Gmail q or a Graph KQL $search; the terms of one kind are ORed (other operators are ignored). */
function parseQuery(q: string) {
  const terms = { subject: [] as string[], from: [] as string[], unread: /\bis:unread\b/i.test(q) };
  for (const m of q.matchAll(
    /(subject|from):(?:\("([^"]*)"\)|\(([^)]*)\)|"([^"]*)"|([^\s()"]+))/gi,
  )) {
    // A parenthesised group is Gmail's `(a OR b)`: each alternative is its own term.
    const value = (m[2] ?? m[4] ?? m[5] ?? "").toLowerCase();
    const alternatives = m[3] !== undefined ? m[3].toLowerCase().split(/\s+or\s+/) : [value];
    terms[m[1].toLowerCase() as "subject" | "from"].push(
      ...alternatives.map((a) => a.trim()).filter(Boolean),
    );
  }
  return terms;
}

function matches(m: Msg, t: ReturnType<typeof parseQuery>) {
  const subject = m.subject.toLowerCase();
  const from = m.from.toLowerCase();
  if (t.subject.length && !t.subject.some((s) => subject.includes(s))) return false;
  if (t.from.length && !t.from.some((s) => from.includes(s))) return false;
  return !t.unread || m.unread;
}

/**
 * vitest globalSetup: one local server that is, per provider under /<provider>/, an OAuth 2.0
 * authorization server (authorization code with PKCE S256, refresh_token grant with rotation,
 * RFC 7009 revocation) and its API: Gmail-shaped (mailx), Graph-shaped (maily), GitHub-shaped
 * /user/emails (codehost) and OIDC /userinfo (idp). The authorize step signs in the account named
 * by `test_account`, standing in for the user at the consent page. /__control creates accounts and
 * reports what the service asked for.
 */
export default async function setup(project: TestProject) {
  const accounts = new Map<string, Account>();
  const codes = new Map<
    string,
    { account: Account; redirectUri: string; challenge: string; scope: string }
  >();
  const access = new Map<string, Account>();
  const refresh = new Map<string, Account>();

  const issue = (a: Account) => {
    const accessToken = rand();
    const refreshToken = rand();
    access.set(accessToken, a);
    refresh.set(refreshToken, a);
    a.issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      refresh_token: refreshToken,
      expires_in: a.expiresIn,
      token_type: "Bearer",
    };
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://x");
    const json = (status: number, body: unknown) =>
      void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const body = await read(req);

    const ctl = /^\/__control\/accounts(?:\/([^/]+))?$/.exec(url.pathname);
    if (ctl) {
      if (req.method === "POST" && !ctl[1]) {
        const b = JSON.parse(body) as {
          provider: Provider;
          email: string;
          messages?: Omit<Msg, "id" | "unread">[];
          expiresIn?: number;
        };
        const a: Account = {
          id: rand(9),
          provider: b.provider,
          email: b.email,
          messages: [],
          refresh: "ok",
          tokenDelayMs: 0,
          readDelayMs: 0,
          inFlight: 0,
          maxInFlight: 0,
          foreignNextLink: false,
          failNext: null,
          expiresIn: b.expiresIn ?? 3600,
          requests: [],
          tokenRequests: [],
          revoked: [],
          issued: [],
        };
        a.messages = (b.messages ?? []).map((m) => ({
          ...m,
          id: randomBytes(8).toString("hex"),
          unread: true,
        }));
        accounts.set(a.id, a);
        return json(201, { id: a.id });
      }
      const a = ctl[1] ? accounts.get(ctl[1]) : undefined;
      if (!a) return json(404, { error: "no such account" });
      if (req.method === "PATCH") {
        const b = JSON.parse(body) as Partial<
          Pick<Account, "refresh" | "tokenDelayMs" | "readDelayMs" | "foreignNextLink" | "failNext">
        > & { messages?: Omit<Msg, "id" | "unread">[] };
        if (b.failNext !== undefined) a.failNext = b.failNext;
        if (b.refresh) a.refresh = b.refresh;
        if (b.tokenDelayMs !== undefined) a.tokenDelayMs = b.tokenDelayMs;
        if (b.readDelayMs !== undefined) a.readDelayMs = b.readDelayMs;
        if (b.foreignNextLink !== undefined) a.foreignNextLink = b.foreignNextLink;
        if (b.messages)
          a.messages = b.messages.map((m) => ({
            ...m,
            id: randomBytes(8).toString("hex"),
            unread: true,
          }));
        return json(200, { ok: true });
      }
      const live = [...refresh.values()].filter((x) => x === a).length;
      return json(200, {
        requests: a.requests,
        tokenRequests: a.tokenRequests,
        revoked: a.revoked,
        issued: a.issued,
        liveRefreshTokens: live,
        maxInFlight: a.maxInFlight,
        messages: a.messages.map((m) => ({ id: m.id, unread: m.unread })),
      });
    }

    // DNS over HTTPS (JSON form) for the outbound guard: *.private.test is loopback, *.public.test public.
    if (url.pathname === "/dns-query") {
      const name = url.searchParams.get("name") ?? "";
      const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
      const data = name.endsWith(".private.test")
        ? type === 1
          ? "127.0.0.1"
          : "::1"
        : name.endsWith(".public.test") && type === 1
          ? "93.184.216.34"
          : null;
      return json(200, {
        Status: data || name.endsWith(".public.test") ? 0 : 3,
        Answer: data ? [{ name, type, TTL: 60, data }] : [],
      });
    }

    const [, provider, ...rest] = url.pathname.split("/") as [string, Provider, ...string[]];
    if (!PROVIDERS.includes(provider)) return json(404, { error: "not_found" });
    const sub = `/${rest.join("/")}`;

    if (req.method === "GET" && sub === "/authorize") {
      const q = url.searchParams;
      const a = accounts.get(q.get("test_account") ?? "");
      const redirectUri = q.get("redirect_uri");
      if (q.get("client_id") !== clientId(provider) || !redirectUri)
        return json(400, { error: "invalid_client" });
      if (
        q.get("response_type") !== "code" ||
        q.get("code_challenge_method") !== "S256" ||
        !q.get("code_challenge")
      )
        return json(400, { error: "invalid_request" });
      const back = new URL(redirectUri);
      back.searchParams.set("state", q.get("state") ?? "");
      if (!a || a.provider !== provider || q.has("test_deny"))
        back.searchParams.set("error", "access_denied");
      else {
        const code = rand();
        codes.set(code, {
          account: a,
          redirectUri,
          challenge: q.get("code_challenge")!,
          scope: q.get("scope") ?? "",
        });
        back.searchParams.set("code", code);
      }
      return void res.writeHead(302, { location: back.toString() }).end();
    }

    if (req.method === "POST" && (sub === "/token" || sub === "/revoke")) {
      const f = new URLSearchParams(body);
      if (
        f.get("client_id") !== clientId(provider) ||
        f.get("client_secret") !== clientSecret(provider)
      )
        return json(401, { error: "invalid_client" });
      if (sub === "/revoke") {
        const t = f.get("token") ?? "";
        const a = refresh.get(t) ?? access.get(t);
        if (a) {
          a.revoked.push(t);
          for (const [k, v] of [...refresh, ...access])
            if (v === a) refresh.delete(k), access.delete(k);
        }
        return void res.writeHead(200).end();
      }
      if (f.get("grant_type") === "authorization_code") {
        const c = codes.get(f.get("code") ?? "");
        codes.delete(f.get("code") ?? "");
        if (!c)
          return json(400, { error: "invalid_grant", error_description: "unknown or used code" });
        c.account.tokenRequests.push("authorization_code");
        if (c.redirectUri !== f.get("redirect_uri"))
          return json(400, { error: "invalid_grant", error_description: "redirect_uri mismatch" });
        if (s256(f.get("code_verifier") ?? "") !== c.challenge)
          return json(400, {
            error: "invalid_grant",
            error_description: "PKCE verification failed",
          });
        return json(200, { ...issue(c.account), scope: c.scope });
      }
      if (f.get("grant_type") === "refresh_token") {
        const a = refresh.get(f.get("refresh_token") ?? "");
        if (a) a.tokenRequests.push("refresh_token");
        if (a?.tokenDelayMs) await new Promise((r) => setTimeout(r, a.tokenDelayMs));
        if (!a || a.refresh === "invalid_grant") return json(400, { error: "invalid_grant" });
        if (a.refresh === "server_error") return json(503, { error: "temporarily_unavailable" });
        // Rotation: the presented refresh token is spent, as strict providers do.
        refresh.delete(f.get("refresh_token")!);
        return json(200, issue(a));
      }
      return json(400, { error: "unsupported_grant_type" });
    }

    const a = access.get(/^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
    if (!a || a.provider !== provider)
      return json(401, { error: { code: 401, message: "invalid credentials" } });
    a.requests.push(`${req.method} ${sub}${url.search}`);
    if (a.failNext && a.failNext.count > 0 && !/\/profile$|\/me$/.test(sub)) {
      a.failNext.count--;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        ...(a.failNext.retryAfter ? { "retry-after": a.failNext.retryAfter } : {}),
      };
      return void res
        .writeHead(a.failNext.status, headers)
        .end(JSON.stringify({ error: { code: a.failNext.status, message: "try later" } }));
    }
    const byId = (id: string) => a.messages.find((m) => m.id === decodeURIComponent(id));

    if (provider === "mailx") {
      const m = /^\/gmail\/v1\/users\/me\/messages(?:\/([^/]+))?(\/modify)?$/.exec(sub);
      if (sub === "/gmail/v1/users/me/profile")
        return json(200, { emailAddress: a.email, messagesTotal: a.messages.length });
      if (m && !m[1] && req.method === "GET") {
        const t = parseQuery(url.searchParams.get("q") ?? "");
        const hits = a.messages.filter((x) => matches(x, t));
        const max = Math.min(Number(url.searchParams.get("maxResults") ?? 100), 500);
        const start = Number(url.searchParams.get("pageToken") ?? 0);
        const page = hits.slice(start, start + max);
        return json(200, {
          messages: page.map((x) => ({ id: x.id, threadId: x.id })),
          resultSizeEstimate: hits.length,
          ...(start + max < hits.length ? { nextPageToken: String(start + max) } : {}),
        });
      }
      const msg = m?.[1] ? byId(m[1]) : undefined;
      if (!msg)
        return json(404, { error: { code: 404, message: "Requested entity was not found." } });
      if (m![2] && req.method === "POST") {
        if ((JSON.parse(body) as { removeLabelIds?: string[] }).removeLabelIds?.includes("UNREAD"))
          msg.unread = false;
        return json(200, { id: msg.id, labelIds: msg.unread ? ["UNREAD", "INBOX"] : ["INBOX"] });
      }
      a.inFlight++;
      a.maxInFlight = Math.max(a.maxInFlight, a.inFlight);
      await new Promise((r) => setTimeout(r, a.readDelayMs));
      a.inFlight--;
      const format = url.searchParams.get("format") ?? "full";
      const labelIds = msg.unread ? ["UNREAD", "INBOX"] : ["INBOX"];
      if (format === "raw")
        return json(200, {
          id: msg.id,
          threadId: msg.id,
          labelIds,
          raw: Buffer.from(rfc822(msg)).toString("base64url"),
        });
      if (format !== "metadata")
        return json(400, { error: { code: 400, message: "only metadata and raw are served" } });
      const wanted = url.searchParams.getAll("metadataHeaders").map((h) => h.toLowerCase());
      const headers = [
        { name: "From", value: msg.from },
        { name: "Date", value: new Date(msg.date).toUTCString() },
        { name: "Subject", value: msg.subject },
      ].filter((h) => wanted.includes(h.name.toLowerCase()));
      return json(200, {
        id: msg.id,
        threadId: msg.id,
        labelIds,
        payload: { mimeType: "text/plain", headers },
      });
    }

    if (provider === "maily") {
      if (sub === "/v1.0/me") return json(200, { mail: a.email, userPrincipalName: a.email });
      const m = /^\/v1\.0\/me\/messages(?:\/([^/]+))?(\/\$value)?$/.exec(sub);
      if (m && !m[1] && req.method === "GET") {
        const search = url.searchParams.get("$search");
        const filter = url.searchParams.get("$filter") ?? "";
        const t = parseQuery(search ? search.replace(/^"|"$/g, "").replace(/\\"/g, '"') : "");
        const fromEq = /from\/emailAddress\/address eq '([^']*)'/.exec(filter)?.[1]?.toLowerCase();
        if (fromEq) t.from.push(fromEq);
        if (/isRead eq false/.test(filter)) t.unread = true;
        const hits = a.messages.filter((x) => matches(x, t));
        const top = Math.min(Number(url.searchParams.get("$top") ?? 10), 1000);
        const skip = Number(url.searchParams.get("$skiptoken") ?? 0);
        const select = (
          url.searchParams.get("$select") ?? "id,subject,from,receivedDateTime,isRead,body"
        ).split(",");
        const shape = (x: Msg) => {
          const full: Record<string, unknown> = {
            subject: x.subject,
            from: { emailAddress: addressOf(x.from) },
            receivedDateTime: new Date(x.date).toISOString(),
            isRead: !x.unread,
            body: { contentType: "text", content: x.body ?? "" },
          };
          return {
            "@odata.etag": `W/"${x.id}"`,
            id: x.id,
            ...Object.fromEntries(select.filter((k) => k in full).map((k) => [k, full[k]])),
          };
        };
        const next = new URL(
          `http://${a.foreignNextLink ? "elsewhere.invalid" : req.headers.host}${url.pathname}${url.search}`,
        );
        next.searchParams.set("$skiptoken", String(skip + top));
        return json(200, {
          value: hits.slice(skip, skip + top).map(shape),
          ...(skip + top < hits.length ? { "@odata.nextLink": next.toString() } : {}),
        });
      }
      const msg = m?.[1] ? byId(m[1]) : undefined;
      if (!msg) return json(404, { error: { code: "ErrorItemNotFound", message: "not found" } });
      if (m![2])
        return void res.writeHead(200, { "content-type": "message/rfc822" }).end(rfc822(msg));
      if (req.method === "PATCH") {
        if ((JSON.parse(body) as { isRead?: boolean }).isRead === true) msg.unread = false;
        return json(200, { id: msg.id, isRead: !msg.unread });
      }
      return json(400, { error: { code: "BadRequest", message: "unsupported" } });
    }

    if (provider === "codehost" && sub === "/user/emails")
      return json(200, [{ email: a.email, primary: true, verified: true, visibility: "private" }]);
    if (provider === "idp" && sub === "/userinfo")
      return json(200, { sub: a.id, email: a.email, email_verified: true });
    return json(404, { error: "not_found" });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        res
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  project.provide("mailProviderUrl", `http://127.0.0.1:${port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
