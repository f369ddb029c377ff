import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createSessionShare, site } from "../support/session-shares";

const later = (min = 60) => new Date(Date.now() + min * 60_000).toISOString();
const count = async (ownerId: string) =>
  (
    await env.DB.prepare("SELECT count(*) AS n FROM session_shares WHERE owner_id = ?")
      .bind(ownerId)
      .first<{ n: number }>()
  )?.n;

describe("session shares: bad requests change nothing", () => {
  it("validation errors name the field", async () => {
    const owner = await TestUser.create();
    const entry = await createEntry(owner, { url: `${site()}/login` });
    const base = { accountId: entry.id, decryptedUsername: "u", decryptedPassword: "p" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, accountId: undefined }, "accountId"],
      [{ ...base, decryptedUsername: "" }, "decryptedUsername"],
      [{ ...base, decryptedPassword: undefined }, "decryptedPassword"],
      [{ ...base, accessType: "admin" }, "accessType"],
      [{ ...base, durationMinutes: 0 }, "durationMinutes"],
      [{ ...base, durationMinutes: 241 }, "durationMinutes"],
      [{ ...base, durationMinutes: 1.5 }, "durationMinutes"],
      [{ ...base, maxViewers: 0 }, "maxViewers"],
      [{ ...base, loginMethod: "magic" }, "loginMethod"],
      [{ ...base, viewOnly: true, accessType: "full" }, "viewOnly"],
      [{ ...base, scheduledStart: "soon" }, "scheduledStart"],
      [{ ...base, scheduledStart: new Date(Date.now() - 60_000).toISOString() }, "scheduledStart"],
      [
        { ...base, scheduledStart: new Date(Date.now() + 8 * 86_400_000).toISOString() },
        "scheduledStart",
      ],
    ];
    for (const [body, field] of cases) {
      // Rate limits come before validation (D2) and create allows 10 an hour: one caller per case.
      const caller = await TestUser.create();
      const err = await expectErrorBody(
        await caller.call("POST", "/api/session-shares", { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        JSON.stringify(body),
      ).toContain(field);
      expect(JSON.stringify(err)).not.toContain('"p"');
      expect(await count(caller.id)).toBe(0);
    }
  });

  it("an unknown entry is 404; an entry without a web address is 422", async () => {
    const owner = await TestUser.create();
    await expectErrorBody(
      await owner.call("POST", "/api/session-shares", {
        body: { accountId: "nope", decryptedUsername: "u", decryptedPassword: "p" },
      }),
      404,
      "NOT_FOUND",
    );
    const bare = await createEntry(owner, { website: undefined, url: undefined });
    await env.DB.prepare("UPDATE passwords SET website = NULL, url = NULL WHERE id = ?")
      .bind(bare.id)
      .run();
    await expectErrorBody(
      await owner.call("POST", "/api/session-shares", {
        body: { accountId: bare.id, decryptedUsername: "u", decryptedPassword: "p" },
      }),
      422,
      "UNPROCESSABLE",
    );
    expect(await count(owner.id)).toBe(0);
  });

  it("PATCH: unknown action, extend without minutes, pause before login, anything after revoke", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(owner, { scheduledStart: later() });
    const path = `/api/session-shares/${created.id}`;
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "explode" } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "extend" } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "extend", minutes: 241 } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "watermark" } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "pause" } }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "resume" } }),
      409,
      "CONFLICT",
    );
    const revoke = await owner.call("PATCH", path, { body: { action: "revoke" } });
    expect(revoke.status).toBe(200);
    expect(((await revoke.json()) as { session: { status: string } }).session.status).toBe(
      "revoked",
    );
    await expectErrorBody(
      await owner.call("PATCH", path, { body: { action: "extend", minutes: 5 } }),
      409,
      "CONFLICT",
    );
    const row = await env.DB.prepare(
      "SELECT status, duration_minutes FROM session_shares WHERE id = ?",
    )
      .bind(created.id)
      .first();
    expect(row).toEqual({ status: "revoked", duration_minutes: 15 });
  });

  it("extend beyond 8 hours in total is refused", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(owner, {
      scheduledStart: later(),
      durationMinutes: 240,
    });
    const ok = await owner.call("PATCH", `/api/session-shares/${created.id}`, {
      body: { action: "extend", minutes: 240 },
    });
    expect(ok.status).toBe(200);
    await expectErrorBody(
      await owner.call("PATCH", `/api/session-shares/${created.id}`, {
        body: { action: "extend", minutes: 1 },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
  });

  it("create is limited to 10 an hour per user", async () => {
    const owner = await TestUser.create();
    for (let i = 0; i < 10; i++) await createSessionShare(owner, { scheduledStart: later() });
    const entry = await createEntry(owner, { url: `${site()}/login` });
    const res = await owner.call("POST", "/api/session-shares", {
      body: {
        accountId: entry.id,
        decryptedUsername: "u",
        decryptedPassword: "p",
        scheduledStart: later(),
      },
    });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(await count(owner.id)).toBe(10);
  });
});
