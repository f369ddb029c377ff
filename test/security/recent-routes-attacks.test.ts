/**
 * The attack catalogue for routes that take little input of their own: an entry's passkey flags
 * (through every route that writes them), the breach range and the live-sync handshake. Another
 * user's ids, a cookie-authenticated mutation without its CSRF token, smuggled input and
 * oversized input. Emergency access, sharing and account 2FA have their own attacks.test.ts.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveSyncHub } from "../../durable-objects/live-sync-hub";
import { expectErrorBody, TestUser } from "../support/auth";
import { viaCookie } from "../support/attacks";
import { handshake, Live, LIVE_URL } from "../support/live-sync";
import { freshPrefix, rangeRequests } from "../support/pwned-range";
import { SELF } from "../support/worker";
import { at, create, importEntry, push, row } from "../sync/helpers";

describe("an entry's passkey flags: attacks", () => {
  it("another user's entry id takes no passkey flag through PATCH, sync push or import, and the cookie needs the CSRF token", async () => {
    const victim = await TestUser.create();
    const attacker = await TestUser.create();
    const id = crypto.randomUUID();
    expect(
      (await push(victim, [create(id, { has_passkey: true, passkey_label: "bank.example" })]))
        .results[0],
    ).toMatchObject({ status: "applied" });
    const before = await row(id);

    await expectErrorBody(
      await attacker.call("PATCH", `/api/passwords/${id}`, {
        body: { has_passkey: false, passkey_label: null },
      }),
      404,
      "NOT_FOUND",
    );
    const pushed = await push(attacker, [
      {
        action: "update",
        id,
        data: { has_passkey: false, passkey_label: "attacker.example" },
        clientUpdatedAt: at(60_000),
      },
    ]);
    expect(pushed.results[0]?.status).not.toBe("applied");
    const imported = await attacker.call("POST", "/api/passwords/import", {
      body: {
        provider: "generic",
        entries: [importEntry({ id, has_passkey: false, passkey_label: "attacker.example" })],
      },
    });
    expect(imported.status).toBe(200);
    // The victim's own cookie, as a cross-site page would send it, without the CSRF token.
    await expectErrorBody(
      await viaCookie(victim, "PATCH", `/api/passwords/${id}`, { has_passkey: false }),
      403,
      "FORBIDDEN",
    );
    expect(await row(id)).toEqual(before);
  });

  it("a passkey label past 200 characters is refused by each route, and nothing of it is stored", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    expect((await push(user, [create(id)])).results[0]).toMatchObject({ status: "applied" });
    const before = await row(id);
    const label = "l".repeat(201);
    const err = await expectErrorBody(
      await user.call("PATCH", `/api/passwords/${id}`, { body: { passkey_label: label } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.map((d) => d.field)).toContain("passkey_label");
    expect(
      (
        await push(user, [
          { action: "update", id, data: { passkey_label: label }, clientUpdatedAt: at(60_000) },
        ])
      ).results[0],
    ).toMatchObject({ status: "failed", code: "VALIDATION_ERROR" });
    expect(await row(id)).toEqual(before);
  });
});

describe("the breach range: attacks", () => {
  it("an encoded path, a smuggled query or fragment reaches the upstream as five hex characters or not at all", async () => {
    const user = await TestUser.create();
    const before = (await rangeRequests()).length;
    for (const bad of [
      "..%2F..%2Fadmin",
      "%2e%2e%2f21BD1",
      "21BD1%3Fx%3D1",
      "21BD1%23x",
      "21BD1%00",
      "%EF%BC%92%EF%BC%91BD1",
    ]) {
      const err = await expectErrorBody(
        await user.call("GET", `/api/breach/range/${bad}`),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        bad,
      ).toContain("prefix");
    }
    expect((await rangeRequests()).length).toBe(before);
    const prefix = freshPrefix();
    const res = await user.call(
      "GET",
      `/api/breach/range/${prefix}?prefix=../../admin&url=https://evil.test/`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/^private/);
    const seen = (await rangeRequests()).slice(before);
    expect(seen.map((r) => r.path)).toEqual([`/range/${prefix}`]);
  });
});

describe("live sync: attacks", () => {
  it("nothing in the handshake chooses another user's hub: a query, a second token or another cookie", async () => {
    const alice = await TestUser.create();
    const bob = await TestUser.create();
    const res = await handshake({
      authorization: `Bearer ${alice.token}`,
      cookie: `__Host-access_token=${bob.token}`,
      "sec-websocket-protocol": `vault-live, vault-bearer.${bob.token}`,
    });
    expect(res.status).toBe(101);
    const live = new Live(res.webSocket!);
    await live.until((m) => m.length > 0);
    expect(await liveSyncHub(env.LIVE_SYNC, alice.id).state()).toMatchObject({
      userId: alice.id,
      connections: 1,
    });
    expect(await liveSyncHub(env.LIVE_SYNC, bob.id).state()).toMatchObject({ connections: 0 });
    live.ws.close(1000);
    const byQuery = await SELF.fetch(`${LIVE_URL}?user=${bob.id}&userId=${bob.id}`, {
      headers: {
        upgrade: "websocket",
        "sec-websocket-protocol": "vault-live",
        authorization: `Bearer ${alice.token}`,
      },
    });
    expect(byQuery.status).toBe(101);
    new Live(byQuery.webSocket!).ws.close(1000);
    expect(await liveSyncHub(env.LIVE_SYNC, bob.id).state()).toMatchObject({ connections: 0 });
  });

  it("answers with vault-live alone: the offered bearer token is never echoed, whatever else is offered", async () => {
    const user = await TestUser.create();
    const res = await handshake({
      "sec-websocket-protocol": `chat, vault-bearer.${user.token}, vault-live, superchat`,
    });
    expect(res.status).toBe(101);
    expect(res.headers.get("sec-websocket-protocol")).toBe("vault-live");
    new Live(res.webSocket!).ws.close(1000);
  });

  it("an oversized bearer offer is refused as unauthenticated and opens nothing", async () => {
    const user = await TestUser.create();
    const huge = `vault-bearer.${"A".repeat(16 * 1024)}.${"B".repeat(16 * 1024)}.${"C".repeat(16 * 1024)}`;
    await expectErrorBody(
      await handshake({
        cookie: `__Host-access_token=${user.token}`,
        "sec-websocket-protocol": `vault-live, ${huge}`,
      }),
      401,
      "UNAUTHORIZED",
    );
    expect(await liveSyncHub(env.LIVE_SYNC, user.id).state()).toMatchObject({ connections: 0 });
  });
});
