import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { seedLegacySecret, zeroTrustBody } from "../support/entry-totp";
import { createEntry } from "../support/fixtures";
import { base32Decode, base32Encode, referenceTotp } from "../support/rfc6238";

async function entryRow(user: TestUser, id: string) {
  const res = await user.call("GET", "/api/passwords");
  const { data } = (await res.json()) as {
    data: { id: string; has_totp: boolean; updated_at: string }[];
  };
  return data.find((e) => e.id === id)!;
}

describe("vault entry TOTP: happy paths", () => {
  it("an entry without TOTP reports hasTotp false", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const res = await user.call("GET", `/api/passwords/${id}/totp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ hasTotp: false });
  });

  it("stores a zero-trust configuration as given and returns it with secretEncrypted; has_totp follows", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const before = await entryRow(user, id);
    const body = zeroTrustBody({ algorithm: "SHA-256", digits: 8, period: 60 });
    const res = await user.call("POST", `/api/passwords/${id}/totp`, { body });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ success: true });
    const config = await (await user.call("GET", `/api/passwords/${id}/totp`)).json();
    expect(config).toEqual({ hasTotp: true, zeroTrust: true, ...body });
    const after = await entryRow(user, id);
    expect(after.has_totp).toBe(true);
    expect(after.updated_at > before.updated_at).toBe(true);
  });

  it("defaults algorithm SHA-1, 6 digits, 30 s when they are not given", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const { secretEncrypted } = zeroTrustBody();
    expect(
      (await user.call("POST", `/api/passwords/${id}/totp`, { body: { secretEncrypted } })).status,
    ).toBe(201);
    expect(await (await user.call("GET", `/api/passwords/${id}/totp`)).json()).toEqual({
      hasTotp: true,
      zeroTrust: true,
      secretEncrypted,
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    });
  });

  it("a second POST replaces the configuration", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await user.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() });
    const second = zeroTrustBody({ algorithm: "sha512" });
    expect((await user.call("POST", `/api/passwords/${id}/totp`, { body: second })).status).toBe(
      201,
    );
    expect(await (await user.call("GET", `/api/passwords/${id}/totp`)).json()).toEqual({
      hasTotp: true,
      zeroTrust: true,
      ...second,
    });
  });

  it("DELETE removes the configuration and clears has_totp", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await user.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() });
    const res = await user.call("DELETE", `/api/passwords/${id}/totp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await (await user.call("GET", `/api/passwords/${id}/totp`)).json()).toEqual({
      hasTotp: false,
    });
    expect((await entryRow(user, id)).has_totp).toBe(false);
  });

  it("a legacy entry's configuration omits the secret; /totp/code gives the current code and the seconds left", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const secret = base32Encode(crypto.getRandomValues(new Uint8Array(20)));
    await seedLegacySecret(user.id, id, { secret, algorithm: "SHA-1", digits: 6, period: 30 });
    expect(await (await user.call("GET", `/api/passwords/${id}/totp`)).json()).toEqual({
      hasTotp: true,
      zeroTrust: false,
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    });
    expect((await entryRow(user, id)).has_totp).toBe(true);

    const t0 = Date.now() / 1000;
    const res = await user.call("GET", `/api/passwords/${id}/totp/code`);
    const t1 = Date.now() / 1000;
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { code: string; remaining: number };
    expect(Object.keys(body).sort()).toEqual(["code", "remaining"]);
    const key = base32Decode(secret);
    const candidates = [await referenceTotp(key, t0), await referenceTotp(key, t1)];
    expect(candidates).toContain(body.code);
    expect(Number.isInteger(body.remaining)).toBe(true);
    expect(body.remaining).toBeGreaterThanOrEqual(1);
    expect(body.remaining).toBeLessThanOrEqual(30);
    const expected = [30 - (Math.floor(t0) % 30), 30 - (Math.floor(t1) % 30)];
    expect(expected).toContain(body.remaining);
  });

  it("legacy codes honour the entry's algorithm, digits and period", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const key = crypto.getRandomValues(new Uint8Array(64));
    await seedLegacySecret(user.id, id, {
      secret: base32Encode(key),
      algorithm: "SHA-512",
      digits: 8,
      period: 60,
    });
    const t0 = Date.now() / 1000;
    const body = (await (await user.call("GET", `/api/passwords/${id}/totp/code`)).json()) as {
      code: string;
      remaining: number;
    };
    const t1 = Date.now() / 1000;
    const opts = { algorithm: "SHA-512" as const, digits: 8, period: 60 };
    expect([await referenceTotp(key, t0, opts), await referenceTotp(key, t1, opts)]).toContain(
      body.code,
    );
    expect(body.remaining).toBeLessThanOrEqual(60);
  });

  it("posting a zero-trust configuration over a legacy secret migrates the entry and drops the server-held secret", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await seedLegacySecret(user.id, id, {
      secret: base32Encode(crypto.getRandomValues(new Uint8Array(20))),
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    });
    expect(
      (await user.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() })).status,
    ).toBe(201);
    expect((await user.call("GET", `/api/passwords/${id}/totp/code`)).status).toBe(410);
    const row = await env.DB.prepare(
      "SELECT secret_sealed, zero_trust FROM password_totp WHERE password_id = ?",
    )
      .bind(id)
      .first<{ secret_sealed: string | null; zero_trust: number }>();
    expect(row).toEqual({ secret_sealed: null, zero_trust: 1 });
  });
});
