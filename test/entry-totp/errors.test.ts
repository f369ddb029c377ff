import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { seedLegacySecret, zeroTrustBody } from "../support/entry-totp";
import { createEntry } from "../support/fixtures";

describe("vault entry TOTP: errors", () => {
  it("a zero-trust entry's /totp/code is 410 GONE", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await user.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() });
    await expectErrorBody(await user.call("GET", `/api/passwords/${id}/totp/code`), 410, "GONE");
  });

  it("an entry without TOTP: /totp/code and DELETE are 404", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await expectErrorBody(
      await user.call("GET", `/api/passwords/${id}/totp/code`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await user.call("DELETE", `/api/passwords/${id}/totp`), 404, "NOT_FOUND");
  });

  it("unknown and deleted entries are 404 on every TOTP route", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await user.call("POST", `/api/passwords/${id}/totp`, { body: zeroTrustBody() });
    await user.call("DELETE", `/api/passwords/${id}`);
    for (const target of [id, crypto.randomUUID()]) {
      await expectErrorBody(
        await user.call("GET", `/api/passwords/${target}/totp`),
        404,
        "NOT_FOUND",
      );
      await expectErrorBody(
        await user.call("POST", `/api/passwords/${target}/totp`, { body: zeroTrustBody() }),
        404,
        "NOT_FOUND",
      );
      await expectErrorBody(
        await user.call("DELETE", `/api/passwords/${target}/totp`),
        404,
        "NOT_FOUND",
      );
      await expectErrorBody(
        await user.call("GET", `/api/passwords/${target}/totp/code`),
        404,
        "NOT_FOUND",
      );
    }
  });

  it("invalid configurations are 400 naming the field and store nothing", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const cases: [Record<string, unknown>, string][] = [
      [{ secretEncrypted: undefined }, "secretEncrypted"],
      [{ secretEncrypted: "abc" }, "secretEncrypted"],
      [{ secretEncrypted: { iv: "not base64!", ciphertext: "AAAA" } }, "secretEncrypted.iv"],
      [
        { secretEncrypted: { iv: "AAAAAAAAAAAAAAAA", ciphertext: "" } },
        "secretEncrypted.ciphertext",
      ],
      [{ secretEncrypted: { iv: "A".repeat(65), ciphertext: "AAAA" } }, "secretEncrypted.iv"],
      [
        { secretEncrypted: { iv: "AAAA", ciphertext: "A".repeat(4097) } },
        "secretEncrypted.ciphertext",
      ],
      [{ algorithm: "MD5" }, "algorithm"],
      [{ algorithm: 1 }, "algorithm"],
      [{ digits: 5 }, "digits"],
      [{ digits: 9 }, "digits"],
      [{ digits: "6" }, "digits"],
      [{ period: 0 }, "period"],
      [{ period: 301 }, "period"],
      [{ period: 30.5 }, "period"],
    ];
    for (const [over, field] of cases) {
      const res = await user.call("POST", `/api/passwords/${id}/totp`, {
        body: zeroTrustBody(over),
      });
      const err = await expectErrorBody(res, 400, "VALIDATION_ERROR");
      expect(
        err.details?.map((d) => d.field),
        JSON.stringify(over),
      ).toContain(field);
    }
    expect(await (await user.call("GET", `/api/passwords/${id}/totp`)).json()).toEqual({
      hasTotp: false,
    });
    const row = await env.DB.prepare(
      "SELECT count(*) AS n FROM password_totp WHERE password_id = ?",
    )
      .bind(id)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("a non-JSON body is 415 and a malformed one 400", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    await expectErrorBody(
      await user.call("POST", `/api/passwords/${id}/totp`, {
        rawBody: "x=1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    await expectErrorBody(
      await user.call("POST", `/api/passwords/${id}/totp`, {
        rawBody: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("legacy secrets are refused by the seeding path when not base32, too short, or with bad parameters", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user);
    const good = {
      secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
      algorithm: "SHA-1",
      digits: 6,
      period: 30,
    };
    for (const bad of [
      { secret: "not base32!" },
      { secret: "GEZDGNBV" },
      { algorithm: "MD5" },
      { digits: 4 },
      { period: 0 },
    ]) {
      await expect(seedLegacySecret(user.id, id, { ...good, ...bad })).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
      });
    }
    await expect(seedLegacySecret(user.id, crypto.randomUUID(), good)).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
