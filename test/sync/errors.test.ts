import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { at, countRows, create, envelope, push, row } from "./helpers";

describe("sync pull errors", () => {
  it("a malformed since is 400 VALIDATION_ERROR naming the field", async () => {
    const user = await TestUser.create();
    for (const since of ["yesterday", "2026-13-01T00:00:00Z", "1700000000", ""]) {
      const body = await expectErrorBody(
        await user.call("GET", `/api/passwords/sync?since=${encodeURIComponent(since)}`),
        400,
        "VALIDATION_ERROR",
      );
      expect(body.details?.[0]?.field).toBe("since");
    }
  });

  it("a since more than a minute in the future is 400 (D13)", async () => {
    const user = await TestUser.create();
    const body = await expectErrorBody(
      await user.call("GET", `/api/passwords/sync?since=${encodeURIComponent(at(120_000))}`),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.details?.[0]?.field).toBe("since");
  });

  it("pull allows 60 per minute, then 429 with Retry-After", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 60; i++)
      expect((await user.call("GET", "/api/passwords/sync")).status).toBe(200);
    const res = await user.call("GET", "/api/passwords/sync");
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("sync push errors", () => {
  it("a malformed envelope is 400 and applies nothing", async () => {
    const user = await TestUser.create();
    const good = create();
    const bodies: unknown[] = [
      {},
      { mutations: "nope" },
      { mutations: [good, 42] },
      { mutations: [good, { action: "create" }] },
      { mutations: Array.from({ length: 101 }, () => create()) },
    ];
    for (const body of bodies) {
      await expectErrorBody(
        await user.call("POST", "/api/passwords/sync", { body }),
        400,
        "VALIDATION_ERROR",
      );
    }
    await expectErrorBody(
      await user.call("POST", "/api/passwords/sync", {
        rawBody: "{not json",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await row(good.id)).toBeNull();
    await expect(countRows(user.id, false)).resolves.toBe(0);
  });

  it("a bad mutation fails in its own result and the others still apply", async () => {
    const user = await TestUser.create();
    const { id: existing } = await createEntry(user);
    const ok1 = create();
    const ok2 = create();
    const body = await push(user, [
      ok1,
      {
        action: "create",
        id: crypto.randomUUID(),
        data: envelope({ encryption_version: 2 }),
        clientUpdatedAt: at(),
      },
      {
        action: "create",
        id: crypto.randomUUID(),
        data: envelope({ encrypted_data: "not base64!" }),
        clientUpdatedAt: at(),
      },
      { action: "rename", id: existing, clientUpdatedAt: at() },
      { action: "update", id: existing, data: {}, clientUpdatedAt: at() },
      { action: "update", id: existing, data: { name: "x" }, clientUpdatedAt: "not a time" },
      { action: "update", id: crypto.randomUUID(), data: { name: "x" }, clientUpdatedAt: at() },
      { action: "delete", id: crypto.randomUUID(), clientUpdatedAt: at() },
      ok2,
    ]);
    expect(body.results.map((r) => r.status)).toEqual([
      "applied",
      "failed",
      "failed",
      "failed",
      "failed",
      "failed",
      "failed",
      "failed",
      "applied",
    ]);
    expect(
      body.results
        .slice(1, 6)
        .every((r) => r.code === "VALIDATION_ERROR" && typeof r.error === "string"),
    ).toBe(true);
    expect(body.results[1].details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: "data.encryption_version" })]),
    );
    expect(body.results[6]).toMatchObject({ code: "NOT_FOUND" });
    expect(body.results[7]).toMatchObject({ code: "NOT_FOUND" });
    expect(await row(ok1.id)).not.toBeNull();
    expect(await row(ok2.id)).not.toBeNull();
    await expect(countRows(user.id)).resolves.toBe(3);
  });

  it("a create beyond MAX_PASSWORDS_PER_USER fails alone", async () => {
    const user = await TestUser.create();
    const mutations = Array.from({ length: 26 }, () => create());
    const body = await push(user, mutations);
    expect(body.results.filter((r) => r.status === "applied")).toHaveLength(25);
    expect(body.results[25]).toMatchObject({ status: "failed", code: "SERVICE_UNAVAILABLE" });
    await expect(countRows(user.id)).resolves.toBe(25);
  });

  it("bringing a deleted entry back counts against MAX_PASSWORDS_PER_USER", async () => {
    const user = await TestUser.create();
    const gone = create();
    await push(user, [gone]);
    await push(user, [{ action: "delete", id: gone.id, clientUpdatedAt: at(1) }]);
    expect(
      (
        await push(
          user,
          Array.from({ length: 25 }, () => create()),
        )
      ).results.every((r) => r.status === "applied"),
    ).toBe(true);
    const body = await push(user, [
      { action: "update", id: gone.id, data: { name: "back" }, clientUpdatedAt: at(2) },
    ]);
    expect(body.results[0]).toMatchObject({ status: "failed", code: "SERVICE_UNAVAILABLE" });
    expect((await row(gone.id))?.deleted_at).not.toBeNull();
    await expect(countRows(user.id)).resolves.toBe(25);
  });

  it("push allows 30 per minute, then 429", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 30; i++)
      expect(
        (await user.call("POST", "/api/passwords/sync", { body: { mutations: [] } })).status,
      ).toBe(200);
    await expectErrorBody(
      await user.call("POST", "/api/passwords/sync", { body: { mutations: [] } }),
      429,
      "RATE_LIMITED",
    );
  });
});

describe("deprecated plaintext import", () => {
  it("answers 400 with a Deprecation header and stores nothing", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/integrations/import", {
      body: { csv: "name,url,username,password\nA,https://a.test,u,p" },
    });
    await expectErrorBody(res, 400, "VALIDATION_ERROR");
    expect(res.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(res.headers.get("link")).toContain("/api/passwords/import");
    await expect(countRows(user.id, false)).resolves.toBe(0);
  });
});
