import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { registerDevice } from "../sync/helpers";

// The plaintext (CSV) export is written on the device from opened entries; the server's part is the
// gate: a sign-in of at most 300 s from every device, trusted ones too (the encrypted export asks
// that only of untrusted ones), never from an unknown device, and a line in the audit log.
const plainAudits = async (userId: string) =>
  (
    await env.DB.prepare(
      "SELECT details FROM audit_events WHERE user_id = ? AND action = 'password.export_plain'",
    )
      .bind(userId)
      .all<{ details: string }>()
  ).results;

describe("POST /api/passwords/export/plain", () => {
  it("asks a trusted device for a recent sign-in where the encrypted export does not", async () => {
    const user = await TestUser.create({ authAge: 400 });
    await createEntry(user);
    const fp = await registerDevice(user.id, "trusted");
    const headers = { "x-device-fingerprint": fp };
    expect((await user.call("GET", "/api/passwords/export", { headers })).status).toBe(200);
    const res = await user.call("POST", "/api/passwords/export/plain", { headers });
    const body = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    expect(body).toMatchObject({ maxAge: 300 });
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_user_authentication", max_age=300',
    );
    expect(await plainAudits(user.id)).toEqual([]);
  });

  it("is refused from an unknown device even with a fresh sign-in", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/passwords/export/plain", {
        headers: { "x-device-fingerprint": "never-registered" },
      }),
      403,
      "FORBIDDEN",
    );
    expect(await plainAudits(user.id)).toEqual([]);
  });

  it("with a fresh sign-in on a known device: allowed, uncached, and in the audit log without content", async () => {
    const user = await TestUser.create({ authAge: 30 });
    const entry = await createEntry(user);
    const fp = await registerDevice(user.id, "recognized");
    const res = await user.call("POST", "/api/passwords/export/plain", {
      headers: { "x-device-fingerprint": fp },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(res.headers.get("cache-control")).toBe("no-store");
    const audits = await plainAudits(user.id);
    expect(audits).toHaveLength(1);
    expect(JSON.parse(audits[0].details)).toEqual({ format: "csv" });
    expect(audits[0].details).not.toContain(entry.id);
  });
});
