import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry, entryBody } from "../support/fixtures";

const count = async (userId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>())!.n;

describe("password entries: errors", () => {
  it.each([
    ["name missing", { name: undefined }, "name"],
    ["empty name", { name: "  " }, "name"],
    ["wrapped_item_key missing", { wrapped_item_key: undefined }, "wrapped_item_key"],
    ["encrypted_data not base64", { encrypted_data: "not base64!" }, "encrypted_data"],
    ["name_hash not hex", { name_hash: "xyz" }, "name_hash"],
    ["username_hash missing", { username_hash: undefined }, "username_hash"],
    ["tags not strings", { tags: [1, 2] }, "tags.0"],
    ["search_tokens not array", { search_tokens: "abc" }, "search_tokens"],
    ["legacy encryption version", { encryption_version: 2 }, "encryption_version"],
  ])("create rejects %s with VALIDATION_ERROR and stores nothing", async (_label, over, field) => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", { body: entryBody(over) });
    const body = await expectErrorBody(res, 400, "VALIDATION_ERROR");
    expect(body.details?.map((d) => d.field)).toContain(field);
    expect(await count(user.id)).toBe(0);
  });

  it("create rejects encrypted_data above 256 KB (D14)", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", {
      body: entryBody({ encrypted_data: "A".repeat(256 * 1024 + 4) }),
    });
    const body = await expectErrorBody(res, 400, "VALIDATION_ERROR");
    expect(body.details?.[0].field).toBe("encrypted_data");
  });

  it("malformed JSON is 400 VALIDATION_ERROR", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", {
      rawBody: '{"name": ',
      headers: { "content-type": "application/json" },
    });
    await expectErrorBody(res, 400, "VALIDATION_ERROR");
  });

  it("a non-JSON content type is 415", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", {
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    await expectErrorBody(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("a body over 1 MB is 413", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", {
      rawBody: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }),
      headers: { "content-type": "application/json" },
    });
    await expectErrorBody(res, 413, "PAYLOAD_TOO_LARGE");
  });

  it("beyond MAX_PASSWORDS_PER_USER the create is 503 and nothing is stored", async () => {
    const user = await TestUser.create();
    const max = Number(env.MAX_PASSWORDS_PER_USER);
    const now = new Date().toISOString();
    const stmts = Array.from({ length: max }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO passwords (id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
      ).bind(`${user.id}-${i}`, user.id, `n${i}`, now, now),
    );
    await env.DB.batch(stmts);
    const res = await user.call("POST", "/api/passwords", { body: entryBody() });
    await expectErrorBody(res, 503, "SERVICE_UNAVAILABLE");
    expect(await count(user.id)).toBe(max);
    await env.DB.prepare("UPDATE passwords SET deleted_at = ? WHERE id = ?")
      .bind(now, `${user.id}-0`)
      .run();
    expect((await user.call("POST", "/api/passwords", { body: entryBody() })).status).toBe(201);
  });

  it("list rejects a limit above 2000 and a page below 1", async () => {
    const user = await TestUser.create();
    expect(
      (
        await expectErrorBody(
          await user.call("GET", "/api/passwords?limit=2001"),
          400,
          "VALIDATION_ERROR",
        )
      ).details?.[0].field,
    ).toBe("limit");
    expect(
      (
        await expectErrorBody(
          await user.call("GET", "/api/passwords?page=0"),
          400,
          "VALIDATION_ERROR",
        )
      ).details?.[0].field,
    ).toBe("page");
    await expectErrorBody(
      await user.call("GET", "/api/passwords?limit=abc"),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("PATCH with no field, or a bad field, is 400 and changes nothing", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { name: "Keep" });
    await expectErrorBody(
      await user.call("PATCH", `/api/passwords/${id}`, { body: {} }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("PATCH", `/api/passwords/${id}`, { body: { name: "Changed", tags: "nope" } }),
      400,
      "VALIDATION_ERROR",
    );
    const row = await env.DB.prepare("SELECT name FROM passwords WHERE id = ?").bind(id).first();
    expect(row).toEqual({ name: "Keep" });
  });

  it("unknown ids are 404 for PATCH, DELETE and reveal", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("PATCH", "/api/passwords/nope", { body: { name: "x" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await user.call("DELETE", "/api/passwords/nope"), 404, "NOT_FOUND");
    await expectErrorBody(await user.call("POST", "/api/passwords/nope/reveal"), 404, "NOT_FOUND");
  });

  it("reveal of a legacy (non-V3) entry is 409", async () => {
    const user = await TestUser.create();
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO passwords (id, user_id, name, encryption_version, wrapped_item_key, encrypted_data, created_at, updated_at) VALUES (?, ?, 'Old', 2, 'a2V5', 'ZGF0YQ==', ?, ?)",
    )
      .bind(`legacy-${user.id}`, user.id, now, now)
      .run();
    await expectErrorBody(
      await user.call("POST", `/api/passwords/legacy-${user.id}/reveal`),
      409,
      "CONFLICT",
    );
  });

  it("match needs a url with a hostname", async () => {
    const user = await TestUser.create();
    await expectErrorBody(await user.call("GET", "/api/passwords/match"), 400, "VALIDATION_ERROR");
    await expectErrorBody(
      await user.call("GET", "/api/passwords/match?url=" + encodeURIComponent("http://")),
      400,
      "VALIDATION_ERROR",
    );
  });
});

describe("password entries: rate limits", () => {
  it("reveal allows 20 per minute per user, then 429 with Retry-After", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    for (let i = 0; i < 20; i++)
      expect((await user.call("POST", `/api/passwords/${id}/reveal`)).status).toBe(200);
    const res = await user.call("POST", `/api/passwords/${id}/reveal`);
    await expectErrorBody(res, 429, "RATE_LIMITED");
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    const other = await TestUser.create();
    const theirs = await createEntry(other);
    expect((await other.call("POST", `/api/passwords/${theirs.id}/reveal`)).status).toBe(200);
  });

  it("list and create share 30 per minute per user", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 30; i++)
      expect((await user.call("GET", "/api/passwords?limit=1")).status).toBe(200);
    await expectErrorBody(
      await user.call("POST", "/api/passwords", { body: entryBody() }),
      429,
      "RATE_LIMITED",
    );
  });
});
