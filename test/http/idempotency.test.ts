import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { expectErrorBody, TestUser } from "../support/auth";
import { entryBody } from "../support/fixtures";

const count = async (userId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>())!.n;

describe("Idempotency-Key on POST /api/passwords", () => {
  it("a replay returns the first response and creates nothing twice", async () => {
    const user = await TestUser.create();
    const body = entryBody();
    const first = await user.call("POST", "/api/passwords", {
      body,
      headers: { "idempotency-key": "k-1" },
    });
    expect(first.status).toBe(201);
    const firstJson = await first.json();
    const again = await user.call("POST", "/api/passwords", {
      body,
      headers: { "idempotency-key": "k-1" },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("api-version")).toBe("1");
    expect(await again.json()).toEqual(firstJson);
    expect(await count(user.id)).toBe(1);
  });

  it("the same key with another body is 422 UNPROCESSABLE", async () => {
    const user = await TestUser.create();
    await user.call("POST", "/api/passwords", {
      body: entryBody(),
      headers: { "idempotency-key": "k-2" },
    });
    await expectErrorBody(
      await user.call("POST", "/api/passwords", {
        body: entryBody(),
        headers: { "idempotency-key": "k-2" },
      }),
      422,
      "UNPROCESSABLE",
    );
    expect(await count(user.id)).toBe(1);
  });

  it("a replay while the first request is still running is 409 CONFLICT", async () => {
    const user = await TestUser.create();
    const raw = JSON.stringify(entryBody());
    const stub = env.IDEMPOTENCY.get(env.IDEMPOTENCY.idFromName(user.id));
    expect(await stub.begin("k-3", await sha256Hex(`POST /api/passwords\n${raw}`))).toEqual({
      state: "new",
    });
    const res = await user.call("POST", "/api/passwords", {
      rawBody: raw,
      headers: { "content-type": "application/json", "idempotency-key": "k-3" },
    });
    await expectErrorBody(res, 409, "CONFLICT");
    expect(await count(user.id)).toBe(0);
  });

  it("keys are per user", async () => {
    const a = await TestUser.create();
    const b = await TestUser.create();
    const body = entryBody();
    expect(
      (await a.call("POST", "/api/passwords", { body, headers: { "idempotency-key": "shared" } }))
        .status,
    ).toBe(201);
    const res = await b.call("POST", "/api/passwords", {
      body,
      headers: { "idempotency-key": "shared" },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await count(b.id)).toBe(1);
  });

  it("a malformed key is 400; a failed validation is not remembered", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/passwords", {
        body: entryBody(),
        headers: { "idempotency-key": "x".repeat(256) },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("POST", "/api/passwords", {
        body: { name: "" },
        headers: { "idempotency-key": "k-4" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(
      (
        await user.call("POST", "/api/passwords", {
          body: entryBody(),
          headers: { "idempotency-key": "k-4" },
        })
      ).status,
    ).toBe(201);
  });
});

describe("IdempotencyStore Durable Object", () => {
  const stub = () => env.IDEMPOTENCY.get(env.IDEMPOTENCY.idFromName(`test:${crypto.randomUUID()}`));
  const response = {
    status: 201,
    headers: [["content-type", "application/json"]] as [string, string][],
    body: "{}",
  };

  it("forgets a key after one hour", async () => {
    const s = stub();
    expect(await s.begin("k", "fp", 0)).toEqual({ state: "new" });
    await s.complete("k", response);
    expect(await s.begin("k", "fp", 3_599_000)).toEqual({ state: "replay", response });
    expect(await s.begin("k", "fp", 3_600_001)).toEqual({ state: "new" });
  });

  it("a released key may be used again, and an abandoned one frees after its lease", async () => {
    const s = stub();
    await s.begin("k", "fp", 0);
    await s.release("k");
    expect(await s.begin("k", "fp", 1)).toEqual({ state: "new" });
    expect(await s.begin("k", "fp", 60_000)).toEqual({ state: "in_flight" });
    expect(await s.begin("k", "fp", 121_001)).toEqual({ state: "new" });
  });
});
