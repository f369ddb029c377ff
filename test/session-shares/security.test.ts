import { env } from "cloudflare:test";
import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { loginUrlOf } from "../../src/domains/session-shares/service";
import { AppError } from "../../src/lib/errors";
import { expectErrorBody, TestUser } from "../support/auth";
import { createSessionShare, openLive, registerDevice, ticket } from "../support/session-shares";

const later = () => new Date(Date.now() + 60 * 60_000).toISOString();
const sha256 = async (s: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

describe("session shares: owner-only rules and the viewer's gate", () => {
  it("another user gets 404 on GET, status stream, PATCH, DELETE and the owner ticket; nothing changes", async () => {
    const owner = await TestUser.create();
    const other = await TestUser.create();
    const fp = await registerDevice(other);
    const { created } = await createSessionShare(owner, { scheduledStart: later() });
    const p = `/api/session-shares/${created.id}`;
    await expectErrorBody(await other.call("GET", p), 404, "NOT_FOUND");
    await expectErrorBody(await other.call("GET", `${p}/status`), 404, "NOT_FOUND");
    await expectErrorBody(
      await other.call("PATCH", p, { body: { action: "revoke" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await other.call("DELETE", p), 404, "NOT_FOUND");
    await expectErrorBody(await ticket(other, `${p}/ticket`, fp), 404, "NOT_FOUND");
    const row = await env.DB.prepare("SELECT status FROM session_shares WHERE id = ?")
      .bind(created.id)
      .first();
    expect(row?.status).toBe("scheduled");
    await owner.call("DELETE", p);
  });

  it("the token is returned once and stored only as its SHA-256; the credentials only sealed", async () => {
    const owner = await TestUser.create();
    const { created, creds } = await createSessionShare(owner, { scheduledStart: later() });
    const row = await env.DB.prepare("SELECT * FROM session_shares WHERE id = ?")
      .bind(created.id)
      .first<Record<string, unknown>>();
    expect(row?.token_hash).toBe(await sha256(created.shareToken));
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(created.shareToken);
    expect(stored).not.toContain(creds.password);
    expect(stored).not.toContain(creds.username);
    expect(JSON.parse(row!.sealed_credentials as string)).toMatchObject({
      kid: expect.any(String),
      iv: expect.any(String),
      ct: expect.any(String),
    });
    const get = await owner.call("GET", `/api/session-shares/${created.id}`);
    const text = await get.text();
    expect(text).not.toContain(created.shareToken);
    expect(text).not.toContain(creds.password);
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
  });

  it("viewing needs a registered device (D11), a real token and a live session", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const { created } = await createSessionShare(owner, { scheduledStart: later() });
    const path = `/api/session-shares/view/${created.shareToken}/ticket`;
    await expectErrorBody(await viewer.call("POST", path), 403, "FORBIDDEN");
    await expectErrorBody(await ticket(viewer, path, "f".repeat(64)), 403, "FORBIDDEN");
    const fp = await registerDevice(viewer);
    await expectErrorBody(
      await ticket(viewer, `/api/session-shares/view/${"x".repeat(43)}/ticket`, fp),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await viewer.call("POST", path, { headers: { "x-device-fingerprint": fp }, csrf: false }),
      403,
      "FORBIDDEN",
    );
    expect((await ticket(viewer, path, fp)).status).toBe(200);
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
    await expectErrorBody(await ticket(viewer, path, fp), 410, "GONE");
  });

  it("a ticket opens one WebSocket once; a bad ticket is 401", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const fp = await registerDevice(viewer);
    const { created } = await createSessionShare(owner, { scheduledStart: later(), maxViewers: 2 });
    const t = (await (
      await ticket(viewer, `/api/session-shares/view/${created.shareToken}/ticket`, fp)
    ).json()) as { wsUrl: string };
    const live = await openLive(t.wsUrl);
    const status = await live.waitFor((m) => m.type === "status");
    expect(status.status).toBe("scheduled");
    const again = await SELF.fetch(`https://vault.test${t.wsUrl}`, {
      headers: { upgrade: "websocket" },
    });
    await expectErrorBody(again, 401, "UNAUTHORIZED");
    const bad = await SELF.fetch(
      `https://vault.test/api/session-shares/${created.id}/live?ticket=${"a".repeat(32)}`,
      { headers: { upgrade: "websocket" } },
    );
    await expectErrorBody(bad, 401, "UNAUTHORIZED");
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
    expect((await live.closed).code).toBe(4000);
    expect(live.messages.some((m) => JSON.parse(m).type === "frame")).toBe(false);
  });

  it("maxViewers is enforced at the ticket and at the socket", async () => {
    const owner = await TestUser.create();
    const a = await TestUser.create();
    const b = await TestUser.create();
    const fa = await registerDevice(a);
    const fb = await registerDevice(b);
    const { created } = await createSessionShare(owner, { scheduledStart: later(), maxViewers: 1 });
    const path = `/api/session-shares/view/${created.shareToken}/ticket`;
    const ta = (await (await ticket(a, path, fa)).json()) as { wsUrl: string };
    const tb = (await (await ticket(b, path, fb)).json()) as { wsUrl: string };
    const first = await openLive(ta.wsUrl);
    await first.waitFor((m) => m.type === "status" && m.viewers === 1);
    const second = await SELF.fetch(`https://vault.test${tb.wsUrl}`, {
      headers: { upgrade: "websocket" },
    });
    await expectErrorBody(second, 409, "CONFLICT");
    await expectErrorBody(await ticket(b, path, fb), 409, "CONFLICT");
    const row = await env.DB.prepare("SELECT current_viewers FROM session_shares WHERE id = ?")
      .bind(created.id)
      .first();
    expect(row?.current_viewers).toBe(1);
    // The owner's own preview does not take a viewer seat.
    const fo = await registerDevice(owner);
    const to = await ticket(owner, `/api/session-shares/${created.id}/ticket`, fo);
    expect(to.status).toBe(200);
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
  });

  it("create needs step-up (300 s) and CSRF", async () => {
    const stale = await TestUser.create({ authAge: 301 });
    const res = await stale.call("POST", "/api/session-shares", {
      body: { accountId: "x", decryptedUsername: "u", decryptedPassword: "p" },
    });
    await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    const fresh = await TestUser.create();
    await expectErrorBody(
      await fresh.call("POST", "/api/session-shares", {
        body: { accountId: "x", decryptedUsername: "u", decryptedPassword: "p" },
        csrf: false,
      }),
      403,
      "FORBIDDEN",
    );
  });

  it("the viewer page is locked down and holds nothing secret", async () => {
    const owner = await TestUser.create();
    const { created, creds } = await createSessionShare(owner, { scheduledStart: later() });
    const res = await SELF.fetch(`https://vault.test${created.shareUrl}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).not.toContain(creds.password);
    expect(html).not.toContain(creds.username);
    const weird = await SELF.fetch("https://vault.test/s/%3Cscript%3E");
    expect(weird.status).toBe(404);
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
  });

  it("login URLs pass the outbound guard: private literals and names resolving to private addresses are refused", async () => {
    const resolve = async (host: string) =>
      host === "intranet.example"
        ? ["10.0.0.7"]
        : host === "split.example"
          ? ["93.184.216.34", "127.0.0.1"]
          : ["93.184.216.34"];
    const guard = { allowPrivate: false, resolve };
    for (const url of [
      "http://localhost/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://169.254.169.254/latest",
      "http://[::ffff:127.0.0.1]/",
      "https://intranet.example/login",
      "https://split.example/",
    ]) {
      const err = await loginUrlOf(url, null, guard).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, url).toBeInstanceOf(AppError);
      expect((err as AppError).code, url).toBe("VALIDATION_ERROR");
    }
    await expect(loginUrlOf(null, "public.example", guard)).resolves.toBe(
      "https://public.example/",
    );
    await expect(
      loginUrlOf("https://intranet.example/login", null, { allowPrivate: true }),
    ).resolves.toBe("https://intranet.example/login");
  });
});
