import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { loadConfig } from "../../src/env";
import { sealImap } from "../../src/domains/integrations/imap";
import {
  accountReport,
  connectOAuth,
  discoveryImap,
  integrations,
  patchAccount,
  providerAccount,
} from "../support/mail-provider";
import { connectSource, FIXTURE, scan } from "./support";

type Note = { type: string; body: string };
const notes = async (user: TestUser) =>
  ((await (await user.call("GET", "/api/notifications")).json()) as { notifications: Note[] })
    .notifications;

describe("discovery scan: errors", () => {
  it("422 without a connected mailbox (a codehost or idp grant is not one)", async () => {
    const user = await TestUser.create();
    await expectErrorBody(await user.call("POST", "/api/accounts"), 422, "UNPROCESSABLE");
    await connectOAuth(
      user,
      "codehost",
      await providerAccount("codehost", `c-${crypto.randomUUID().slice(0, 6)}@example.test`),
    );
    await expectErrorBody(await user.call("POST", "/api/accounts"), 422, "UNPROCESSABLE");
    await expectErrorBody(await user.call("POST", "/api/discover-accounts"), 422, "UNPROCESSABLE");
  });

  it("an email filter naming no connected mailbox is 404; a malformed one 400", async () => {
    const user = await TestUser.create();
    await connectSource(user, "imap", []);
    await expectErrorBody(
      await user.call("POST", "/api/accounts", { body: { email: "other@example.test" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("POST", "/api/accounts", { body: { email: "nope" } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("the token is refreshed before each scan", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "maily");
    await scan(user);
    await scan(user);
    expect((await accountReport(handle)).tokenRequests).toEqual([
      "authorization_code",
      "refresh_token",
      "refresh_token",
    ]);
  });

  it("a refused refresh before a scan: 422, integration disconnected, user told to reconnect", async () => {
    const user = await TestUser.create();
    const { handle, email } = await connectSource(user, "mailx");
    await scan(user);
    await patchAccount(handle, { refresh: "invalid_grant" });
    await expectErrorBody(await user.call("POST", "/api/accounts"), 422, "UNPROCESSABLE");
    expect((await integrations(user))[0]).toMatchObject({ email, status: "disconnected" });
    expect(
      (await notes(user))
        .filter((n) => n.type === "integration_disconnected")
        .map((n) => n.body.includes(email)),
    ).toEqual([true]);
    // The accounts found before stay listed.
    expect(
      ((await (await user.call("GET", "/api/accounts")).json()) as { stats: { total: number } })
        .stats.total,
    ).toBe(6);
    // Later scans skip the disconnected mailbox rather than asking the provider again.
    await expectErrorBody(await user.call("POST", "/api/accounts"), 422, "UNPROCESSABLE");
    expect(
      (await accountReport(handle)).tokenRequests.filter((t) => t === "refresh_token"),
    ).toHaveLength(2);
  });

  it("an unavailable provider is 503 and the integration stays active", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "maily");
    await patchAccount(handle, { refresh: "server_error" });
    await expectErrorBody(await user.call("POST", "/api/accounts"), 503, "SERVICE_UNAVAILABLE");
    expect((await integrations(user))[0].status).toBe("active");
  });

  it("a mail API answering 503 twice, then normally: the scan backs off and succeeds", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "mailx", FIXTURE.slice(8, 9));
    await patchAccount(handle, { failNext: { status: 503, count: 2 } });
    const t0 = Date.now();
    expect((await scan(user)).accounts.map((a) => a.domain)).toEqual(["dropbox.com"]);
    // Two waits of the backoff (250 ms, then 1 s) before the third attempt.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_200);
  });

  it.each([
    ["500 throughout", { status: 500, count: 99 }, null],
    [
      "429 with a Retry-After too long to wait out",
      { status: 429, count: 99, retryAfter: "120" },
      "120",
    ],
  ] as const)(
    "a mail API answering %s: 503 saying when to come back, the mailbox stays connected",
    async (_name, failNext, retryAfter) => {
      const user = await TestUser.create();
      const { handle } = await connectSource(user, "maily", FIXTURE.slice(8, 9));
      await patchAccount(handle, { failNext });
      const res = await user.call("POST", "/api/accounts");
      const body = await expectErrorBody(res.clone(), 503, "SERVICE_UNAVAILABLE");
      expect(res.headers.get("retry-after")).toBe(retryAfter);
      expect(body.error).toContain(
        retryAfter ? "busy; try again in 120 seconds" : "unavailable; try again later",
      );
      expect((await integrations(user))[0].status).toBe("active");
      // 429 with a long Retry-After is not retried in the request; 500 is, three attempts in all.
      const calls = (await accountReport(handle)).requests.filter((r) =>
        r.startsWith("GET /v1.0/me/messages"),
      );
      expect(calls).toHaveLength(retryAfter ? 1 : 3);
    },
  );

  it("one failing mailbox does not stop the others", async () => {
    const user = await TestUser.create();
    const bad = await connectSource(user, "mailx");
    await connectSource(user, "imap", FIXTURE.slice(8, 9));
    await patchAccount(bad.handle, { refresh: "invalid_grant" });
    expect((await scan(user)).accounts.map((a) => a.domain)).toEqual(["dropbox.com"]);
  });

  it("an IMAP mailbox that now refuses the login: 422 alone, skipped beside a working one", async () => {
    const user = await TestUser.create();
    const box = await connectSource(user, "imap");
    // The password was changed at the mail server after connecting.
    const secret = await sealImap(loadConfig(env), user.id, {
      host: "127.0.0.1",
      port: discoveryImap.port,
      username: box.email,
      password: "changed-since",
      tls: false,
    });
    await env.DB.prepare(
      "UPDATE mail_integrations SET secret = ? WHERE user_id = ? AND provider = 'imap'",
    )
      .bind(secret, user.id)
      .run();
    const err = await expectErrorBody(
      await user.call("POST", "/api/accounts"),
      422,
      "UNPROCESSABLE",
    );
    expect(err.error).toMatch(/login failed/i);
    await connectSource(user, "maily", FIXTURE.slice(8, 9));
    expect((await scan(user)).accounts.map((a) => a.domain)).toEqual(["dropbox.com"]);
  });

  it("POST /api/discover-accounts allows 5 scans per hour", async () => {
    const user = await TestUser.create();
    await connectSource(user, "maily", []);
    for (let i = 0; i < 5; i++)
      expect((await user.call("POST", "/api/discover-accounts")).status).toBe(200);
    const res = await user.call("POST", "/api/discover-accounts");
    await expectErrorBody(res.clone(), 429, "RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("PATCH: errors", () => {
  it("validates the body and refuses unknown ids and entries", async () => {
    const user = await TestUser.create();
    await connectSource(user, "imap", FIXTURE.slice(0, 1));
    const [account] = (await scan(user)).accounts;
    await expectErrorBody(
      await user.call("PATCH", "/api/accounts", { body: { id: account.id } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("PATCH", "/api/discover-accounts", {
        body: { id: account.id, dismissed: "yes" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    const entry = await createEntry(user);
    await expectErrorBody(
      await user.call("PATCH", "/api/accounts", {
        body: { id: account.id, inVault: false, vaultPasswordId: entry.id },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("PATCH", "/api/accounts", { body: { id: "missing", dismissed: true } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("PATCH", "/api/accounts", {
        body: { id: account.id, vaultPasswordId: crypto.randomUUID() },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("GET", "/api/accounts?include_dismissed=maybe"),
      400,
      "VALIDATION_ERROR",
    );
  });
});

describe("add-to-vault: errors", () => {
  it("at most 200 domains, each a domain", async () => {
    const user = await TestUser.create();
    const domains = Array.from({ length: 201 }, (_, i) => `d${i}.example.test`);
    await expectErrorBody(
      await user.call("POST", "/api/accounts/add-to-vault", { body: { domains } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(
      (
        await user.call("POST", "/api/accounts/add-to-vault", {
          body: { domains: domains.slice(0, 200) },
        })
      ).status,
    ).toBe(200);
    await expectErrorBody(
      await user.call("POST", "/api/accounts/add-to-vault", { body: { domains: [] } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("POST", "/api/accounts/add-to-vault", {
        body: { domains: ["not a domain"] },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("the entry limit (503) creates nothing", async () => {
    const user = await TestUser.create();
    const limit = Number(env.MAX_PASSWORDS_PER_USER);
    await connectSource(user, "imap");
    await scan(user);
    const stmts = Array.from({ length: limit - 1 }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO passwords (id, user_id, name, encryption_version, created_at, updated_at) VALUES (?, ?, ?, 3, ?, ?)",
      ).bind(
        crypto.randomUUID(),
        user.id,
        `e${i}`,
        new Date().toISOString(),
        new Date().toISOString(),
      ),
    );
    await env.DB.batch(stmts);
    await expectErrorBody(
      await user.call("POST", "/api/accounts/add-to-vault", {
        body: { domains: ["github.com", "slack.com"] },
      }),
      503,
      "SERVICE_UNAVAILABLE",
    );
    const n = await env.DB.prepare(
      "SELECT count(*) AS n FROM passwords WHERE user_id = ? AND encryption_version = -1",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });
});
