import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fromBase64 } from "../../src/kernel/base64";
import { expectErrorBody, TestUser } from "../support/auth";
import { randomBytes } from "../support/attachments";
import {
  createLink,
  HOUR,
  linkRow,
  opener,
  salt,
  sealed,
  textLink,
  verifier,
} from "../support/links";

type Delivered = { link: { state: string; views_left: number }; content: string };

async function decrypt(key: CryptoKey, b64: string): Promise<string> {
  const bytes = fromBase64(b64);
  return new TextDecoder().decode(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, key, bytes.slice(12)),
  );
}

describe("secure links: opening", () => {
  it("delivers the ciphertext once, counts the view, then says used up", async () => {
    const owner = await TestUser.create();
    const { link, key, content } = await textLink(owner, { max_views: 1 });
    const o = opener();
    const meta = await o.meta(link.id);
    expect(meta.status).toBe(200);
    expect(meta.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await meta.json()).toMatchObject({
      id: link.id,
      state: "active",
      views_left: 1,
      passphrase: null,
      kind: "text",
    });
    const res = await o.open(link.id);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Delivered;
    expect(body.content).toBe(content);
    expect(await decrypt(key, body.content)).toBe("correct horse battery staple");
    expect(body.link).toMatchObject({ state: "used_up", views_left: 0 });
    const again = await expectErrorBody(await o.open(link.id), 410, "GONE");
    expect(again.state).toBe("used_up");
    expect(await (await o.meta(link.id)).json()).toMatchObject({ state: "used_up", views_left: 0 });
    const row = await linkRow(link.id);
    expect(row).toMatchObject({ views_used: 1 });
    expect(row!.last_opened_at).toBeTypeOf("string");
  });

  it("gives exactly N deliveries to many parallel opens of a link with N views", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 7 });
    // Spread over IPs so the per-IP limit is not what refuses the surplus.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => opener(`203.0.113.${i + 1}`).open(link.id)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.filter((s) => s === 410)).toHaveLength(13);
    expect(await linkRow(link.id)).toMatchObject({ views_used: 7 });
    await Promise.all(results.map((r) => r.text()));
  });

  it("an unknown id is 404, a malformed one 400, and the open body is validated", async () => {
    const o = opener();
    await expectErrorBody(await o.meta("A".repeat(22)), 404, "NOT_FOUND");
    await expectErrorBody(await o.open("A".repeat(22)), 404, "NOT_FOUND");
    await expectErrorBody(await o.meta("short"), 400, "VALIDATION_ERROR");
    const owner = await TestUser.create();
    const { link } = await textLink(owner);
    await expectErrorBody(
      await o.open(link.id, { verifier: "not base64!" }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await o.open(link.id, { verifier: verifier(), extra: 1 }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0, failed_attempts: 0 });
  });

  it("an expired link is GONE and counts nothing", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 3 });
    await env.DB.prepare("UPDATE secure_links SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), link.id)
      .run();
    const o = opener();
    expect(await (await o.meta(link.id)).json()).toMatchObject({ state: "expired" });
    expect((await expectErrorBody(await o.open(link.id), 410, "GONE")).state).toBe("expired");
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0 });
  });

  it("a passphrase link asks for it, counts wrong ones (not views) and locks after five", async () => {
    const owner = await TestUser.create();
    const right = verifier();
    const { link, content } = await textLink(owner, {
      max_views: 2,
      passphrase: { salt: salt(), verifier: right },
    });
    const o = opener();
    const meta = (await (await o.meta(link.id)).json()) as {
      passphrase: { salt: string; attempts_left: number };
    };
    expect(meta.passphrase.attempts_left).toBe(5);
    const missing = await expectErrorBody(await o.open(link.id), 403, "FORBIDDEN");
    expect(missing.reason).toBe("passphrase_required");
    const wrong = await expectErrorBody(
      await o.open(link.id, { verifier: verifier() }),
      403,
      "FORBIDDEN",
    );
    expect(wrong).toMatchObject({ reason: "wrong_passphrase", attempts_left: 4 });
    const ok = await o.open(link.id, { verifier: right });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Delivered).content).toBe(content);
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1, failed_attempts: 1 });
    for (const left of [3, 2, 1])
      expect(
        (await expectErrorBody(await o.open(link.id, { verifier: verifier() }), 403, "FORBIDDEN"))
          .attempts_left,
      ).toBe(left);
    expect(
      (await expectErrorBody(await o.open(link.id, { verifier: verifier() }), 410, "GONE")).state,
    ).toBe("locked");
    // Locked for good: even the right passphrase no longer opens it.
    expect(
      (await expectErrorBody(await o.open(link.id, { verifier: right }), 410, "GONE")).state,
    ).toBe("locked");
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1, failed_attempts: 5 });
  });

  it("parallel wrong passphrases cannot pass the lock", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, {
      max_views: 5,
      passphrase: { salt: salt(), verifier: verifier() },
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        opener(`192.0.2.${i + 1}`).open(link.id, { verifier: verifier() }),
      ),
    );
    expect(results.filter((r) => r.status === 403)).toHaveLength(4);
    expect(results.filter((r) => r.status === 410)).toHaveLength(8);
    expect(await linkRow(link.id)).toMatchObject({ failed_attempts: 5, views_used: 0 });
  });

  it("rate-limits opening per IP", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 100 });
    const o = opener("198.18.0.77");
    for (let i = 0; i < 30; i++) expect((await o.meta(link.id)).status).toBe(200);
    await expectErrorBody(await o.open(link.id), 429, "RATE_LIMITED");
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0 });
  });

  it("tells the owner when a link is opened, with the time and never the content", async () => {
    const owner = await TestUser.create();
    const secret = "the plumber's door code 4711";
    const { link } = await textLink(owner, { max_views: 2 }, secret);
    expect((await opener().open(link.id)).status).toBe(200);
    const res = await owner.call("GET", "/api/notifications");
    const text = await res.text();
    const list = JSON.parse(text) as {
      notifications: { type: string; body: string; metadata: Record<string, unknown> }[];
    };
    const n = list.notifications.find((x) => x.type === "secure_link_opened");
    expect(n).toBeDefined();
    expect(n!.metadata).toMatchObject({
      link_id: link.id,
      views_used: 1,
      max_views: 2,
      country: null,
    });
    expect(n!.body).toMatch(/1 of 2 views used/);
    expect(text).not.toContain("4711");
  });

  it("shows the sender's address unless hidden", async () => {
    const owner = await TestUser.create({ emailVerified: true });
    const shown = await textLink(owner);
    const hidden = await textLink(owner, { hide_sender: true });
    expect(await (await opener().meta(shown.link.id)).json()).toMatchObject({
      sender_email: owner.email,
    });
    expect(await (await opener().meta(hidden.link.id)).json()).toMatchObject({
      sender_email: null,
    });
  });

  it("serves the open page at /l/<id> with a strict CSP and no Referer", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner);
    const { SELF } = await import("../support/worker");
    for (const path of [`/l/${link.id}`, "/l/not*valid"]) {
      const res = await SELF.fetch(`https://vault.test${path}`);
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(res.headers.get("content-security-policy")).toContain("connect-src 'self'");
      await res.body?.cancel();
    }
  });

  it("a file link delivers its bytes", async () => {
    const owner = await TestUser.create();
    const bytes = randomBytes(300_000);
    const { content } = await sealed(bytes);
    const link = await createLink(owner, {
      kind: "file",
      content,
      expires_in_seconds: HOUR,
      max_views: 1,
    });
    expect(link.size).toBe(300_000 + 28);
    const body = (await (await opener().open(link.id)).json()) as Delivered;
    expect(body.content).toBe(content);
  });
});
