import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";

// docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 6: MAX_IDENTITY_BYTES_PER_USER (20,000 in the suite): three identities with
// 5,000-character notes fit (a generated persona adds a few hundred bytes), a fourth does not.
const COLUMNS = [
  "display_name",
  "first_name",
  "last_name",
  "username",
  "email_alias",
  "phone_number",
  "date_of_birth",
  "gender",
  "address_line1",
  "address_city",
  "address_state",
  "address_zip",
  "address_country",
  "label",
  "notes",
  "used_for_service",
  "alias_key_sealed",
];
const counted = async (userId: string) =>
  (
    await env.DB.prepare("SELECT identity_bytes AS n FROM vault_counters WHERE user_id = ?")
      .bind(userId)
      .first<{ n: number }>()
  )?.n ?? 0;
const stored = async (userId: string) =>
  (
    await env.DB.prepare(
      `SELECT coalesce(sum(${COLUMNS.map((c) => `length(CAST(coalesce(${c}, '') AS BLOB))`).join(" + ")}), 0) AS n FROM identities WHERE user_id = ?`,
    )
      .bind(userId)
      .first<{ n: number }>()
  )?.n ?? 0;
const big = { notes: "n".repeat(5000) };

describe("identity byte quota", () => {
  it("of six parallel creates exactly three fit; the others are 503 SERVICE_UNAVAILABLE", async () => {
    const user = await TestUser.create();
    await user.csrf();
    const res = await Promise.all(
      Array.from({ length: 6 }, () => user.call("POST", "/api/identities", { body: big })),
    );
    expect(res.map((r) => r.status).sort()).toEqual([201, 201, 201, 503, 503, 503]);
    await expectErrorBody(res.find((r) => r.status === 503)!, 503, "SERVICE_UNAVAILABLE");
    expect(await counted(user.id)).toBe(await stored(user.id));
    expect(await counted(user.id)).toBeLessThanOrEqual(Number(env.MAX_IDENTITY_BYTES_PER_USER));
  });

  it("an update that would pass the quota is refused and changes nothing; a nuke always passes; deletes free the bytes", async () => {
    const user = await TestUser.create();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          (await (await user.call("POST", "/api/identities", { body: big })).json()) as {
            identity: { id: string };
          }
        ).identity.id,
      );
    const small = (
      (await (await user.call("POST", "/api/identities", { body: {} })).json()) as {
        identity: { id: string };
      }
    ).identity.id;
    const before = await counted(user.id);
    await expectErrorBody(
      await user.call("PATCH", `/api/identities/${small}`, { body: big }),
      503,
      "SERVICE_UNAVAILABLE",
    );
    expect(await counted(user.id)).toBe(before);
    expect(
      (await user.call("PATCH", `/api/identities/${ids[0]}`, { body: { status: "nuked" } })).status,
    ).toBe(200);
    expect(await counted(user.id)).toBe(await stored(user.id));
    expect((await user.call("PATCH", `/api/identities/${small}`, { body: big })).status).toBe(200);
    expect((await user.call("DELETE", `/api/identities/${ids[1]}`)).status).toBe(200);
    expect(await counted(user.id)).toBe(await stored(user.id));
  });
});
