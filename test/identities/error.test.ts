import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { providerAccount, providerState, setProviderMode } from "../support/alias-provider";

type Identity = Record<string, string | null> & { id: string; status: string };

async function create(user: TestUser, body: Record<string, unknown> = {}) {
  const res = await user.call("POST", "/api/identities", { body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { identity: Identity }).identity;
}

async function count(user: TestUser) {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM identities WHERE user_id = ?")
    .bind(user.id)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("disposable identities: errors", () => {
  it("rejects bad input with field details and creates nothing", async () => {
    const user = await TestUser.create();
    const cases: [Record<string, unknown>, string][] = [
      [{ country: "FR" }, "country"],
      [{ gender: "other" }, "gender"],
      [{ emailProvider: "alias_provider_z", emailApiKey: "k" }, "emailProvider"],
      [{ generateEmail: true }, "emailApiKey"],
      [{ generatePhone: "yes" }, "generatePhone"],
      [{ label: "x".repeat(201) }, "label"],
      [{ notes: 5 }, "notes"],
    ];
    for (const [body, field] of cases) {
      const err = await expectErrorBody(
        await user.call("POST", "/api/identities", { body }),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    await expectErrorBody(
      await user.call("POST", "/api/identities", {
        rawBody: "{nope",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await count(user)).toBe(0);
  });

  it("rejects a bad status filter and bad PATCH bodies", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("GET", "/api/identities?status=deleted"),
      400,
      "VALIDATION_ERROR",
    );
    const id = await create(user);
    await expectErrorBody(
      await user.call("PATCH", `/api/identities/${id.id}`, { body: {} }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("PATCH", `/api/identities/${id.id}`, { body: { status: "gone" } }),
      400,
      "VALIDATION_ERROR",
    );
    const mixed = await expectErrorBody(
      await user.call("PATCH", `/api/identities/${id.id}`, {
        body: { status: "nuked", label: "x" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(mixed.details?.[0]?.field).toBe("status");
    const after = (await (await user.call("GET", "/api/identities")).json()) as {
      identities: Identity[];
    };
    expect(after.identities[0]).toMatchObject({
      status: "active",
      first_name: id.first_name,
      label: null,
    });
  });

  it("a provider outage is 503 and leaves no identity behind", async () => {
    const user = await TestUser.create();
    for (const emailProvider of ["alias_provider_a", "alias_provider_b"]) {
      const apiKey = await providerAccount("down");
      const err = await expectErrorBody(
        await user.call("POST", "/api/identities", {
          body: { emailApiKey: apiKey, emailProvider },
        }),
        503,
        "SERVICE_UNAVAILABLE",
      );
      expect(err.error).toContain(emailProvider);
      expect(JSON.stringify(err)).not.toContain(apiKey);
    }
    expect(await count(user)).toBe(0);
  });

  it("a key the provider rejects is 422 naming emailApiKey, and nothing is created", async () => {
    const user = await TestUser.create();
    for (const emailProvider of ["alias_provider_a", "alias_provider_b"]) {
      const err = await expectErrorBody(
        await user.call("POST", "/api/identities", {
          body: { emailApiKey: "not-a-real-key", emailProvider },
        }),
        422,
        "UNPROCESSABLE",
      );
      expect(err.details?.[0]?.field).toBe("emailApiKey");
      expect(JSON.stringify(err)).not.toContain("not-a-real-key");
    }
    expect(await count(user)).toBe(0);
  });

  it("a nuke during a provider outage is 503 and changes nothing; it succeeds once the provider is back", async () => {
    const user = await TestUser.create();
    const apiKey = await providerAccount();
    const id = await create(user, { emailApiKey: apiKey });
    await setProviderMode(apiKey, "down");
    await expectErrorBody(
      await user.call("PATCH", `/api/identities/${id.id}`, { body: { status: "nuked" } }),
      503,
      "SERVICE_UNAVAILABLE",
    );
    const list = (await (await user.call("GET", "/api/identities")).json()) as {
      identities: Identity[];
    };
    expect(list.identities[0]).toMatchObject({
      status: "active",
      email_alias: id.email_alias,
      first_name: id.first_name,
    });
    await setProviderMode(apiKey, "ok");
    expect(
      (await user.call("PATCH", `/api/identities/${id.id}`, { body: { status: "nuked" } })).status,
    ).toBe(200);
    expect((await providerState(apiKey)).aliases[0].enabled).toBe(false);
  });

  it("nuke is irreversible: later PATCHes are 409 and DELETE still works", async () => {
    const user = await TestUser.create();
    const id = await create(user);
    expect(
      (await user.call("PATCH", `/api/identities/${id.id}`, { body: { status: "nuked" } })).status,
    ).toBe(200);
    for (const body of [
      { status: "active" },
      { status: "paused" },
      { status: "nuked" },
      { label: "again" },
    ]) {
      await expectErrorBody(
        await user.call("PATCH", `/api/identities/${id.id}`, { body }),
        409,
        "CONFLICT",
      );
    }
    expect((await user.call("DELETE", `/api/identities/${id.id}`)).status).toBe(200);
  });

  it("unknown identities are 404", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("PATCH", "/api/identities/does-not-exist", { body: { status: "paused" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("DELETE", "/api/identities/does-not-exist"),
      404,
      "NOT_FOUND",
    );
  });

  it("limits POST to 10 per 60 s and PATCH plus DELETE to 30 per 60 s", async () => {
    const user = await TestUser.create();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await create(user)).id);
    const limited = await user.call("POST", "/api/identities", { body: {} });
    await expectErrorBody(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await count(user)).toBe(10);
    for (let i = 0; i < 30; i++) {
      const res = await user.call("PATCH", `/api/identities/${ids[i % 10]}`, {
        body: { label: `l${i}` },
      });
      expect(res.status).toBe(200);
    }
    await expectErrorBody(
      await user.call("DELETE", `/api/identities/${ids[0]}`),
      429,
      "RATE_LIMITED",
    );
    expect(await count(user)).toBe(10);
  });
});
