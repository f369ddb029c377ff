import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createParent, encryptedBody, r2Keys, rowCount, upload } from "../support/attachments";

async function trustDevice(user: TestUser, fingerprint: string, trust: "trusted" | "recognized") {
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, trust_level, last_active_at, created_at) VALUES (?, ?, ?, 'Laptop', 'desktop', ?, ?, ?)",
  )
    .bind(crypto.randomUUID(), user.id, fingerprint, trust, now, now)
    .run();
}

describe("attachments: security", () => {
  it("another user's attachments and parents are 404 everywhere and stay untouched", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const parent = await createParent(owner);
    const att = await upload(owner, await encryptedBody(parent));
    await expectErrorBody(
      await intruder.call("GET", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("DELETE", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call(
        "GET",
        `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`,
      ),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("POST", "/api/vault/attachments", { body: await encryptedBody(parent) }),
      404,
      "NOT_FOUND",
    );
    expect(await r2Keys(intruder.id)).toEqual([]);
    expect(await rowCount(intruder.id)).toBe(0);
    expect(await r2Keys(owner.id)).toHaveLength(1);
    expect((await owner.call("GET", `/api/vault/attachments/${att.id}`)).status).toBe(200);
  });

  it("an attachment whose parent is not the caller's is 404 even when the attachment row is", async () => {
    const owner = await TestUser.create();
    const other = await TestUser.create();
    const parent = await createParent(owner);
    const foreign = await createParent(other);
    const att = await upload(owner, await encryptedBody(parent));
    await env.DB.prepare("UPDATE attachments SET parent_id = ? WHERE id = ?")
      .bind(foreign.id, att.id)
      .run();
    await expectErrorBody(
      await owner.call("GET", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await owner.call("DELETE", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await owner.call(
        "GET",
        `/api/vault/attachments?parent_id=${foreign.id}&parent_type=password`,
      ),
      404,
      "NOT_FOUND",
    );
  });

  it("a deleted parent hides its attachments, which can still be deleted", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const att = await upload(user, await encryptedBody(parent));
    expect((await user.call("DELETE", `/api/passwords/${parent.id}`)).status).toBe(200);
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`),
      404,
      "NOT_FOUND",
    );
    expect((await user.call("DELETE", `/api/vault/attachments/${att.id}`)).status).toBe(200);
    expect(await r2Keys(user.id)).toEqual([]);
  });

  it("download is a sensitive step-up operation: untrusted devices need a sign-in within 300 s", async () => {
    const stale = await TestUser.create({ authAge: 400 });
    const parent = await createParent(stale);
    const att = await upload(stale, await encryptedBody(parent));
    const res = await stale.call("GET", `/api/vault/attachments/${att.id}`);
    const err = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    expect(err.maxAge).toBe(300);
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_user_authentication", max_age=300',
    );
    await trustDevice(stale, "f".repeat(64), "recognized");
    await expectErrorBody(
      await stale.call("GET", `/api/vault/attachments/${att.id}`, {
        headers: { "x-device-fingerprint": "f".repeat(64) },
      }),
      401,
      "STEP_UP_REQUIRED",
    );
    await trustDevice(stale, "e".repeat(64), "trusted");
    expect(
      (
        await stale.call("GET", `/api/vault/attachments/${att.id}`, {
          headers: { "x-device-fingerprint": "e".repeat(64) },
        })
      ).status,
    ).toBe(200);
    const fresh = await TestUser.create({ sub: stale.id, authAge: 10 });
    expect((await fresh.call("GET", `/api/vault/attachments/${att.id}`)).status).toBe(200);
  });

  it("limits downloads and deletes to 30 per minute", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const att = await upload(user, await encryptedBody(parent, 64));
    for (let i = 0; i < 30; i++)
      expect((await user.call("GET", `/api/vault/attachments/${att.id}`)).status).toBe(200);
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments/${att.id}`),
      429,
      "RATE_LIMITED",
    );
    for (let i = 0; i < 30; i++)
      expect((await user.call("DELETE", `/api/vault/attachments/missing-${i}`)).status).toBe(404);
    await expectErrorBody(
      await user.call("DELETE", `/api/vault/attachments/${att.id}`),
      429,
      "RATE_LIMITED",
    );
    expect(await r2Keys(user.id)).toHaveLength(1);
  });

  it("responses never reveal storage keys or the owner id", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const att = await upload(user, await encryptedBody(parent));
    for (const path of [
      `/api/vault/attachments/${att.id}`,
      `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`,
    ]) {
      const text = await (await user.call("GET", path)).text();
      expect(text).not.toContain("attachments/");
      expect(text).not.toContain(user.id);
    }
  });
});
