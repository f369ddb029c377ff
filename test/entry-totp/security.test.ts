import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { seedLegacySecret, zeroTrustBody } from "../support/entry-totp";
import { createEntry } from "../support/fixtures";
import { base32Encode } from "../support/rfc6238";

describe("vault entry TOTP: security", () => {
  it("another user's entry is 404 on every TOTP route and stays as it was", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { id } = await createEntry(owner);
    const body = zeroTrustBody();
    await owner.call("POST", `/api/passwords/${id}/totp`, { body });
    await expectErrorBody(
      await intruder.call("GET", `/api/passwords/${id}/totp`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("DELETE", `/api/passwords/${id}/totp`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("GET", `/api/passwords/${id}/totp/code`),
      404,
      "NOT_FOUND",
    );
    expect(await (await owner.call("GET", `/api/passwords/${id}/totp`)).json()).toEqual({
      hasTotp: true,
      zeroTrust: true,
      ...body,
    });
  });

  it("another user cannot read a legacy entry's code", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { id } = await createEntry(owner);
    await seedLegacySecret(owner.id, id, {
      secret: base32Encode(crypto.getRandomValues(new Uint8Array(20))),
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    });
    await expectErrorBody(
      await intruder.call("GET", `/api/passwords/${id}/totp/code`),
      404,
      "NOT_FOUND",
    );
  });

  it("a legacy secret is sealed at rest, never returned, and each code read is audited", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const secret = base32Encode(crypto.getRandomValues(new Uint8Array(20)));
    await seedLegacySecret(user.id, id, { secret, algorithm: "SHA-1", digits: 6, period: 30 });
    const row = await env.DB.prepare(
      "SELECT secret_sealed, secret_encrypted FROM password_totp WHERE password_id = ?",
    )
      .bind(id)
      .first<{ secret_sealed: string; secret_encrypted: string | null }>();
    expect(row?.secret_sealed).not.toContain(secret);
    expect(row?.secret_encrypted).toBeNull();
    const config = await (await user.call("GET", `/api/passwords/${id}/totp`)).text();
    expect(config).not.toContain(secret);
    expect(config).not.toContain("secretEncrypted");
    await user.call("GET", `/api/passwords/${id}/totp/code`, {
      headers: { "cf-connecting-ip": "198.51.100.7", "user-agent": "probe/1.0" },
    });
    const audit = await env.DB.prepare(
      "SELECT action, target_id, ip, user_agent FROM audit_events WHERE user_id = ? AND action = 'password.totp_code'",
    )
      .bind(user.id)
      .first();
    expect(audit).toEqual({
      action: "password.totp_code",
      target_id: id,
      ip: "198.51.100.7",
      user_agent: "probe/1.0",
    });
  });

  it("a sealed legacy secret is bound to its entry: copied to another entry it does not open", async () => {
    const user = await TestUser.create();
    const a = await createEntry(user);
    const b = await createEntry(user);
    await seedLegacySecret(user.id, a.id, {
      secret: base32Encode(crypto.getRandomValues(new Uint8Array(20))),
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    });
    await seedLegacySecret(user.id, b.id, {
      secret: base32Encode(crypto.getRandomValues(new Uint8Array(20))),
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    });
    await env.DB.prepare(
      "UPDATE password_totp SET secret_sealed = (SELECT secret_sealed FROM password_totp WHERE password_id = ?) WHERE password_id = ?",
    )
      .bind(a.id, b.id)
      .run();
    const res = await user.call("GET", `/api/passwords/${b.id}/totp/code`);
    // It does not open (AAD binds it to its entry): the standard body, naming no crypto.
    const body = await expectErrorBody(res, 422, "UNPROCESSABLE");
    expect(JSON.stringify(body)).not.toMatch(/decrypt|aes|operation/i);
  });
});
