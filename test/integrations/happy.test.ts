import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import {
  accountReport,
  authorize,
  authUrl,
  callback,
  connectImap,
  connectOAuth,
  imapMailbox,
  integrations,
  patchAccount,
  providerAccount,
  type Provider,
} from "../support/mail-provider";

const addr = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@mail.example.test`;

describe("OAuth integrations: happy paths", () => {
  it.each(["mailx", "maily", "codehost", "idp"] as Provider[])(
    "%s: start, consent, callback with code and state, then listed",
    async (provider) => {
      const user = await TestUser.create();
      const email = addr(provider);
      const account = await providerAccount(provider, email.toUpperCase());
      const url = await authUrl(user, provider);
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get("redirect_uri")).toBe(
        `https://vault.test/api/integrations/${provider}/callback`,
      );
      const back = await authorize(url, account);
      expect(back.searchParams.get("code")).toBeTruthy();
      const { status, location } = await callback(back, user);
      expect(status).toBe(302);
      expect(location.origin).toBe("https://app.test");
      expect(location.pathname).toBe("/dashboard");
      expect(Object.fromEntries(location.searchParams)).toEqual({
        integration: provider,
        status: "connected",
      });
      const list = await integrations(user);
      expect(list).toEqual([
        { provider, email, status: "active", connectedAt: expect.any(String) },
      ]);
      expect((await accountReport(account)).tokenRequests).toEqual(["authorization_code"]);
    },
  );

  it("mailx consent asks for read and modify only (never send)", async () => {
    const user = await TestUser.create();
    for (const url of [await authUrl(user, "mailx"), await authUrl(user, "mailx", true)]) {
      expect(url.searchParams.get("scope")!.split(" ").sort()).toEqual([
        "https://www.googleapis.com/auth/gmail.modify",
        "https://www.googleapis.com/auth/gmail.readonly",
      ]);
      expect(url.searchParams.get("client_id")).toBe("mailx-client");
    }
  });

  it("the original /api/mailx family connects, refreshes and disconnects", async () => {
    const user = await TestUser.create();
    const email = addr("mailx");
    const account = await providerAccount("mailx", email);
    const url = await authUrl(user, "mailx", true);
    expect(url.searchParams.get("redirect_uri")).toBe("https://vault.test/api/mailx/callback");
    const { location } = await callback(await authorize(url, account), user);
    expect(location.searchParams.get("status")).toBe("connected");
    const r = await user.call("POST", "/api/mailx/refresh");
    expect(r.status).toBe(200);
    const body = (await r.json()) as { success: boolean; expiresAt: string };
    expect(body.success).toBe(true);
    expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now() + 3_000_000);
    expect((await accountReport(account)).tokenRequests).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
    expect(await (await user.call("POST", "/api/mailx/disconnect")).json()).toEqual({
      success: true,
    });
    expect(await integrations(user)).toEqual([]);
  });

  it("refresh rotates the stored refresh token: the next refresh presents the new one", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("maily", addr("maily"));
    await connectOAuth(user, "maily", account);
    for (let i = 0; i < 3; i++)
      expect((await user.call("POST", "/api/integrations/maily/refresh")).status).toBe(200);
    const report = await accountReport(account);
    expect(report.tokenRequests).toEqual([
      "authorization_code",
      "refresh_token",
      "refresh_token",
      "refresh_token",
    ]);
    expect(report.liveRefreshTokens).toBe(1);
  });

  it("concurrent refreshes for one user are single flight", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("mailx", addr("mailx"));
    await connectOAuth(user, "mailx", account);
    await patchAccount(account, { tokenDelayMs: 400 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => user.call("POST", "/api/integrations/mailx/refresh")),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const expiries = new Set(
      await Promise.all(
        results.map(async (r) => ((await r.json()) as { expiresAt: string }).expiresAt),
      ),
    );
    expect(expiries.size).toBe(1);
    const report = await accountReport(account);
    expect(report.tokenRequests.filter((t) => t === "refresh_token")).toHaveLength(1);
    expect((await integrations(user))[0].status).toBe("active");
  });

  it("disconnect revokes the token at the provider, then removes the integration", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("codehost", addr("codehost"));
    await connectOAuth(user, "codehost", account);
    expect(await (await user.call("POST", "/api/integrations/codehost/disconnect")).json()).toEqual(
      { success: true },
    );
    const report = await accountReport(account);
    expect(report.revoked).toHaveLength(1);
    expect(report.liveRefreshTokens).toBe(0);
    expect(await integrations(user)).toEqual([]);
    const row = await env.DB.prepare(
      "SELECT count(*) AS n FROM mail_integrations WHERE user_id = ?",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("a reconnect replaces the tokens and makes a disconnected integration active again", async () => {
    const user = await TestUser.create();
    const email = addr("mailx");
    const account = await providerAccount("mailx", email);
    await connectOAuth(user, "mailx", account);
    await patchAccount(account, { refresh: "invalid_grant" });
    expect((await user.call("POST", "/api/integrations/mailx/refresh")).status).toBe(422);
    expect((await integrations(user))[0].status).toBe("disconnected");
    await patchAccount(account, { refresh: "ok" });
    await connectOAuth(user, "mailx", account);
    expect((await integrations(user))[0].status).toBe("active");
    expect((await user.call("POST", "/api/integrations/mailx/refresh")).status).toBe(200);
  });
});

describe("IMAP integration: happy path", () => {
  it("logs in to check the credentials, answers {success, email} and lists it", async () => {
    const user = await TestUser.create();
    const box = await imapMailbox([]);
    // Connected pending its mailbox check, which the helper then finishes (imap-ownership.test.ts).
    expect(await connectImap(user, box)).toEqual({
      success: true,
      email: box.user,
      status: "pending_verification",
    });
    expect(await integrations(user)).toEqual([
      { provider: "imap", email: box.user, status: "active", connectedAt: expect.any(String) },
    ]);
    expect(await (await user.call("POST", "/api/integrations/imap/disconnect")).json()).toEqual({
      success: true,
    });
    expect(await integrations(user)).toEqual([]);
  });
});
