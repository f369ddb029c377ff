import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { providerAccount, providerState } from "../support/alias-provider";

type Identity = Record<string, string | null> & { id: string };

describe("disposable identities: security", () => {
  it("another user's identity is 404 for PATCH and DELETE, invisible in lists, and unchanged", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const apiKey = await providerAccount();
    const res = await owner.call("POST", "/api/identities", {
      body: { emailApiKey: apiKey, label: "Mine" },
    });
    const { identity } = (await res.json()) as { identity: Identity };
    await expectErrorBody(
      await intruder.call("PATCH", `/api/identities/${identity.id}`, { body: { status: "nuked" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("PATCH", `/api/identities/${identity.id}`, {
        body: { label: "Hijacked" },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await intruder.call("DELETE", `/api/identities/${identity.id}`),
      404,
      "NOT_FOUND",
    );
    const theirs = (await (await intruder.call("GET", "/api/identities")).json()) as {
      identities: Identity[];
      stats: { total: number };
    };
    expect(theirs.identities).toEqual([]);
    expect(theirs.stats.total).toBe(0);
    const mine = (await (await owner.call("GET", "/api/identities")).json()) as {
      identities: Identity[];
    };
    expect(mine.identities[0]).toEqual(identity);
    expect((await providerState(apiKey)).aliases[0].enabled).toBe(true);
  });

  it("the alias API key never appears in a response, and is sealed bound to its owner and identity", async () => {
    const user = await TestUser.create();
    const apiKey = await providerAccount();
    const created = await user.call("POST", "/api/identities", { body: { emailApiKey: apiKey } });
    const createdText = await created.text();
    const { identity } = JSON.parse(createdText) as { identity: Identity };
    const listText = await (await user.call("GET", "/api/identities")).text();
    const patchText = await (
      await user.call("PATCH", `/api/identities/${identity.id}`, { body: { label: "x" } })
    ).text();
    for (const text of [createdText, listText, patchText]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toMatch(/api_?key|sealed/i);
    }
    const row = await env.DB.prepare("SELECT alias_key_sealed FROM identities WHERE id = ?")
      .bind(identity.id)
      .first<{ alias_key_sealed: string }>();
    const sealed = JSON.parse(row!.alias_key_sealed) as { kid: string; iv: string; ct: string };
    expect(Object.keys(sealed).sort()).toEqual(["ct", "iv", "kid"]);
    expect(atob(sealed.ct)).not.toContain(apiKey);
  });

  it("a sealed key moved to another user's identity cannot be used to disable the alias", async () => {
    const victim = await TestUser.create();
    const attacker = await TestUser.create();
    const apiKey = await providerAccount();
    const v = (
      (await (
        await victim.call("POST", "/api/identities", { body: { emailApiKey: apiKey } })
      ).json()) as { identity: Identity }
    ).identity;
    const a = (
      (await (await attacker.call("POST", "/api/identities", { body: {} })).json()) as {
        identity: Identity;
      }
    ).identity;
    // Read and written apart: the two users may be on different shards (VAULT_SHARDS=3).
    const stolen = await env.DB.prepare(
      "SELECT alias_key_sealed, alias_id FROM identities WHERE id = ?",
    )
      .bind(v.id)
      .first<{ alias_key_sealed: string; alias_id: string }>();
    expect(stolen?.alias_key_sealed).toBeTruthy();
    await env.DB.prepare(
      "UPDATE identities SET alias_key_sealed = ?, alias_id = ?, alias_provider = 'alias_provider_a' WHERE id = ? AND user_id = ?",
    )
      .bind(stolen!.alias_key_sealed, stolen!.alias_id, a.id, attacker.id)
      .run();
    const res = await attacker.call("PATCH", `/api/identities/${a.id}`, {
      body: { status: "nuked" },
    });
    // Bound to its owner and identity (AAD), it does not open here: the spec's body, not a crash.
    await expectErrorBody(res, 422, "UNPROCESSABLE");
    expect((await providerState(apiKey)).aliases[0].enabled).toBe(true);
  });
});
