import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { providerAccount, providerState } from "../support/alias-provider";

// A sealed value no configured data key opens (a key rotated out too early, a row moved from another
// deployment) is a configuration fault, not a crash: the spec's error body, and a log line that says
// what it was without the crypto exception or any part of the secret.
afterEach(() => vi.restoreAllMocks());

async function identityWithAlias(user: TestUser, apiKey: string): Promise<string> {
  const res = await user.call("POST", "/api/identities", {
    body: { emailApiKey: apiKey, label: "Alias" },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { identity: { id: string } }).identity.id;
}

describe("a sealed alias key that no longer opens", () => {
  for (const [what, spoil] of [
    [
      "sealed under a key this deployment does not hold",
      (s: { kid: string }) => ({ ...s, kid: "00112233445566ff" }),
    ],
    [
      "whose ciphertext does not authenticate",
      (s: { ct: string }) => ({ ...s, ct: btoa("x".repeat(40)) }),
    ],
  ] as const) {
    it(`nuke of an identity ${what}: 422 UNPROCESSABLE, logged as a sealed value, nothing changed`, async () => {
      const user = await TestUser.create();
      const apiKey = await providerAccount();
      const id = await identityWithAlias(user, apiKey);
      const row = await env.DB.prepare(
        "SELECT alias_key_sealed FROM identities WHERE id = ? AND user_id = ?",
      )
        .bind(id, user.id)
        .first<{ alias_key_sealed: string }>();
      const spoiled = JSON.stringify(spoil(JSON.parse(row!.alias_key_sealed)));
      await env.DB.prepare(
        "UPDATE identities SET alias_key_sealed = ? WHERE id = ? AND user_id = ?",
      )
        .bind(spoiled, id, user.id)
        .run();
      const log = vi.spyOn(console, "error").mockImplementation(() => {});

      const res = await user.call("PATCH", `/api/identities/${id}`, { body: { status: "nuked" } });
      const body = await expectErrorBody(res, 422, "UNPROCESSABLE");
      expect(body.error).toMatch(/can no longer be opened/);

      const lines = log.mock.calls.map((c) => c.map(String).join(" "));
      // One structured line (docs/decisions/operations.md, "Operations: deploy and runtime"): the message and the purpose as fields.
      expect(
        lines.some(
          (l) =>
            l.includes('"msg":"sealed value could not be opened"') &&
            l.includes('"purpose":"identity-alias-key"'),
        ),
      ).toBe(true);
      const all = lines.join("\n");
      expect(all).not.toContain("unhandled error");
      expect(all).not.toMatch(/OperationError|Decryption failed|DOMException/i);
      expect(all).not.toContain(apiKey);
      expect(all).not.toContain(spoiled);
      expect(JSON.stringify(body)).not.toContain(apiKey);

      const after = await env.DB.prepare(
        "SELECT status, alias_key_sealed FROM identities WHERE id = ? AND user_id = ?",
      )
        .bind(id, user.id)
        .first();
      expect(after).toEqual({ status: "active", alias_key_sealed: spoiled });
      expect((await providerState(apiKey)).aliases[0].enabled).toBe(true);
    });
  }
});
