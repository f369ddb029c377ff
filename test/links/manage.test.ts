import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { purgeSecureLinks } from "../../src/domains/links";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  HOUR,
  linkRow,
  opener,
  r2Objects,
  salt,
  sealed,
  textLink,
  verifier,
  type LinkView,
} from "../support/links";

const list = async (user: TestUser) => {
  const res = await user.call("GET", "/api/links");
  expect(res.status).toBe(200);
  return (await res.json()) as {
    links: LinkView[];
    usage: { open: number; max_open: number; bytes: number; quota_bytes: number };
  };
};

describe("secure links: create, list, revoke", () => {
  it("lists the owner's links with views used, last opened, expiry and state", async () => {
    const owner = await TestUser.create();
    const a = await textLink(owner, { max_views: 2 });
    const b = await textLink(owner, {
      max_views: 1,
      expires_in_seconds: 30 * 24 * HOUR,
      passphrase: { salt: salt(), verifier: verifier() },
    });
    expect((await opener().open(a.link.id)).status).toBe(200);
    const { links, usage } = await list(owner);
    expect(links.map((l) => l.id).sort()).toEqual([a.link.id, b.link.id].sort());
    const la = links.find((l) => l.id === a.link.id)!;
    expect(la).toMatchObject({
      views_used: 1,
      max_views: 2,
      state: "active",
      has_passphrase: false,
    });
    expect(la.last_opened_at).toBeTypeOf("string");
    const lb = links.find((l) => l.id === b.link.id)!;
    expect(lb).toMatchObject({ views_used: 0, has_passphrase: true, last_opened_at: null });
    expect(Date.parse(lb.expires_at) - Date.now()).toBeGreaterThan(29 * 24 * HOUR * 1000);
    expect(usage.open).toBe(2);
    expect(usage.bytes).toBe(a.link.size + b.link.size);
    // No verifier, salt hash or storage key in the owner's view either.
    expect(JSON.stringify(links)).not.toMatch(/verifier|r2_key|salt/);
  });

  it("refuses bad input with the spec's error body and stores nothing", async () => {
    const owner = await TestUser.create();
    const { content } = await sealed("x");
    const good = { kind: "text", content, expires_in_seconds: HOUR, max_views: 1 };
    const bad: Record<string, unknown>[] = [
      { ...good, expires_in_seconds: HOUR - 1 },
      { ...good, expires_in_seconds: 30 * 24 * HOUR + 1 },
      { ...good, max_views: 0 },
      { ...good, max_views: 101 },
      { ...good, kind: "image" },
      { ...good, content: "not base64" },
      { ...good, content: "AAAA" },
      { ...good, passphrase: { salt: salt(), verifier: "AAAA" } },
      { ...good, passphrase: { salt: "AAAA", verifier: verifier() } },
      { ...good, passphrase: "hunter2" },
      { ...good, allowed: true },
      { kind: "text", expires_in_seconds: HOUR, max_views: 1 },
    ];
    for (const body of bad) {
      const err = await expectErrorBody(
        await owner.call("POST", "/api/links", { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(err.details?.length, JSON.stringify(body).slice(0, 80)).toBeGreaterThan(0);
    }
    await expectErrorBody(
      await owner.call("POST", "/api/links", {
        rawBody: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("POST", "/api/links", {
        rawBody: JSON.stringify(good),
        headers: { "content-type": "text/plain" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expect((await list(owner)).links).toEqual([]);
    expect(await r2Objects(owner.id)).toEqual([]);
  });

  it("another user's link is 404 to revoke and stays untouched", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { link } = await textLink(owner);
    await expectErrorBody(await intruder.call("DELETE", `/api/links/${link.id}`), 404, "NOT_FOUND");
    expect((await list(intruder)).links).toEqual([]);
    expect(await linkRow(link.id)).toMatchObject({ revoked_at: null });
    expect(await r2Objects(owner.id)).toHaveLength(1);
    await expectErrorBody(await owner.call("DELETE", "/api/links/bad"), 400, "VALIDATION_ERROR");
  });

  it("revoking stops the link at once and deletes its ciphertext", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 5 });
    const res = await owner.call("DELETE", `/api/links/${link.id}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { link: LinkView }).link.state).toBe("revoked");
    expect(await r2Objects(owner.id)).toEqual([]);
    expect((await expectErrorBody(await opener().open(link.id), 410, "GONE")).state).toBe(
      "revoked",
    );
    expect(await (await opener().meta(link.id)).json()).toMatchObject({ state: "revoked" });
    // Again: still revoked, still 200.
    expect((await owner.call("DELETE", `/api/links/${link.id}`)).status).toBe(200);
    expect((await list(owner)).usage).toMatchObject({ open: 0, bytes: 0 });
  });

  it("keeps each owner within the count and byte quotas, atomically", async () => {
    const owner = await TestUser.create();
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 3600_000).toISOString();
    // 49 links already held: room for exactly one more of the default 50.
    const d1 = env.DB;
    for (let i = 0; i < 49; i++) {
      await d1
        .prepare(
          "INSERT INTO secure_links (id, owner_id, kind, size, r2_key, max_views, expires_at, created_at) VALUES (?, ?, 'text', 100, 'none', 1, ?, ?)",
        )
        .bind(crypto.randomUUID(), owner.id, later, now)
        .run();
    }
    const { content } = await sealed("x");
    const body = { kind: "text", content, expires_in_seconds: HOUR, max_views: 1 };
    const results = await Promise.all(
      [0, 1, 2].map(() => owner.call("POST", "/api/links", { body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422]);
    const refused = await expectErrorBody(
      results.find((r) => r.status === 422)!,
      422,
      "UNPROCESSABLE",
    );
    expect(refused).toMatchObject({ open: 50, max_open: 50 });
    expect(await r2Objects(owner.id)).toHaveLength(1);

    const big = await TestUser.create();
    await d1
      .prepare(
        "INSERT INTO secure_links (id, owner_id, kind, size, r2_key, max_views, expires_at, created_at) VALUES (?, ?, 'file', ?, 'none', 1, ?, ?)",
      )
      .bind(crypto.randomUUID(), big.id, 100 * 1024 * 1024 - 10, later, now)
      .run();
    await expectErrorBody(await big.call("POST", "/api/links", { body }), 422, "UNPROCESSABLE");
    expect(await r2Objects(big.id)).toEqual([]);
  });

  it("purges ended content on schedule and drops rows after the retention period", async () => {
    const owner = await TestUser.create();
    const used = await textLink(owner, { max_views: 1 });
    const live = await textLink(owner, { max_views: 1 });
    const expired = await textLink(owner, { max_views: 3 });
    expect((await opener().open(used.link.id)).status).toBe(200);
    await env.DB.prepare("UPDATE secure_links SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), expired.link.id)
      .run();
    // Within the grace period nothing goes: a delivery may still be streaming.
    await purgeSecureLinks(env as never);
    expect(await r2Objects(owner.id)).toHaveLength(3);
    await purgeSecureLinks(env as never, Date.now() + 11 * 60 * 1000);
    expect((await r2Objects(owner.id)).map((k) => k.split("/").pop())).toEqual([live.link.id]);
    expect((await linkRow(used.link.id))!.content_purged_at).toBeTypeOf("string");
    expect((await linkRow(live.link.id))!.content_purged_at).toBeNull();
    expect((await list(owner)).links.map((l) => [l.id, l.state]).sort()).toEqual(
      [
        [used.link.id, "used_up"],
        [live.link.id, "active"],
        [expired.link.id, "expired"],
      ].sort(),
    );
    await purgeSecureLinks(env as never, Date.now() + 31 * 24 * 3600 * 1000);
    expect(await linkRow(expired.link.id)).toBeNull();
    expect(await linkRow(used.link.id)).toBeNull();
    await expectErrorBody(await opener().meta(expired.link.id), 404, "NOT_FOUND");
  });

  it("the server holds only ciphertext: the secret's bytes are nowhere in D1 or R2", async () => {
    const owner = await TestUser.create();
    const secret = "zebra-quartz-7781-secret";
    const { link } = await textLink(
      owner,
      { max_views: 3, passphrase: { salt: salt(), verifier: verifier() } },
      secret,
    );
    const row = await linkRow(link.id);
    expect(JSON.stringify(row)).not.toContain(secret);
    const object = await env.ATTACHMENTS.get(`links/${owner.id}/${link.id}`);
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect(new TextDecoder("latin1").decode(bytes)).not.toContain(secret);
    expect(bytes.length).toBe(12 + secret.length + 16);
  });
});
